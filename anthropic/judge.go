package anthropic

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/anthropicx"
	"github.com/foley-audio/foley/obs"
	"github.com/foley-audio/foley/verify"
)

// The defaults of a Config.
const (
	DefaultModel     = "claude-opus-4-8"
	DefaultMaxTokens = 500
	// DefaultEffort is the output_config.effort of a request. Thinking
	// counts against max_tokens, and deciding whether a described clip is
	// the wanted sound needs little of it: at the API's default (high)
	// effort, adaptive thinking often spends the 500 tokens before it
	// answers.
	DefaultEffort     = "low"
	DefaultTimeout    = 60 * time.Second
	DefaultMaxRetries = 3
	// DefaultBaseURL is the SDK's production base URL.
	DefaultBaseURL = "https://api.anthropic.com"
)

// The environment variables FromEnv reads.
const (
	EnvAPIKey    = "ANTHROPIC_API_KEY"      // required; unset means no judge
	EnvModel     = "FOLEY_JUDGE_MODEL"      // default DefaultModel
	EnvMaxTokens = "FOLEY_JUDGE_MAX_TOKENS" // a positive integer, default DefaultMaxTokens
	EnvTimeout   = "FOLEY_JUDGE_TIMEOUT"    // a positive Go duration, default DefaultTimeout
	EnvBaseURL   = "ANTHROPIC_BASE_URL"     // default DefaultBaseURL
	EnvEffort    = "FOLEY_JUDGE_EFFORT"     // low, medium, high, xhigh or max; default DefaultEffort
)

// Config configures a Judge. Zero fields take their defaults.
type Config struct {
	APIKey string // required
	Model  string // default DefaultModel
	// MaxTokens is the request's max_tokens, which the model's thinking
	// counts against. Default DefaultMaxTokens.
	MaxTokens int
	// Effort is how much the model may think: low, medium, high, xhigh or
	// max. Default DefaultEffort.
	Effort  string
	BaseURL string // default DefaultBaseURL
	// Timeout bounds each HTTP attempt (the SDK's request timeout); an
	// attempt that runs out is retried. The caller's context bounds the
	// whole call. Default DefaultTimeout.
	Timeout time.Duration
	// MaxRetries is how many times the SDK retries a failed attempt. Zero
	// means DefaultMaxRetries; a negative value means no retries.
	MaxRetries int
	// HTTPClient sends the requests; default http.DefaultClient.
	HTTPClient *http.Client
}

// Judge is the judge rung's LLM arbiter backed by Claude. It implements
// foley.IdentifiedJudge and foley.CheckableJudge. It is safe for concurrent
// use: it holds its configuration and the SDK client, and no per-call
// state.
type Judge struct {
	client     sdk.Client
	model      string
	maxTokens  int
	effort     string
	baseURL    string
	timeout    time.Duration
	maxRetries int
}

var (
	_ foley.IdentifiedJudge = (*Judge)(nil)
	_ foley.CheckableJudge  = (*Judge)(nil)
)

// New returns a judge for cfg. A missing API key or an invalid field is an
// error with code foley.Invalid. New makes no request; see Judge.Check.
func New(cfg Config) (*Judge, error) {
	if strings.TrimSpace(cfg.APIKey) == "" {
		return nil, foley.Errorf(foley.Invalid, "anthropic judge: an API key is required (set %s)", EnvAPIKey)
	}
	set, err := anthropicx.Resolve("anthropic judge",
		anthropicx.Settings{Model: cfg.Model, MaxTokens: cfg.MaxTokens, Effort: cfg.Effort, BaseURL: cfg.BaseURL, Timeout: cfg.Timeout, MaxRetries: cfg.MaxRetries},
		anthropicx.Settings{Model: DefaultModel, MaxTokens: DefaultMaxTokens, Effort: DefaultEffort, BaseURL: DefaultBaseURL, Timeout: DefaultTimeout, MaxRetries: DefaultMaxRetries})
	if err != nil {
		return nil, err
	}
	j := &Judge{
		model:      set.Model,
		maxTokens:  set.MaxTokens,
		effort:     set.Effort,
		baseURL:    set.BaseURL,
		timeout:    set.Timeout,
		maxRetries: set.MaxRetries,
	}
	// The Config says all there is: the client reads no ANTHROPIC_*
	// variable behind its back.
	j.client = anthropicx.NewClient(cfg.APIKey, j.baseURL, j.maxRetries, j.timeout, cfg.HTTPClient)
	return j, nil
}

