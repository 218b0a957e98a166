package openai

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/openaix"
)

// The defaults shared by both judges.
const (
	DefaultTimeout    = 60 * time.Second // per attempt
	DefaultMaxRetries = 3                // retries after the first attempt
)

// Provider is the gen_ai.provider.name recorded on model-call spans: the
// judges speak the OpenAI chat-completions protocol, whoever serves it.
const Provider = openaix.Provider

// service is the part of a judge that talks to one OpenAI-compatible
// server. It is immutable after newService, so safe for concurrent use.
type service struct {
	// Server names the judge ("audio LM", "LLM judge": the start of every
	// message), the server, the model, the timeout and the variables the
	// hints name.
	openaix.Server
	retries int
	chat    sdk.ChatCompletionService
	models  sdk.ModelService
}

// newService builds the SDK services with options of their own only (see
// openaix.Options).
func newService(what, envURL, envKey, base, model, apiKey string, timeout time.Duration, retries int, hc *http.Client) service {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	opts := openaix.Options(base, apiKey, timeout, retries, hc)
	return service{
		Server: openaix.Server{
			Name: what, Base: base, Model: model, Timeout: timeout,
			EnvURL: envURL, EnvKey: envKey,
		},
		retries: retries,
		chat:    sdk.NewChatCompletionService(opts...),
		models:  sdk.NewModelService(opts...),
	}
}

// complete sends one chat completion, with the SDK's retries.
func (s *service) complete(ctx context.Context, params sdk.ChatCompletionNewParams) (*sdk.ChatCompletion, error) {
	var a openaix.Attempts
	resp, err := s.chat.New(ctx, params, a.Option())
	if err != nil {
		return nil, s.CallError(ctx, &a, "POST /chat/completions", err)
	}
	if resp == nil {
		return nil, s.BadAnswer("an empty answer")
	}
	return resp, nil
}

// check lists the served models and reports an error unless s.Model is
// among them.
func (s *service) check(ctx context.Context) error {
	var a openaix.Attempts
	page, err := s.models.List(ctx, a.Option(), option.WithMaxRetries(1))
	if err != nil {
		return s.CallError(ctx, &a, "GET /models", err)
	}
	var ids []string
	if page != nil {
		for _, m := range page.Data {
			ids = append(ids, m.ID)
		}
	}
	if slices.Contains(ids, s.Model) {
		return nil
	}
	served := "none"
	if len(ids) > 0 {
		served = strings.Join(ids, ", ")
	}
	return foley.Errorf(foley.Unavailable, "%s at %s does not serve model %q (it serves: %s)", s.Name, s.Base, s.Model, served)
}
