// Package openaix is what the clients of OpenAI-compatible chat-completions
// servers share, through the official OpenAI Go SDK: the judges of package
// openai and the LLM refiner of package refine. It builds the SDK's options
// without reading the environment, counts a call's HTTP attempts, turns the
// SDK's errors into foley errors that name the server, the status, the
// server's message and the variable to check, and records model-call spans.
package openaix

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/httperr"
	"github.com/foley-audio/foley/obs"
)

// Provider is the gen_ai.provider.name recorded on model-call spans: the
// clients speak the OpenAI chat-completions protocol, whoever serves it.
const Provider = "openai"

// maxErrorBody bounds the part of an error answer kept for the message.
const maxErrorBody = 64 << 10

// CheckBaseURL returns the base URL raw, trimmed and without its trailing
// slash, or an error with code foley.Invalid: "<what>: no server URL (set
// <envURL> ...)" or "<what>: server URL ... is not an http:// or https://
// base URL". example is a base URL to suggest.
func CheckBaseURL(what, envURL, raw, example string) (string, error) {
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

// Options are the options to build SDK services with (such as
// sdk.NewChatCompletionService), and these options only: the SDK's
// NewClient would also read OPENAI_API_KEY, OPENAI_ORG_ID and the like from
// the environment and send them to this server. base has no trailing
// slash; an empty apiKey sends no Authorization header; hc nil means a
// client of its own.
func Options(base, apiKey string, timeout time.Duration, retries int, hc *http.Client) []option.RequestOption {
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
	return opts
}

// Attempts records what the server answered to each attempt of one call.
// Each call has its own (the zero value is ready); the SDK makes the
// attempts one after another.
type Attempts struct {
	n      int
	status int    // of the last attempt; 0 when it got no answer
	body   []byte // of the last attempt, when it failed with a status
}

// Option returns the per-call middleware that counts the attempts and
// keeps the last error answer, which the SDK itself only parses when it has
// OpenAI's {"error": {...}} shape.
func (a *Attempts) Option() option.RequestOption { return option.WithMiddleware(a.middleware) }

func (a *Attempts) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
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

// Server is what the error messages and spans of calls to one server say
// of it.
type Server struct {
	// Name starts every message, before " at <Base>": "LLM judge",
	// "refiner llm:qwen2.5".
	Name string
	// Base is the server's base URL, without a trailing slash.
	Base string
	// Model is the model asked for.
	Model string
	// NameHasModel says Name names the model already, so that a message
	// names it again only when the server may lack it (404); otherwise a
	// message about the answer or a rejected request names it too.
	NameHasModel bool
	// Timeout bounds each attempt.
	Timeout time.Duration
	// EnvURL and EnvKey are the variables that set the base URL and the
	// API key, for the hints.
	EnvURL, EnvKey string
}

// CallError turns an error of the SDK, from the call op (such as "POST
// /chat/completions") whose attempts a counted, into a foley error:
// ctx's error, wrapped, when ctx is done; Unavailable for a server that
// cannot be reached, times out, gives an answer that is not the API's, is
// overloaded (408, 409, 429, 5xx, after the retries), refuses the
// credentials (401, 403) or lacks the route or model (404, 405); Invalid
// for a request it rejects otherwise, with its message.
func (s *Server) CallError(ctx context.Context, a *Attempts, op string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("%s at %s: %w", s.Name, s.Base, cerr)
	}
	tries := ""
	if a.n > 1 {
		tries = fmt.Sprintf(" after %d attempts", a.n)
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return &foley.Error{Code: foley.Unavailable, Err: err, Message: fmt.Sprintf(
			"%s at %s: %s did not answer within %s%s; is the server overloaded? (a timed-out attempt is not retried)",
			s.Name, s.Base, op, s.Timeout, tries)}
	}
	if a.status == 0 {
		cause := err
		var ue *url.Error
		if errors.As(err, &ue) {
			cause = ue.Err
		}
		return &foley.Error{Code: foley.Unavailable, Err: err, Message: fmt.Sprintf(
			"%s at %s is not reachable%s: %v (is %s right and the server running?)", s.Name, s.Base, tries, cause, s.EnvURL)}
	}
	if a.status < 400 {
		return &foley.Error{Code: foley.Unavailable, Err: err, Message: fmt.Sprintf(
			"%s at %s%s gave an answer to %s that is not what the API specifies: %v", s.Name, s.Base, s.modelNote(" (model %q)"), op, err)}
	}
	status := StatusText(a.status)
	msg := serverMessage(a.body)
	switch code := a.status; {
	case code == http.StatusRequestTimeout || code == http.StatusConflict || code == http.StatusTooManyRequests || code >= 500:
		return &foley.Error{Code: foley.Unavailable, Err: err, Message: fmt.Sprintf(
			"%s at %s: %s%s: %s", s.Name, s.Base, status, tries, msg)}
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return &foley.Error{Code: foley.Unavailable, Err: err, Message: fmt.Sprintf(
			"%s at %s refused %s: %s: %s (check %s)", s.Name, s.Base, op, status, msg, s.EnvKey)}
	case code == http.StatusNotFound || code == http.StatusMethodNotAllowed:
		return &foley.Error{Code: foley.Unavailable, Err: err, Message: fmt.Sprintf(
			"%s at %s has no %s, or no model %q: %s: %s (%s wants the base URL of an OpenAI-compatible server, usually ending in /v1)",
			s.Name, s.Base, op, s.Model, status, msg, s.EnvURL)}
	default:
		return &foley.Error{Code: foley.Invalid, Err: err, Message: fmt.Sprintf(
			"%s at %s rejected %s%s: %s: %s", s.Name, s.Base, op, s.modelNote(" for model %q"), status, msg)}
	}
}

