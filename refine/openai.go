package refine

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

// openAIProvider is the gen_ai.provider.name recorded on the spans of an
// OpenAI-compatible server, whoever serves it.
const openAIProvider = "openai"

// maxErrorBody bounds the part of an error answer kept for the message.
const maxErrorBody = 64 << 10

// OpenAIConfig configures a refiner on an OpenAI-compatible server. BaseURL
// and Model are required; every other zero field takes its default.
type OpenAIConfig struct {
	// BaseURL is the server's OpenAI base URL, e.g. http://host:8000/v1
	// (vLLM) or http://localhost:11434/v1 (Ollama).
	BaseURL string
	Model   string
	// APIKey, when set, is sent as "Authorization: Bearer APIKey"; when
	// empty no Authorization header is sent.
	APIKey string
	// Timeout bounds each attempt (default DefaultTimeout).
	Timeout time.Duration
	// MaxRetries is the number of retries after the first attempt
	// (default DefaultMaxRetries; negative for none).
	MaxRetries int
	// MaxTokens bounds the answer (default DefaultMaxTokens).
	MaxTokens int
	// HTTPClient sends the requests (default: a client of its own).
	HTTPClient *http.Client
}

// chatServer is the backend on an OpenAI-compatible chat-completions API.
type chatServer struct {
	name      string
	base      string // without a trailing slash
	modelID   string
	maxTokens int
	timeout   time.Duration
	chat      sdk.ChatCompletionService
}

// NewOpenAI returns a refiner that asks a model on an OpenAI-compatible
// server. A missing URL or model, or an invalid field, is an error with
// code foley.Invalid. It makes no request.
func NewOpenAI(cfg OpenAIConfig) (*LLM, error) {
	raw := strings.TrimSpace(cfg.BaseURL)
	if raw == "" {
		return nil, foley.Errorf(foley.Invalid, "LLM refiner: no server URL (set %s to the server's base URL, e.g. http://localhost:8000/v1)", EnvLLMURL)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, foley.Errorf(foley.Invalid,
			"LLM refiner: server URL %q is not an http:// or https:// base URL (%s wants the server's base URL, e.g. http://localhost:8000/v1)", raw, EnvLLMURL)
	}
	model := strings.TrimSpace(cfg.Model)
	if model == "" {
		return nil, foley.Errorf(foley.Invalid, "LLM refiner: no model (set %s to the model the server at %s serves)", EnvLLMModel, raw)
	}
	switch {
	case cfg.Timeout < 0:
		return nil, foley.Errorf(foley.Invalid, "LLM refiner: the timeout %s is negative", cfg.Timeout)
	case cfg.MaxTokens < 0:
		return nil, foley.Errorf(foley.Invalid, "LLM refiner: max tokens %d is negative", cfg.MaxTokens)
	}
	s := &chatServer{
		name:      "llm:" + model,
		base:      strings.TrimRight(raw, "/"),
		modelID:   model,
		maxTokens: cfg.MaxTokens,
		timeout:   cfg.Timeout,
	}
	if s.maxTokens == 0 {
		s.maxTokens = DefaultMaxTokens
	}
	if s.timeout == 0 {
		s.timeout = DefaultTimeout
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	// The service is built from these options only: the SDK's NewClient
	// would also read OPENAI_API_KEY and the like from the environment and
	// send them to this server.
	opts := []option.RequestOption{
		option.WithBaseURL(s.base + "/"),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(retries),
		option.WithRequestTimeout(s.timeout),
	}
	if key := strings.TrimSpace(cfg.APIKey); key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	s.chat = sdk.NewChatCompletionService(opts...)
	return &LLM{name: s.name, b: s}, nil
}

func (s *chatServer) model() string { return s.modelID }

// ask sends one chat completion constrained by Schema and returns the
// answer's content.
func (s *chatServer) ask(ctx context.Context, system, user string) (string, error) {
	params := sdk.ChatCompletionNewParams{
		Model: s.modelID,
		Messages: []sdk.ChatCompletionMessageParamUnion{
			sdk.SystemMessage(system),
			sdk.UserMessage(user),
		},
		MaxTokens:   sdk.Int(int64(s.maxTokens)),
		Temperature: sdk.Float(0),
		ResponseFormat: sdk.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
					Name:   SchemaName,
					Strict: sdk.Bool(true),
					Schema: Schema(),
				},
			},
		},
	}
	temp := 0.0
	ctx, span := obs.StartCall(ctx, obs.Call{
		Operation:   "chat",
		Provider:    openAIProvider,
		Model:       s.modelID,
		ServerURL:   s.base,
		MaxTokens:   s.maxTokens,
		Temperature: &temp,
	})
	var a chatAttempts
	resp, err := s.chat.New(ctx, params, option.WithMiddleware(a.middleware))
	var text string
	if err != nil {
		err = s.callError(ctx, &a, err)
	} else {
		text, err = s.content(resp)
	}
	span.End(chatResult(resp), err)
	return text, err
}

