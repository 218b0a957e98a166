// Package anthropicx is what the callers of the Anthropic Messages API
// share, through the official Anthropic Go SDK: the Claude judge of
// package anthropic and the Claude refiner of package refine. It builds the
// SDK client from the caller's settings only, counts a call's HTTP
// attempts, says what went wrong with a call, and reads what a span records
// and what a refusal says out of a message.
package anthropicx

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/obs"
)

// Provider is the gen_ai.provider.name recorded on model-call spans.
const Provider = "anthropic"

// ValidEffort reports whether e is an output_config.effort level the API
// takes: low, medium, high, xhigh or max.
func ValidEffort(e string) bool {
	switch e {
	case "low", "medium", "high", "xhigh", "max":
		return true
	}
	return false
}

// Settings are the settings of a caller of the Messages API, as its
// configuration gives them or resolved (see Resolve).
type Settings struct {
	Model string
	// MaxTokens is the request's max_tokens, which thinking counts
	// against.
	MaxTokens int
	// Effort is the output_config.effort (see ValidEffort).
	Effort  string
	BaseURL string
	// Timeout bounds each HTTP attempt.
	Timeout time.Duration
	// MaxRetries is the number of retries after the first attempt.
	MaxRetries int
}

// Resolve checks the settings given and returns them resolved: trimmed,
// the effort in lower case and the base URL without a trailing slash; a
// zero field takes def's, and a negative MaxRetries means none. A bad field
// is an error with code foley.Invalid that starts with who, such as
// "anthropic judge: timeout is -1s (want a positive duration)".
func Resolve(who string, given, def Settings) (Settings, error) {
	s := Settings{
		Model:      cmp.Or(strings.TrimSpace(given.Model), def.Model),
		MaxTokens:  cmp.Or(given.MaxTokens, def.MaxTokens),
		Effort:     cmp.Or(strings.ToLower(strings.TrimSpace(given.Effort)), def.Effort),
		BaseURL:    strings.TrimRight(strings.TrimSpace(given.BaseURL), "/"),
		Timeout:    cmp.Or(given.Timeout, def.Timeout),
		MaxRetries: max(cmp.Or(given.MaxRetries, def.MaxRetries), 0),
	}
	if s.MaxTokens < 0 {
		return Settings{}, foley.Errorf(foley.Invalid, "%s: max tokens is %d (want a positive number)", who, given.MaxTokens)
	}
	if !ValidEffort(s.Effort) {
		return Settings{}, foley.Errorf(foley.Invalid, "%s: effort %q (want low, medium, high, xhigh or max)", who, given.Effort)
	}
	if s.Timeout < 0 {
		return Settings{}, foley.Errorf(foley.Invalid, "%s: timeout is %s (want a positive duration)", who, given.Timeout)
	}
	if s.BaseURL == "" {
		s.BaseURL = def.BaseURL
	} else if err := CheckBaseURL(s.BaseURL); err != nil {
		return Settings{}, foley.Errorf(foley.Invalid, "%s: base URL %q %v", who, given.BaseURL, err)
	}
	return s, nil
}

// CheckBaseURL says what is wrong with a base URL ("is not a URL: ...",
// "is not an http:// or https:// URL with a host"), or nil.
func CheckBaseURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("is not a URL: %v", err)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
		return fmt.Errorf("is not an http:// or https:// URL with a host")
	}
	return nil
}

// NewClient returns an SDK client configured by its arguments and nothing
// else: no ANTHROPIC_* variable, profile or custom header is picked up
// behind the caller's back. timeout bounds each attempt, maxRetries is the
// number of retries after the first (0 for none), and hc nil means
// http.DefaultClient. The SDK's OpenTelemetry spans are off: the caller
// records the call with obs, and the SDK's spans would record it twice.
func NewClient(apiKey, baseURL string, maxRetries int, timeout time.Duration, hc *http.Client) sdk.Client {
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(apiKey),
		option.WithBaseURL(baseURL),
		option.WithMaxRetries(maxRetries),
		option.WithRequestTimeout(timeout),
		option.WithoutOpenTelemetry(),
	}
	if hc != nil {
		opts = append(opts, option.WithHTTPClient(hc))
	}
	return sdk.NewClient(opts...)
}

// Attempts counts the HTTP attempts of one call, retries included, and
// keeps the status of the last one. Each call has its own; the zero value
// is ready.
type Attempts struct {
	n      atomic.Int32
	status atomic.Int32 // 0 when the last attempt got no response
}