// FromEnv returns the judge the environment configures, or (nil, nil) when
// ANTHROPIC_API_KEY is unset or empty. It reads ANTHROPIC_API_KEY,
// FOLEY_JUDGE_MODEL, FOLEY_JUDGE_MAX_TOKENS, FOLEY_JUDGE_TIMEOUT and
// ANTHROPIC_BASE_URL; a bad value is an error with code foley.Invalid that
// names the variable and the value.
func FromEnv() (*Judge, error) {
	key := os.Getenv(EnvAPIKey)
	if key == "" {
		return nil, nil
	}
	if strings.TrimSpace(key) == "" {
		return nil, foley.Errorf(foley.Invalid, "%s is blank (want an API key, or leave it unset)", EnvAPIKey)
	}
	cfg := Config{APIKey: strings.TrimSpace(key), Model: strings.TrimSpace(os.Getenv(EnvModel)), Effort: os.Getenv(EnvEffort)}
	if e := strings.ToLower(strings.TrimSpace(cfg.Effort)); e != "" && !anthropicx.ValidEffort(e) {
		return nil, foley.Errorf(foley.Invalid, "%s=%q: want low, medium, high, xhigh or max", EnvEffort, cfg.Effort)
	}
	if v := strings.TrimSpace(os.Getenv(EnvMaxTokens)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return nil, foley.Errorf(foley.Invalid, "%s=%q: want a positive whole number of tokens, such as %d",
				EnvMaxTokens, os.Getenv(EnvMaxTokens), DefaultMaxTokens)
		}
		cfg.MaxTokens = n
	}
	if v := strings.TrimSpace(os.Getenv(EnvTimeout)); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, foley.Errorf(foley.Invalid, "%s=%q: want a positive Go duration, such as 60s or 2m",
				EnvTimeout, os.Getenv(EnvTimeout))
		}
		cfg.Timeout = d
	}
	if v := strings.TrimSpace(os.Getenv(EnvBaseURL)); v != "" {
		if err := anthropicx.CheckBaseURL(v); err != nil {
			return nil, foley.Errorf(foley.Invalid, "%s=%q %v, such as %s", EnvBaseURL, os.Getenv(EnvBaseURL), err, DefaultBaseURL)
		}
		cfg.BaseURL = v
	}
	return New(cfg)
}

// Name implements foley.Judge: "anthropic:" and the model.
func (j *Judge) Name() string { return "anthropic:" + j.model }

// Model returns the model the judge asks.
func (j *Judge) Model() string { return j.model }

// Identity implements foley.IdentifiedJudge:
// "anthropic|<model>|prompt=<verify.JudgePromptVersion>|max_tokens=<n>|effort=<e>".
func (j *Judge) Identity() string {
	return fmt.Sprintf("anthropic|%s|prompt=%s|max_tokens=%d|effort=%s", j.model, verify.JudgePromptVersion, j.maxTokens, j.effort)
}