// BadAnswer is the error (code foley.Unavailable) for an answer the caller
// cannot use, the server having misbehaved: "<Name> at <Base> gave ...".
func (s *Server) BadAnswer(format string, args ...any) error {
	return foley.Errorf(foley.Unavailable, "%s at %s%s gave %s", s.Name, s.Base, s.modelNote(" (model %q)"), fmt.Sprintf(format, args...))
}

// modelNote is format applied to the model, or "" when Name names it.
func (s *Server) modelNote(format string) string {
	if s.NameHasModel {
		return ""
	}
	return fmt.Sprintf(format, s.Model)
}

// StartSpan opens the obs span of one chat completion at temperature 0.
func (s *Server) StartSpan(ctx context.Context, maxTokens int) (context.Context, *obs.Span) {
	temp := 0.0
	return obs.StartCall(ctx, obs.Call{
		Operation:   "chat",
		Provider:    Provider,
		Model:       s.Model,
		ServerURL:   s.Base,
		MaxTokens:   maxTokens,
		Temperature: &temp,
	})
}

// SchemaRequest is a chat completion at temperature 0 of a system prompt
// and a user message, whose answer of at most maxTokens is constrained by
// the JSON schema (strict) named name.
func SchemaRequest(model, system, user string, maxTokens int, name string, schema map[string]any) sdk.ChatCompletionNewParams {
	return sdk.ChatCompletionNewParams{
		Model: model,
		Messages: []sdk.ChatCompletionMessageParamUnion{
			sdk.SystemMessage(system),
			sdk.UserMessage(user),
		},
		MaxTokens:   sdk.Int(int64(maxTokens)),
		Temperature: sdk.Float(0),
		ResponseFormat: sdk.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
					Name:   name,
					Strict: sdk.Bool(true),
					Schema: schema,
				},
			},
		},
	}
}

// Content reads the answer out of a completion asked for with at most
// maxTokens: the first choice's content. No completion or no choice, a
// refusal, an answer cut off at maxTokens or an empty one is an error (see
// BadAnswer).
func (s *Server) Content(resp *sdk.ChatCompletion, maxTokens int) (string, error) {
	if resp == nil || len(resp.Choices) == 0 {
		return "", s.BadAnswer("an answer with no choices")
	}
	choice := resp.Choices[0]
	msg := choice.Message
	switch {
	case msg.Refusal != "":
		return "", s.BadAnswer("a refusal: %s", Quote(msg.Refusal))
	case choice.FinishReason == "length":
		return "", s.BadAnswer("an answer cut off at %d tokens (finish_reason \"length\"): %s", maxTokens, Quote(msg.Content))
	case strings.TrimSpace(msg.Content) == "":
		return "", s.BadAnswer("an empty answer (finish_reason %q)", choice.FinishReason)
	}
	return msg.Content, nil
}

// Result is what a span records of an answer: the response model and id,
// the token usage when the server reports it (else -1) and the finish
// reasons. resp may be nil.
func Result(resp *sdk.ChatCompletion) obs.Result {
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

// StatusText is an HTTP status for a message: "503 Service Unavailable",
// "529 (overloaded)".
func StatusText(code int) string {
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
		return Quote(m)
	}
	return "(no message)"
}

// Quote shortens s to 300 characters and quotes it, for a message.
func Quote(s string) string {
	const most = 300
	if utf8.RuneCountInString(s) > most {
		s = string([]rune(s)[:most]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
