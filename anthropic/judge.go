package anthropic

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/foley-audio/foley"
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
	j := &Judge{
		model:      strings.TrimSpace(cfg.Model),
		maxTokens:  cfg.MaxTokens,
		effort:     strings.ToLower(strings.TrimSpace(cfg.Effort)),
		baseURL:    strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/"),
		timeout:    cfg.Timeout,
		maxRetries: cfg.MaxRetries,
	}
	if j.model == "" {
		j.model = DefaultModel
	}
	switch {
	case j.maxTokens == 0:
		j.maxTokens = DefaultMaxTokens
	case j.maxTokens < 0:
		return nil, foley.Errorf(foley.Invalid, "anthropic judge: max tokens is %d (want a positive number)", cfg.MaxTokens)
	}
	switch j.effort {
	case "":
		j.effort = DefaultEffort
	case "low", "medium", "high", "xhigh", "max":
	default:
		return nil, foley.Errorf(foley.Invalid, "anthropic judge: effort %q (valid: low, medium, high, xhigh, max)", cfg.Effort)
	}
	switch {
	case j.timeout == 0:
		j.timeout = DefaultTimeout
	case j.timeout < 0:
		return nil, foley.Errorf(foley.Invalid, "anthropic judge: timeout is %s (want a positive duration)", cfg.Timeout)
	}
	switch {
	case j.maxRetries == 0:
		j.maxRetries = DefaultMaxRetries
	case j.maxRetries < 0:
		j.maxRetries = 0
	}
	if j.baseURL == "" {
		j.baseURL = DefaultBaseURL
	} else if err := checkBaseURL(j.baseURL); err != nil {
		return nil, foley.Errorf(foley.Invalid, "anthropic judge: base URL %q %v", cfg.BaseURL, err)
	}

	opts := []option.RequestOption{
		// The Config says all there is: no ANTHROPIC_* variable, profile or
		// custom header is picked up behind its back.
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(cfg.APIKey),
		option.WithBaseURL(j.baseURL),
		option.WithMaxRetries(j.maxRetries),
		option.WithRequestTimeout(j.timeout),
		// obs records the call; the SDK's spans would record it twice.
		option.WithoutOpenTelemetry(),
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	j.client = sdk.NewClient(opts...)
	return j, nil
}

// checkBaseURL says what is wrong with a base URL, or nil.
func checkBaseURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("is not a URL: %v", err)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
		return fmt.Errorf("is not an http:// or https:// URL with a host")
	}
	return nil
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
	switch strings.ToLower(strings.TrimSpace(cfg.Effort)) {
	case "", "low", "medium", "high", "xhigh", "max":
	default:
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
		if err := checkBaseURL(v); err != nil {
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

	ctx, span := obs.StartCall(ctx, obs.Call{
		Operation: "chat",
		Provider:  "anthropic",
		Model:     j.model,
		ServerURL: j.baseURL,
		MaxTokens: j.maxTokens,
	})
	var tries attempts
	msg, err := j.client.Messages.New(ctx, params, tries.option())
	if err != nil {
		err = j.callError(ctx, err, &tries)
		span.End(obs.Result{InputTokens: -1, OutputTokens: -1}, err)
		return foley.Verdict{}, err
	}
	answer, err := j.answer(msg)
	span.End(obs.Result{
		ResponseModel: string(msg.Model),
		ResponseID:    msg.ID,
		InputTokens:   msg.Usage.InputTokens + msg.Usage.CacheCreationInputTokens + msg.Usage.CacheReadInputTokens,
		OutputTokens:  msg.Usage.OutputTokens,
		FinishReasons: []string{string(msg.StopReason)},
	}, err)
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
		var details []string
		if c := msg.StopDetails.Category; c != "" {
			details = append(details, "category "+string(c))
		}
		if e := strings.TrimSpace(msg.StopDetails.Explanation); e != "" {
			details = append(details, e)
		}
		why := ""
		if len(details) > 0 {
			why = " (" + strings.Join(details, ": ") + ")"
		}
		return verify.JudgeAnswer{}, j.answerError(msg, "the model refused to answer%s", why)
	}
	var text strings.Builder
	found := false
	for _, block := range msg.Content {
		if block.Type == "text" {
			found = true
			text.WriteString(block.Text)
		}
	}
	cut := msg.StopReason == sdk.StopReasonMaxTokens || msg.StopReason == sdk.StopReasonModelContextWindowExceeded
	if !found {
		if cut {
			return verify.JudgeAnswer{}, j.answerError(msg,
				"the model stopped at %s before it answered (it spent max_tokens=%d, thinking included; raise %s)",
				msg.StopReason, j.maxTokens, EnvMaxTokens)
		}
		return verify.JudgeAnswer{}, j.answerError(msg, "the response has no text block (stop reason %q)", msg.StopReason)
	}
	answer, err := verify.ParseJudgeAnswer(text.String())
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
	s := fmt.Sprintf("judge %s: %s", j.Name(), fmt.Sprintf(format, args...))
	if msg.ID != "" {
		s += fmt.Sprintf(" (message %s)", msg.ID)
	}
	return &foley.Error{Code: foley.Unavailable, Message: s}
}

// Check implements foley.CheckableJudge with a request that costs no tokens:
// GET /v1/models/{model}, which proves the base URL, the key and the model.
// It retries at most once. The error (code foley.Unavailable) names the base
// URL and the reason.
func (j *Judge) Check(ctx context.Context) error {
	var tries attempts
	_, err := j.client.Models.Get(ctx, j.model, sdk.ModelGetParams{},
		option.WithMaxRetries(min(j.maxRetries, 1)), tries.option())
	if err == nil {
		return nil
	}
	return j.checkError(ctx, err, &tries)
}
