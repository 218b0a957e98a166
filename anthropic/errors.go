package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/foley-audio/foley"
)

// attempts counts the HTTP attempts of one call, retries included, and keeps
// the status of the last one. Each call has its own.
type attempts struct {
	n      atomic.Int32
	status atomic.Int32 // 0 when the last attempt got no response
}

// option returns the per-call middleware that counts; the SDK runs it once
// an attempt.
func (a *attempts) option() option.RequestOption {
	return option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		a.n.Add(1)
		res, err := next(req)
		status := int32(0)
		if res != nil {
			status = int32(res.StatusCode)
		}
		a.status.Store(status)
		return res, err
	})
}

// String says how many attempts were made: "after 4 attempts", or "" when
// none was counted.
func (a *attempts) String() string {
	switch n := a.n.Load(); n {
	case 0:
		return ""
	case 1:
		return "after 1 attempt"
	default:
		return fmt.Sprintf("after %d attempts", n)
	}
}

// callError explains a failed Messages call.
func (j *Judge) callError(ctx context.Context, err error, a *attempts) error {
	return &foley.Error{Code: foley.Unavailable, Err: err,
		Message: fmt.Sprintf("judge %s: %s", j.Name(), j.describe(ctx, err, a))}
}

// checkError explains a failed Check.
func (j *Judge) checkError(ctx context.Context, err error, a *attempts) error {
	return &foley.Error{Code: foley.Unavailable, Err: err,
		Message: fmt.Sprintf("judge %s: check of %s (GET /v1/models/%s) failed: %s", j.Name(), j.baseURL, j.model, j.describe(ctx, err, a))}
}

// describe says what went wrong with a request: the API's status, error
// type and message, or the connection's failure, with the attempts made
// when the failure is one the SDK retries.
func (j *Judge) describe(ctx context.Context, err error, a *attempts) string {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		return describeAPIError(apiErr, a)
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Sprintf("the call was abandoned%s: %v", paren(a.String()), ctxErr)
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Sprintf("no answer from %s within %s an attempt%s: %v", j.baseURL, j.timeout, paren(a.String()), err)
	}
	if s := a.status.Load(); s >= 200 && s < 300 {
		return fmt.Sprintf("unreadable answer from %s: %v", j.baseURL, err)
	}
	return fmt.Sprintf("cannot reach %s%s: %v", j.baseURL, paren(a.String()), err)
}

// describeAPIError reads an error answer of the API, {"type": "error",
// "error": {"type": ..., "message": ...}}: "529 overloaded_error: Overloaded
// (after 4 attempts; request-id req_...)".
func describeAPIError(e *sdk.Error, a *attempts) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d", e.StatusCode)
	if t := e.Type(); t != "" {
		fmt.Fprintf(&b, " %s", t)
	} else if s := http.StatusText(e.StatusCode); s != "" {
		fmt.Fprintf(&b, " %s", s)
	}
	if m := strings.TrimSpace(e.Message); m != "" {
		fmt.Fprintf(&b, ": %s", m)
	} else if raw := strings.TrimSpace(e.RawJSON()); raw != "" {
		fmt.Fprintf(&b, ": %s", excerpt(raw))
	}
	var notes []string
	if retried(e.StatusCode) {
		notes = append(notes, a.String())
	}
	if e.RequestID != "" {
		notes = append(notes, "request-id "+e.RequestID)
	}
	b.WriteString(paren(notes...))
	switch e.StatusCode {
	case http.StatusUnauthorized:
		fmt.Fprintf(&b, "; check %s", EnvAPIKey)
	case http.StatusNotFound:
		fmt.Fprintf(&b, "; check the model (%s) and the base URL (%s)", EnvModel, EnvBaseURL)
	}
	return b.String()
}

// retried reports whether the SDK retries an answer with this status (unless
// the answer's x-should-retry header says otherwise).
func retried(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500
}

// paren returns the non-empty notes as " (a; b)", or "" when there are none.
func paren(notes ...string) string {
	var kept []string
	for _, n := range notes {
		if n != "" {
			kept = append(kept, n)
		}
	}
	if len(kept) == 0 {
		return ""
	}
	return " (" + strings.Join(kept, "; ") + ")"
}

// excerpt shortens s for an error message.
func excerpt(s string) string {
	if len(s) > 200 {
		return fmt.Sprintf("%q...", s[:200])
	}
	return fmt.Sprintf("%q", s)
}
