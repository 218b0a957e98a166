package refine

import (
	"cmp"
	"context"
	"net/http"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/openaix"
)

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
	// Server names the refiner ("refiner llm:<model>": the start of every
	// message), the server, the model and the timeout.
	openaix.Server
	maxTokens int
	chat      sdk.ChatCompletionService
}

// NewOpenAI returns a refiner that asks a model on an OpenAI-compatible
// server. A missing URL or model, or an invalid field, is an error with
// code foley.Invalid. It makes no request.
func NewOpenAI(cfg OpenAIConfig) (*LLM, error) {
	base, err := openaix.CheckBaseURL("LLM refiner", EnvLLMURL, cfg.BaseURL, "http://localhost:8000/v1")
	if err != nil {
		return nil, err
	}
	model := strings.TrimSpace(cfg.Model)
	if model == "" {
		return nil, foley.Errorf(foley.Invalid, "LLM refiner: no model (set %s to the model the server at %s serves)", EnvLLMModel, strings.TrimSpace(cfg.BaseURL))
	}
	switch {
	case cfg.Timeout < 0:
		return nil, foley.Errorf(foley.Invalid, "LLM refiner: the timeout %s is negative", cfg.Timeout)
	case cfg.MaxTokens < 0:
		return nil, foley.Errorf(foley.Invalid, "LLM refiner: max tokens %d is negative", cfg.MaxTokens)
	}
	name := "llm:" + model
	s := &chatServer{
		Server: openaix.Server{
			Name:         "refiner " + name,
			Base:         base,
			Model:        model,
			NameHasModel: true,
			Timeout:      cmp.Or(cfg.Timeout, DefaultTimeout),
			EnvURL:       EnvLLMURL,
			EnvKey:       EnvLLMAPIKey,
		},
		maxTokens: cmp.Or(cfg.MaxTokens, DefaultMaxTokens),
	}
	s.chat = sdk.NewChatCompletionService(openaix.Options(s.Base, strings.TrimSpace(cfg.APIKey), s.Timeout, retries(cfg.MaxRetries), cfg.HTTPClient)...)
	return &LLM{name: name, b: s}, nil
}

func (s *chatServer) model() string { return s.Model }

// ask sends one chat completion constrained by Schema and returns the
// answer's content.
func (s *chatServer) ask(ctx context.Context, system, user string) (string, error) {
	params := openaix.SchemaRequest(s.Model, system, user, s.maxTokens, SchemaName, Schema())
	ctx, span := s.StartSpan(ctx, s.maxTokens)
	var a openaix.Attempts
	resp, err := s.chat.New(ctx, params, a.Option())
	var text string
	if err != nil {
		err = s.CallError(ctx, &a, "POST /chat/completions", err)
	} else {
		text, err = s.Content(resp, s.maxTokens)
	}
	span.End(openaix.Result(resp), err)
	return text, err
}

// retries is the number of retries after the first attempt that a
// MaxRetries field asks for: zero means DefaultMaxRetries, a negative value
// none.
func retries(n int) int {
	switch {
	case n == 0:
		return DefaultMaxRetries
	case n < 0:
		return 0
	}
	return n
}