// Judge implements foley.Judge: it asks the model whether c's clip, as its
// caption and tags describe it, is event. The verdict's level is level and
// its reason is the model's, prefixed with the model's name. Any failure is
// an error (code foley.Unavailable) and never a verdict.
func (j *Judge) Judge(ctx context.Context, event foley.SoundEvent, c foley.Candidate, level foley.VerifyLevel) (foley.Verdict, error) {
	params := sdk.MessageNewParams{
		Model:     sdk.Model(j.model),
		MaxTokens: int64(j.maxTokens),
		System:    []sdk.TextBlockParam{{Text: verify.JudgeSystemPrompt}},
		Messages:  []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock(verify.JudgePrompt(event, c)))},
		Thinking:  sdk.ThinkingConfigParamUnion{OfAdaptive: &sdk.ThinkingConfigAdaptiveParam{}},
		OutputConfig: sdk.OutputConfigParam{
			Format: sdk.JSONOutputFormatParam{Schema: verify.JudgeSchema()},
			Effort: sdk.OutputConfigEffort(j.effort),
		},
	}

	ctx, span := anthropicx.StartSpan(ctx, j.model, j.baseURL, j.maxTokens)
	var tries anthropicx.Attempts
	msg, err := j.client.Messages.New(ctx, params, tries.Option())
	if err != nil {
		err = j.callError(ctx, err, &tries)
		span.End(obs.Result{InputTokens: -1, OutputTokens: -1}, err)
		return foley.Verdict{}, err
	}
	answer, err := j.answer(msg)
	span.End(anthropicx.Result(msg), err)
	if err != nil {
		return foley.Verdict{}, err
	}
	return foley.Verdict{
		Match:      answer.Match,
		Confidence: answer.Confidence,
		Reason:     j.model + ": " + answer.Reason,
		Level:      level,
		Judge:      j.Name(),
	}, nil
}

// answer reads the verdict out of a response: the text of its text blocks,
// decoded by verify.ParseJudgeAnswer. A refusal, no text, or text that is not
// a whole, valid answer is an error.
func (j *Judge) answer(msg *sdk.Message) (verify.JudgeAnswer, error) {
	if msg.StopReason == sdk.StopReasonRefusal {
		return verify.JudgeAnswer{}, j.answerError(msg, "the model refused to answer%s", anthropicx.RefusalDetails(msg))
	}
	text, found := anthropicx.Text(msg)
	cut := anthropicx.Cut(msg)
	if !found {
		if cut {
			return verify.JudgeAnswer{}, j.answerError(msg,
				"the model stopped at %s before it answered (it spent max_tokens=%d, thinking included; raise %s)",
				msg.StopReason, j.maxTokens, EnvMaxTokens)
		}
		return verify.JudgeAnswer{}, j.answerError(msg, "the response has no text block (stop reason %q)", msg.StopReason)
	}
	answer, err := verify.ParseJudgeAnswer(text)
	if err != nil {
		if cut {
			return verify.JudgeAnswer{}, j.answerError(msg,
				"the model stopped at %s before it finished its answer (max_tokens=%d, thinking included; raise %s): %v",
				msg.StopReason, j.maxTokens, EnvMaxTokens, err)
		}
		return verify.JudgeAnswer{}, j.answerError(msg, "%v", err)
	}
	return answer, nil
}

// answerError is the error for a response that holds no verdict.
func (j *Judge) answerError(msg *sdk.Message, format string, args ...any) error {
	return &foley.Error{Code: foley.Unavailable,
		Message: fmt.Sprintf("judge %s: %s", j.Name(), fmt.Sprintf(format, args...)) + anthropicx.MessageNote(msg)}
}

// Check implements foley.CheckableJudge with a request that costs no tokens:
// GET /v1/models/{model}, which proves the base URL, the key and the model.
// It retries at most once. The error (code foley.Unavailable) names the base
// URL and the reason.
func (j *Judge) Check(ctx context.Context) error {
	var tries anthropicx.Attempts
	_, err := j.client.Models.Get(ctx, j.model, sdk.ModelGetParams{},
		option.WithMaxRetries(min(j.maxRetries, 1)), tries.Option())
	if err == nil {
		return nil
	}
	return j.checkError(ctx, err, &tries)
}
