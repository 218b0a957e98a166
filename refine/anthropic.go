package refine

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/anthropicx"
	"github.com/foley-audio/foley/obs"
)

// The defaults of an AnthropicConfig, and of an OpenAIConfig where they
// apply.
const (
	DefaultAnthropicModel = "claude-opus-4-8"
	// DefaultMaxTokens bounds an answer, thinking included.
	DefaultMaxTokens = 400
	// DefaultEffort is the output_config.effort of a Claude request:
	// proposing a few queries needs little thinking, and thinking counts
	// against max_tokens.
	DefaultEffort           = "low"
	DefaultTimeout          = 60 * time.Second // per attempt
	DefaultMaxRetries       = 3                // retries after the first attempt
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
)

// AnthropicConfig configures a Claude refiner. Zero fields take their
// defaults.
type AnthropicConfig struct {
	APIKey string // required
	Model  string // default DefaultAnthropicModel
	// MaxTokens is the request's max_tokens, which thinking counts
	// against. Default DefaultMaxTokens.
	MaxTokens int
	// Effort is how much the model may think: low, medium, high, xhigh or
	// max. Default DefaultEffort.
	Effort  string
	BaseURL string // default DefaultAnthropicBaseURL
	// Timeout bounds each HTTP attempt; the caller's context bounds the
	// whole call. Default DefaultTimeout.
	Timeout time.Duration
	// MaxRetries is how many times the SDK retries a failed attempt. Zero
	// means DefaultMaxRetries; a negative value means no retries.
	MaxRetries int
	// HTTPClient sends the requests; default http.DefaultClient.
	HTTPClient *http.Client
}

// claude is the backend on the Anthropic Messages API.
type claude struct {
	client    sdk.Client
	name      string
	modelID   string
	maxTokens int
	effort    string
	baseURL   string
	timeout   time.Duration
}

// NewAnthropic returns a refiner that asks Claude. A missing API key or an
// invalid field is an error with code foley.Invalid. It makes no request.
func NewAnthropic(cfg AnthropicConfig) (*LLM, error) {
	if strings.TrimSpace(cfg.APIKey) == "" {
		return nil, foley.Errorf(foley.Invalid, "anthropic refiner: an API key is required (set %s)", EnvAnthropicAPIKey)
	}
	set, err := anthropicx.Resolve("anthropic refiner",
		anthropicx.Settings{Model: cfg.Model, MaxTokens: cfg.MaxTokens, Effort: cfg.Effort, BaseURL: cfg.BaseURL, Timeout: cfg.Timeout, MaxRetries: cfg.MaxRetries},
		anthropicx.Settings{Model: DefaultAnthropicModel, MaxTokens: DefaultMaxTokens, Effort: DefaultEffort, BaseURL: DefaultAnthropicBaseURL, Timeout: DefaultTimeout, MaxRetries: DefaultMaxRetries})
	if err != nil {
		return nil, err
	}
	c := &claude{
		name:      "anthropic:" + set.Model,
		modelID:   set.Model,
		maxTokens: set.MaxTokens,
		effort:    set.Effort,
		baseURL:   set.BaseURL,
		timeout:   set.Timeout,
	}
	// The config says all there is: the client reads no ANTHROPIC_*
	// variable behind its back.
	c.client = anthropicx.NewClient(strings.TrimSpace(cfg.APIKey), c.baseURL, set.MaxRetries, c.timeout, cfg.HTTPClient)
	return &LLM{name: c.name, b: c}, nil
}

func (c *claude) model() string { return c.modelID }

// ask sends one Messages request with structured output and returns the
// text of the answer's text blocks.
func (c *claude) ask(ctx context.Context, system, user string) (string, error) {
	params := sdk.MessageNewParams{
		Model:     sdk.Model(c.modelID),
		MaxTokens: int64(c.maxTokens),
		System:    []sdk.TextBlockParam{{Text: system}},
		Messages:  []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock(user))},
		Thinking:  sdk.ThinkingConfigParamUnion{OfAdaptive: &sdk.ThinkingConfigAdaptiveParam{}},
		OutputConfig: sdk.OutputConfigParam{
			Format: sdk.JSONOutputFormatParam{Schema: Schema()},
			Effort: sdk.OutputConfigEffort(c.effort),
		},
	}
	ctx, span := anthropicx.StartSpan(ctx, c.modelID, c.baseURL, c.maxTokens)
	var tries anthropicx.Attempts
	msg, err := c.client.Messages.New(ctx, params, tries.Option())
	if err != nil {
		why := anthropicx.Describe(ctx, err, &tries, c.baseURL, c.timeout,
			anthropicx.Hints{APIKey: EnvAnthropicAPIKey, Model: EnvRefineModel, BaseURL: EnvAnthropicBaseURL})
		err = &foley.Error{Code: foley.Unavailable, Err: err, Message: fmt.Sprintf("refiner %s: %s", c.name, why)}
		span.End(obs.Result{InputTokens: -1, OutputTokens: -1}, err)
		return "", err
	}
	text, err := c.text(msg)
	span.End(anthropicx.Result(msg), err)
	return text, err
}

// text reads the answer out of a response. A refusal, no text, or an
// answer cut off by max_tokens is an error.
func (c *claude) text(msg *sdk.Message) (string, error) {
	if msg.StopReason == sdk.StopReasonRefusal {
		return "", c.answerError(msg, "the model refused to answer%s", anthropicx.RefusalDetails(msg))
	}
	text, found := anthropicx.Text(msg)
	switch {
	case anthropicx.Cut(msg):
		return "", c.answerError(msg, "the model stopped at %s before it finished its answer (max_tokens=%d, thinking included)",
			msg.StopReason, c.maxTokens)
	case !found:
		return "", c.answerError(msg, "the response has no text block (stop reason %q)", msg.StopReason)
	}
	return text, nil
}

// answerError is the error for a response that holds no answer.
func (c *claude) answerError(msg *sdk.Message, format string, args ...any) error {
	return &foley.Error{Code: foley.Unavailable,
		Message: fmt.Sprintf("refiner %s: %s", c.name, fmt.Sprintf(format, args...)) + anthropicx.MessageNote(msg)}
}