// Option returns the per-call middleware that counts; the SDK runs it once
// an attempt.
func (a *Attempts) Option() option.RequestOption {
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
func (a *Attempts) String() string {
	switch n := a.n.Load(); n {
	case 0:
		return ""
	case 1:
		return "after 1 attempt"
	default:
		return fmt.Sprintf("after %d attempts", n)
	}
}

// Hints name the environment variables an error message says to check.
type Hints struct {
	APIKey  string // after a 401
	Model   string // after a 404, with BaseURL
	BaseURL string
}

// Describe says what went wrong with a call to the API at baseURL whose
// attempts a counted, each bounded by timeout: the API's status, error
// type and message (see DescribeAPIError), or the connection's failure,
// with the attempts made when the failure is one the SDK retries.
func Describe(ctx context.Context, err error, a *Attempts, baseURL string, timeout time.Duration, hints Hints) string {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		return DescribeAPIError(apiErr, a, hints)
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Sprintf("the call was abandoned%s: %v", paren(a.String()), ctxErr)
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Sprintf("no answer from %s within %s an attempt%s: %v", baseURL, timeout, paren(a.String()), err)
	}
	if s := a.status.Load(); s >= 200 && s < 300 {
		return fmt.Sprintf("unreadable answer from %s: %v", baseURL, err)
	}
	return fmt.Sprintf("cannot reach %s%s: %v", baseURL, paren(a.String()), err)
}

// DescribeAPIError reads an error answer of the API, {"type": "error",
// "error": {"type": ..., "message": ...}}: "529 overloaded_error:
// Overloaded (after 4 attempts; request-id req_...)", followed by which
// variables to check after a 401 or a 404.
func DescribeAPIError(e *sdk.Error, a *Attempts, hints Hints) string {
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
		fmt.Fprintf(&b, "; check %s", hints.APIKey)
	case http.StatusNotFound:
		fmt.Fprintf(&b, "; check the model (%s) and the base URL (%s)", hints.Model, hints.BaseURL)
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

// Result is what a span records of a message: the response model and id,
// the input tokens (input_tokens plus cache_creation_input_tokens plus
// cache_read_input_tokens), the output tokens and the stop reason.
func Result(msg *sdk.Message) obs.Result {
	return obs.Result{
		ResponseModel: string(msg.Model),
		ResponseID:    msg.ID,
		InputTokens:   msg.Usage.InputTokens + msg.Usage.CacheCreationInputTokens + msg.Usage.CacheReadInputTokens,
		OutputTokens:  msg.Usage.OutputTokens,
		FinishReasons: []string{string(msg.StopReason)},
	}
}

// RefusalDetails says why the model refused, from the message's
// stop_details: " (category cyber: explanation)", or "" when it says
// nothing.
func RefusalDetails(msg *sdk.Message) string {
	var details []string
	if c := msg.StopDetails.Category; c != "" {
		details = append(details, "category "+string(c))
	}
	if e := strings.TrimSpace(msg.StopDetails.Explanation); e != "" {
		details = append(details, e)
	}
	if len(details) == 0 {
		return ""
	}
	return " (" + strings.Join(details, ": ") + ")"
}

// Text returns the text of a message's text blocks, and whether it has
// any.
func Text(msg *sdk.Message) (string, bool) {
	var text strings.Builder
	found := false
	for _, block := range msg.Content {
		if block.Type == "text" {
			found = true
			text.WriteString(block.Text)
		}
	}
	return text.String(), found
}

// Cut reports whether the model stopped before it finished: at max_tokens
// or at the end of the context window.
func Cut(msg *sdk.Message) bool {
	return msg.StopReason == sdk.StopReasonMaxTokens || msg.StopReason == sdk.StopReasonModelContextWindowExceeded
}

// MessageNote is " (message <id>)", or "" for a message without an id: the
// end of the error about a message that holds no usable answer.
func MessageNote(msg *sdk.Message) string {
	if msg.ID == "" {
		return ""
	}
	return fmt.Sprintf(" (message %s)", msg.ID)
}

// StartSpan opens the obs span of one Messages call.
func StartSpan(ctx context.Context, model, baseURL string, maxTokens int) (context.Context, *obs.Span) {
	return obs.StartCall(ctx, obs.Call{
		Operation: "chat",
		Provider:  Provider,
		Model:     model,
		ServerURL: baseURL,
		MaxTokens: maxTokens,
	})
}
