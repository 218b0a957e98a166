package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/httperr"
	"github.com/foley-audio/foley/obs"
)

// The defaults shared by both judges.
const (
	DefaultTimeout    = 60 * time.Second // per attempt
	DefaultMaxRetries = 3                // retries after the first attempt
)

// Provider is the gen_ai.provider.name recorded on model-call spans: the
// judges speak the OpenAI chat-completions protocol, whoever serves it.
const Provider = "openai"

// maxErrorBody bounds the part of an error answer kept for the message.
const maxErrorBody = 64 << 10

// service is the part of a judge that talks to one OpenAI-compatible
// server. It is immutable after newService, so safe for concurrent use.
type service struct {
	what    string // "audio LM", "LLM judge": the start of every message
	envURL  string // the variable that sets the base URL, for hints
	envKey  string // the variable that sets the API key, for hints
	base    string // the base URL, without a trailing slash
	model   string
	timeout time.Duration
	retries int
	chat    sdk.ChatCompletionService
	models  sdk.ModelService
}

// checkBaseURL returns the base URL without its trailing slash, or an
// Invalid error.
func checkBaseURL(what, envURL, raw, example string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", foley.Errorf(foley.Invalid, "%s: no server URL (set %s to the server's base URL, e.g. %s)", what, envURL, example)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", foley.Errorf(foley.Invalid,
			"%s: server URL %q is not an http:// or https:// base URL (%s wants the server's base URL, e.g. %s)", what, raw, envURL, example)
	}
	return strings.TrimRight(raw, "/"), nil
}

// newService builds the SDK services with options of their own only: the
// SDK's NewClient would also read OPENAI_API_KEY, OPENAI_ORG_ID and the
// like from the environment and send them to this server.
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
	if hc == nil {
		hc = &http.Client{}
	}
	opts := []option.RequestOption{
		option.WithBaseURL(base + "/"),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(retries),
		option.WithRequestTimeout(timeout),
	}
	if apiKey != "" {
		opts = append(opts, option.WithAPIKey(apiKey))
	}
	return service{
		what: what, envURL: envURL, envKey: envKey,
		base: base, model: model, timeout: timeout, retries: retries,
		chat:   sdk.NewChatCompletionService(opts...),
		models: sdk.NewModelService(opts...),
	}
}

// attempts records what the server answered to each attempt of one call.
// Each call has its own; the SDK makes the attempts one after another.
type attempts struct {
	n      int
	status int    // of the last attempt; 0 when it got no answer
	body   []byte // of the last attempt, when it failed with a status
}

// middleware counts the attempts and keeps the last error answer, which the
// SDK itself only parses when it has OpenAI's {"error": {...}} shape.
func (a *attempts) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	a.n++
	a.status, a.body = 0, nil
	res, err := next(req)
	if res == nil {
		return res, err
	}
	a.status = res.StatusCode
	if res.StatusCode >= 400 && res.Body != nil {
		b, rerr := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		res.Body.Close()
		a.body = b
		res.Body = io.NopCloser(bytes.NewReader(b))
		if rerr != nil && err == nil {
			err = rerr
		}
	}
	return res, err
}

// complete sends one chat completion, with the SDK's retries.
func (s *service) complete(ctx context.Context, params sdk.ChatCompletionNewParams) (*sdk.ChatCompletion, error) {
	var a attempts
	resp, err := s.chat.New(ctx, params, option.WithMiddleware(a.middleware))
	if err != nil {
		return nil, s.callError(ctx, &a, "POST /chat/completions", err)
	}
	if resp == nil {
		return nil, s.badAnswer("an empty answer")
	}
	return resp, nil
}

// check lists the served models and reports an error unless s.model is
// among them.
func (s *service) check(ctx context.Context) error {
	var a attempts
	page, err := s.models.List(ctx, option.WithMiddleware(a.middleware), option.WithMaxRetries(1))
	if err != nil {
		return s.callError(ctx, &a, "GET /models", err)
	}
	var ids []string
	if page != nil {
		for _, m := range page.Data {
			ids = append(ids, m.ID)
		}
	}
	if slices.Contains(ids, s.model) {
		return nil
	}
	served := "none"
	if len(ids) > 0 {
		served = strings.Join(ids, ", ")
	}
	return foley.Errorf(foley.Unavailable, "%s at %s does not serve model %q (it serves: %s)", s.what, s.base, s.model, served)
}

