package openai

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/openaix"
	"github.com/foley-audio/foley/verify"
)

// DefaultMaxTokens bounds the LLM judge's answer.
const DefaultMaxTokens = 500

// SchemaName is the name of the response format the LLM judge asks for.
const SchemaName = "verdict"

// LLMConfig configures an LLMJudge. BaseURL and Model are required; every
// other zero field takes its default.
type LLMConfig struct {
	// BaseURL is the server's OpenAI base URL, e.g. http://host:8000/v1
	// (vLLM), http://localhost:11434/v1 (Ollama) or
	// http://localhost:8080/v1 (llama.cpp).
	BaseURL string
	// Model is the model asked for.
	Model string
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

// LLMJudge is the judge rung on a text LLM behind an OpenAI-compatible
// chat-completions API: it reads the wanted event and the candidate's
// catalogue description (it cannot hear the clip) and answers match,
// confidence and reason as JSON constrained by verify.JudgeSchema. It is
// safe for concurrent use.
type LLMJudge struct {
	svc       service
	maxTokens int
}

var (
	_ foley.IdentifiedJudge = (*LLMJudge)(nil)
	_ foley.CheckableJudge  = (*LLMJudge)(nil)
)

// NewLLMJudge checks cfg and returns the judge. It does not contact the
// server; Check does.
func NewLLMJudge(cfg LLMConfig) (*LLMJudge, error) {
	base, err := openaix.CheckBaseURL("LLM judge", EnvLLMURL, cfg.BaseURL, "http://localhost:8000/v1")
	if err != nil {
		return nil, err
	}
	model := strings.TrimSpace(cfg.Model)
	if model == "" {
		return nil, foley.Errorf(foley.Invalid, "LLM judge: no model (set %s to the model the server at %s serves)", EnvLLMModel, base)
	}
	if cfg.Timeout < 0 {
		return nil, foley.Errorf(foley.Invalid, "LLM judge: the timeout %s is negative", cfg.Timeout)
	}
	if cfg.MaxTokens < 0 {
		return nil, foley.Errorf(foley.Invalid, "LLM judge: max tokens %d is negative", cfg.MaxTokens)
	}
	maxTokens := cfg.MaxTokens
	if maxTokens == 0 {
		maxTokens = DefaultMaxTokens
	}
	return &LLMJudge{
		svc:       newService("LLM judge", EnvLLMURL, EnvLLMAPIKey, base, model, cfg.APIKey, cfg.Timeout, cfg.MaxRetries, cfg.HTTPClient),
		maxTokens: maxTokens,
	}, nil
}

// Name implements foley.Judge: "llm:" and the model.
func (j *LLMJudge) Name() string { return "llm:" + j.svc.Model }

// Model returns the model asked for.
func (j *LLMJudge) Model() string { return j.svc.Model }

// BaseURL returns the server's base URL.
func (j *LLMJudge) BaseURL() string { return j.svc.Base }

// Identity implements foley.IdentifiedJudge: the kind, the model and the
// prompt version, e.g. "llm|qwen2.5:7b|prompt=v1".
func (j *LLMJudge) Identity() string {
	return fmt.Sprintf("llm|%s|prompt=%s", j.svc.Model, verify.JudgePromptVersion)
}

// Check implements foley.CheckableJudge: it lists the server's models
// (GET /models) and reports an error when the server cannot be reached or
// does not serve the model.
func (j *LLMJudge) Check(ctx context.Context) error { return j.svc.check(ctx) }

// Judge implements foley.Judge. A server that fails, a refusal, a
// truncated or empty answer, or one that is not the schema's JSON (with a
// confidence in 0..1) is an error, never a verdict.
func (j *LLMJudge) Judge(ctx context.Context, event foley.SoundEvent, c foley.Candidate, level foley.VerifyLevel) (foley.Verdict, error) {
	if strings.TrimSpace(event.Query) == "" {
		return foley.Verdict{}, foley.Errorf(foley.Invalid, "LLM judge: the event has no query to judge against")
	}
	params := openaix.SchemaRequest(j.svc.Model, verify.JudgeSystemPrompt, verify.JudgePrompt(event, c),
		j.maxTokens, SchemaName, verify.JudgeSchema())
	ctx, span := j.svc.StartSpan(ctx, j.maxTokens)
	resp, err := j.svc.complete(ctx, params)
	var v foley.Verdict
	if err == nil {
		v, err = j.verdict(resp, level)
	}
	span.End(openaix.Result(resp), err)
	if err != nil {
		return foley.Verdict{}, err
	}
	return v, nil
}

func (j *LLMJudge) verdict(resp *sdk.ChatCompletion, level foley.VerifyLevel) (foley.Verdict, error) {
	content, err := j.svc.Content(resp, j.maxTokens)
	if err != nil {
		return foley.Verdict{}, err
	}
	a, err := verify.ParseJudgeAnswer(content)
	if err != nil {
		return foley.Verdict{}, j.svc.BadAnswer("an unusable answer: %v", err)
	}
	return foley.Verdict{
		Match:      a.Match,
		Confidence: a.Confidence,
		Reason:     a.Reason,
		Level:      level,
		Judge:      j.Name(),
	}, nil
}
