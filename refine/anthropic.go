package refine

import (
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

const anthropicProvider = "anthropic"

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
	c := &claude{
		modelID:   strings.TrimSpace(cfg.Model),
		maxTokens: cfg.MaxTokens,
		effort:    strings.ToLower(strings.TrimSpace(cfg.Effort)),
		baseURL:   strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/"),
		timeout:   cfg.Timeout,
	}
	if c.modelID == "" {
		c.modelID = DefaultAnthropicModel
	}
	switch {
	case c.maxTokens == 0:
		c.maxTokens = DefaultMaxTokens
	case c.maxTokens < 0:
		return nil, foley.Errorf(foley.Invalid, "anthropic refiner: max tokens is %d (want a positive number)", cfg.MaxTokens)
	}
	switch c.effort {
	case "":
		c.effort = DefaultEffort
	case "low", "medium", "high", "xhigh", "max":
	default:
		return nil, foley.Errorf(foley.Invalid, "anthropic refiner: effort %q (want low, medium, high, xhigh or max)", cfg.Effort)
	}
	switch {
	case c.timeout == 0:
		c.timeout = DefaultTimeout
	case c.timeout < 0:
		return nil, foley.Errorf(foley.Invalid, "anthropic refiner: timeout is %s (want a positive duration)", cfg.Timeout)
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	if c.baseURL == "" {
		c.baseURL = DefaultAnthropicBaseURL
	} else if err := checkURL(c.baseURL); err != nil {
		return nil, foley.Errorf(foley.Invalid, "anthropic refiner: base URL %q %v", cfg.BaseURL, err)
	}
	c.name = "anthropic:" + c.modelID
	opts := []option.RequestOption{
		// The config says all there is: no ANTHROPIC_* variable is picked
		// up behind its back.
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(strings.TrimSpace(cfg.APIKey)),
		option.WithBaseURL(c.baseURL),
		option.WithMaxRetries(retries),
		option.WithRequestTimeout(c.timeout),
		// obs records the call; the SDK's spans would record it twice.
		option.WithoutOpenTelemetry(),
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	c.client = sdk.NewClient(opts...)
	return &LLM{name: c.name, b: c}, nil
}

// checkURL says what is wrong with a base URL, or nil.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("is not a URL: %v", err)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
		return fmt.Errorf("is not an http:// or https:// URL with a host")
	}
	return nil
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
	ctx, span := obs.StartCall(ctx, obs.Call{
		Operation: "chat",
		Provider:  anthropicProvider,
		Model:     c.modelID,
		ServerURL: c.baseURL,
		MaxTokens: c.maxTokens,
	})
	var tries anthropicAttempts
	msg, err := c.client.Messages.New(ctx, params, tries.option())
	if err != nil {
		err = &foley.Error{Code: foley.Unavailable, Err: err,
			Message: fmt.Sprintf("refiner %s: %s", c.name, c.describe(ctx, err, &tries))}
		span.End(obs.Result{InputTokens: -1, OutputTokens: -1}, err)
		return "", err
	}
	text, err := c.text(msg)
	span.End(obs.Result{
		ResponseModel: string(msg.Model),
		ResponseID:    msg.ID,
		InputTokens:   msg.Usage.InputTokens + msg.Usage.CacheCreationInputTokens + msg.Usage.CacheReadInputTokens,
		OutputTokens:  msg.Usage.OutputTokens,
		FinishReasons: []string{string(msg.StopReason)},
	}, err)
	return text, err
}

// text reads the answer out of a response. A refusal, no text, or an
// answer cut off by max_tokens is an error.
func (c *claude) text(msg *sdk.Message) (string, error) {
	if msg.StopReason == sdk.StopReasonRefusal {
		var details []string
		if cat := msg.StopDetails.Category; cat != "" {
			details = append(details, "category "+string(cat))
		}
		if e := strings.TrimSpace(msg.StopDetails.Explanation); e != "" {
			details = append(details, e)
		}
		why := ""
		if len(details) > 0 {
			why = " (" + strings.Join(details, ": ") + ")"
		}
		return "", c.answerError(msg, "the model refused to answer%s", why)
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
	switch {
	case cut:
		return "", c.answerError(msg, "the model stopped at %s before it finished its answer (max_tokens=%d, thinking included)",
			msg.StopReason, c.maxTokens)
	case !found:
		return "", c.answerError(msg, "the response has no text block (stop reason %q)", msg.StopReason)
	}
	return text.String(), nil
}

// answerError is the error for a response that holds no answer.
func (c *claude) answerError(msg *sdk.Message, format string, args ...any) error {
	s := fmt.Sprintf("refiner %s: %s", c.name, fmt.Sprintf(format, args...))
	if msg.ID != "" {
		s += fmt.Sprintf(" (message %s)", msg.ID)
	}
	return &foley.Error{Code: foley.Unavailable, Message: s}
}

// anthropicAttempts counts the HTTP attempts of one call, retries
// included, and keeps the status of the last one.
type anthropicAttempts struct {
	n      atomic.Int32
	status atomic.Int32 // 0 when the last attempt got no response
}

// option returns the per-call middleware that counts.
func (a *anthropicAttempts) option() option.RequestOption {
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

// String says how many attempts were made: "after 4 attempts", or "".
func (a *anthropicAttempts) String() string {
	switch n := a.n.Load(); n {
	case 0:
		return ""
	case 1:
		return "after 1 attempt"
	default:
		return fmt.Sprintf("after %d attempts", n)
	}
}

// describe says what went wrong with a request: the API's status, error
// type and message, or the connection's failure.
func (c *claude) describe(ctx context.Context, err error, a *anthropicAttempts) string {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		return describeAPIError(apiErr, a)
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Sprintf("the call was abandoned%s: %v", paren(a.String()), ctxErr)
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Sprintf("no answer from %s within %s an attempt%s: %v", c.baseURL, c.timeout, paren(a.String()), err)
	}
	if s := a.status.Load(); s >= 200 && s < 300 {
		return fmt.Sprintf("unreadable answer from %s: %v", c.baseURL, err)
	}
	return fmt.Sprintf("cannot reach %s%s: %v", c.baseURL, paren(a.String()), err)
}

// describeAPIError reads an error answer of the API: "529
// overloaded_error: Overloaded (after 4 attempts; request-id req_...)".
func describeAPIError(e *sdk.Error, a *anthropicAttempts) string {
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
		fmt.Fprintf(&b, "; check %s", EnvAnthropicAPIKey)
	case http.StatusNotFound:
		fmt.Fprintf(&b, "; check the model (%s) and the base URL (%s)", EnvRefineModel, EnvAnthropicBaseURL)
	}
	return b.String()
}

// retried reports whether the SDKs retry an answer with this status.
func retried(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500
}

// paren returns the non-empty notes as " (a; b)", or "".
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