// callError turns an error of the SDK into a foley error; see the package
// documentation for the mapping.
func (s *service) callError(ctx context.Context, a *attempts, what string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("%s at %s: %w", s.what, s.base, cerr)
	}
	tries := ""
	if a.n > 1 {
		tries = fmt.Sprintf(" after %d attempts", a.n)
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return &foley.Error{Code: foley.Unavailable, Err: err, Message: fmt.Sprintf(
			"%s at %s: %s did not answer within %s%s; is the server overloaded? (a timed-out attempt is not retried)",
			s.what, s.base, what, s.timeout, tries)}
	}
	if a.status == 0 {
		cause := err
		var ue *url.Error
		if errors.As(err, &ue) {
			cause = ue.Err
		}
		return &foley.Error{Code: foley.Unavailable, Err: err, Message: fmt.Sprintf(
			"%s at %s is not reachable%s: %v (is %s right and the server running?)", s.what, s.base, tries, cause, s.envURL)}
	}
	if a.status < 400 {
		return &foley.Error{Code: foley.Unavailable, Err: err, Message: fmt.Sprintf(
			"%s at %s (model %q) gave an answer to %s that is not what the API specifies: %v", s.what, s.base, s.model, what, err)}
	}
	status := statusText(a.status)
	msg := serverMessage(a.body)
	switch code := a.status; {
	case code == http.StatusRequestTimeout || code == http.StatusConflict || code == http.StatusTooManyRequests || code >= 500:
		return &foley.Error{Code: foley.Unavailable, Err: err, Message: fmt.Sprintf(
			"%s at %s: %s%s: %s", s.what, s.base, status, tries, msg)}
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return &foley.Error{Code: foley.Unavailable, Err: err, Message: fmt.Sprintf(
			"%s at %s refused %s: %s: %s (check %s)", s.what, s.base, what, status, msg, s.envKey)}
	case code == http.StatusNotFound || code == http.StatusMethodNotAllowed:
		return &foley.Error{Code: foley.Unavailable, Err: err, Message: fmt.Sprintf(
			"%s at %s has no %s, or no model %q: %s: %s (%s wants the base URL of an OpenAI-compatible server, usually ending in /v1)",
			s.what, s.base, what, s.model, status, msg, s.envURL)}
	default:
		return &foley.Error{Code: foley.Invalid, Err: err, Message: fmt.Sprintf(
			"%s at %s rejected %s for model %q: %s: %s", s.what, s.base, what, s.model, status, msg)}
	}
}

// badAnswer is the error for an answer the judge cannot use: the service
// misbehaved.
func (s *service) badAnswer(format string, args ...any) error {
	return foley.Errorf(foley.Unavailable, "%s at %s (model %q) gave %s", s.what, s.base, s.model, fmt.Sprintf(format, args...))
}

// span opens the model-call span of one chat completion.
func (s *service) span(ctx context.Context, maxTokens int) (context.Context, *obs.Span) {
	temp := 0.0
	return obs.StartCall(ctx, obs.Call{
		Operation:   "chat",
		Provider:    Provider,
		Model:       s.model,
		ServerURL:   s.base,
		MaxTokens:   maxTokens,
		Temperature: &temp,
	})
}

// result is what a span records of an answer; resp may be nil.
func result(resp *sdk.ChatCompletion) obs.Result {
	r := obs.Result{InputTokens: -1, OutputTokens: -1}
	if resp == nil {
		return r
	}
	r.ResponseModel, r.ResponseID = resp.Model, resp.ID
	if resp.JSON.Usage.Valid() {
		r.InputTokens, r.OutputTokens = resp.Usage.PromptTokens, resp.Usage.CompletionTokens
	}
	for _, c := range resp.Choices {
		if c.FinishReason != "" {
			r.FinishReasons = append(r.FinishReasons, c.FinishReason)
		}
	}
	return r
}

func statusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return fmt.Sprintf("%d %s", code, t)
	}
	if code == 529 {
		return "529 (overloaded)"
	}
	return fmt.Sprint(code)
}

// serverMessage is the message of an error body (see httperr.Message),
// shortened and quoted.
func serverMessage(body []byte) string {
	if m := httperr.Message(body); m != "" {
		return quote(m)
	}
	return "(no message)"
}

// quote shortens s to 300 characters and quotes it.
func quote(s string) string {
	const most = 300
	if utf8.RuneCountInString(s) > most {
		s = string([]rune(s)[:most]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
