package anthropic

import (
	"context"
	"fmt"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/anthropicx"
)

// callError explains a failed Messages call.
func (j *Judge) callError(ctx context.Context, err error, a *anthropicx.Attempts) error {
	return &foley.Error{Code: foley.Unavailable, Err: err,
		Message: fmt.Sprintf("judge %s: %s", j.Name(), j.describe(ctx, err, a))}
}

// checkError explains a failed Check.
func (j *Judge) checkError(ctx context.Context, err error, a *anthropicx.Attempts) error {
	return &foley.Error{Code: foley.Unavailable, Err: err,
		Message: fmt.Sprintf("judge %s: check of %s (GET /v1/models/%s) failed: %s", j.Name(), j.baseURL, j.model, j.describe(ctx, err, a))}
}

// describe says what went wrong with a request (see anthropicx.Describe),
// pointing at the judge's variables.
func (j *Judge) describe(ctx context.Context, err error, a *anthropicx.Attempts) string {
	return anthropicx.Describe(ctx, err, a, j.baseURL, j.timeout,
		anthropicx.Hints{APIKey: EnvAPIKey, Model: EnvModel, BaseURL: EnvBaseURL})
}