// content reads the answer out of a completion. No choice, a refusal, a
// cut-off or an empty answer is an error.
func (s *chatServer) content(resp *sdk.ChatCompletion) (string, error) {
	if resp == nil || len(resp.Choices) == 0 {
		return "", s.badAnswer("an answer with no choices")
	}
	choice := resp.Choices[0]
	msg := choice.Message
	switch {
	case msg.Refusal != "":
		return "", s.badAnswer("a refusal: %s", quote(msg.Refusal))
	case choice.FinishReason == "length":
		return "", s.badAnswer("an answer cut off at %d tokens (finish_reason \"length\"): %s", s.maxTokens, quote(msg.Content))
	case strings.TrimSpace(msg.Content) == "":
		return "", s.badAnswer("an empty answer (finish_reason %q)", choice.FinishReason)
	}
	return msg.Content, nil
}

// chatAttempts records what the server answered to each attempt of one
// call; the SDK makes the attempts one after another.
type chatAttempts struct {
	n      int
	status int    // of the last attempt; 0 when it got no answer
	body   []byte // of the last attempt, when it failed with a status
}

// middleware counts the attempts and keeps the last error answer, which the
// SDK itself only parses when it has OpenAI's {"error": {...}} shape.
func (a *chatAttempts) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
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

// callError turns an error of the SDK into a foley error: Unavailable for
// a server that cannot be reached, times out, is overloaded, refuses the
// credentials or lacks the route or model; Invalid for a request it
// rejects otherwise.
func (s *chatServer) callError(ctx context.Context, a *chatAttempts, err error) error {
	const what = "POST /chat/completions"
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("refiner %s at %s: %w", s.name, s.base, cerr)
	}
	tries := ""
	if a.n > 1 {
		tries = fmt.Sprintf(" after %d attempts", a.n)
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return &foley.Error{Code: foley.Unavailable, Err: err, Message: fmt.Sprintf(
			"refiner %s at %s: %s did not answer within %s%s; is the server overloaded?", s.name, s.base, what, s.timeout, tries)}
	}
	if a.status == 0 {
		cause := err
		var ue *url.Error
		if errors.As(err, &ue) {
			cause = ue.Err
		}
		return &foley.Error{Code: foley.Unavailable, Err: err, Message: fmt.Sprintf(
			"refiner %s at %s is not reachable%s: %v (is %s right and the server running?)", s.name, s.base, tries, cause, EnvLLMURL)}
	}
	if a.status < 400 {
		return &foley.Error{Code: foley.Unavailable, Err: err, Message: fmt.Sprintf(
			"refiner %s at %s gave an answer to %s that is not what the API specifies: %v", s.name, s.base, what, err)}
	}
	status := statusText(a.status)
	msg := serverMessage(a.body)
	switch code := a.status; {
	case retried(code):
		return &foley.Error{Code: foley.Unavailable, Err: err, Message: fmt.Sprintf(
			"refiner %s at %s: %s%s: %s", s.name, s.base, status, tries, msg)}
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return &foley.Error{Code: foley.Unavailable, Err: err, Message: fmt.Sprintf(
			"refiner %s at %s refused %s: %s: %s (check %s)", s.name, s.base, what, status, msg, EnvLLMAPIKey)}
	case code == http.StatusNotFound || code == http.StatusMethodNotAllowed:
		return &foley.Error{Code: foley.Unavailable, Err: err, Message: fmt.Sprintf(
			"refiner %s at %s has no %s, or no model %q: %s: %s (%s wants the base URL of an OpenAI-compatible server, usually ending in /v1)",
			s.name, s.base, what, s.modelID, status, msg, EnvLLMURL)}
	default:
		return &foley.Error{Code: foley.Invalid, Err: err, Message: fmt.Sprintf(
			"refiner %s at %s rejected %s: %s: %s", s.name, s.base, what, status, msg)}
	}
}

// badAnswer is the error for an answer the refiner cannot use.
func (s *chatServer) badAnswer(format string, args ...any) error {
	return foley.Errorf(foley.Unavailable, "refiner %s at %s gave %s", s.name, s.base, fmt.Sprintf(format, args...))
}

// chatResult is what a span records of an answer; resp may be nil.
func chatResult(resp *sdk.ChatCompletion) obs.Result {
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
	return fmt.Sprint(code)
}

// serverMessage is the message of an error body, shortened and quoted.
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
