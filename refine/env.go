package refine

import (
	"os"
	"strings"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/anthropicx"
)

// The environment variables FromEnv reads.
const (
	EnvAnthropicAPIKey  = "ANTHROPIC_API_KEY"  // set: refine with Claude
	EnvRefineModel      = "FOLEY_REFINE_MODEL" // the Claude model; default EnvJudgeModel's
	EnvJudgeModel       = "FOLEY_JUDGE_MODEL"  // the judge's Claude model; default DefaultAnthropicModel
	EnvAnthropicBaseURL = "ANTHROPIC_BASE_URL" // default DefaultAnthropicBaseURL

	EnvLLMURL     = "FOLEY_LLM_URL"     // else, when set: an OpenAI-compatible server
	EnvLLMModel   = "FOLEY_LLM_MODEL"   // required with FOLEY_LLM_URL
	EnvLLMAPIKey  = "FOLEY_LLM_API_KEY" // optional bearer token
	EnvLLMTimeout = "FOLEY_LLM_TIMEOUT" // per attempt, a Go duration; default DefaultTimeout
)

// FromEnv returns the LLM refiner the environment configures: Claude when
// ANTHROPIC_API_KEY is set, else the OpenAI-compatible server of
// FOLEY_LLM_URL and FOLEY_LLM_MODEL, else (nil, nil) — a nil interface, so
// that the caller can fall back to Default. A variable that cannot be read
// (a blank key, a bad URL or duration, FOLEY_LLM_URL without
// FOLEY_LLM_MODEL) is an error with code foley.Invalid that names it. It
// makes no request.
func FromEnv() (foley.Refiner, error) {
	if key := os.Getenv(EnvAnthropicAPIKey); key != "" {
		if strings.TrimSpace(key) == "" {
			return nil, foley.Errorf(foley.Invalid, "%s is blank (want an API key, or leave it unset)", EnvAnthropicAPIKey)
		}
		model, _ := env(EnvRefineModel)
		if model == "" {
			model, _ = env(EnvJudgeModel)
		}
		cfg := AnthropicConfig{APIKey: strings.TrimSpace(key), Model: model}
		if v, ok := env(EnvAnthropicBaseURL); ok {
			if err := anthropicx.CheckBaseURL(v); err != nil {
				return nil, foley.Errorf(foley.Invalid, "%s=%q %v, such as %s", EnvAnthropicBaseURL, v, err, DefaultAnthropicBaseURL)
			}
			cfg.BaseURL = v
		}
		r, err := NewAnthropic(cfg)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	base, ok := env(EnvLLMURL)
	if !ok {
		return nil, nil
	}
	cfg := OpenAIConfig{BaseURL: base}
	cfg.Model, _ = env(EnvLLMModel)
	cfg.APIKey, _ = env(EnvLLMAPIKey)
	if cfg.Model == "" {
		return nil, foley.Errorf(foley.Invalid, "%s is set (%s) but %s is not: name the model the server serves", EnvLLMURL, base, EnvLLMModel)
	}
	if v, ok := env(EnvLLMTimeout); ok {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, foley.Errorf(foley.Invalid, "%s=%q is not a positive duration such as 90s or 2m", EnvLLMTimeout, v)
		}
		cfg.Timeout = d
	}
	r, err := NewOpenAI(cfg)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// env returns the trimmed value of a variable and whether it is set and
// not blank.
func env(name string) (string, bool) {
	v := strings.TrimSpace(os.Getenv(name))
	return v, v != ""
}
