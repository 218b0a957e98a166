package openai

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/verify"
)

// The environment variables that configure the audio LM (the listen rung).
const (
	EnvAudioLMURL            = "FOLEY_AUDIOLM_URL"              // base URL, e.g. http://host:8000/v1; set to enable
	EnvAudioLMModel          = "FOLEY_AUDIOLM_MODEL"            // default DefaultAudioLMModel
	EnvAudioLMAPIKey         = "FOLEY_AUDIOLM_API_KEY"          // optional bearer token
	EnvAudioLMTau            = "FOLEY_AUDIOLM_TAU"              // threshold on P(yes), 0..1; default DefaultTau
	EnvAudioLMTimeout        = "FOLEY_AUDIOLM_TIMEOUT"          // per attempt, a Go duration such as 90s; default DefaultTimeout
	EnvAudioLMAllowRemote    = "FOLEY_AUDIOLM_ALLOW_REMOTE"     // true to fetch http(s) clips
	EnvAudioLMMaxRemoteBytes = "FOLEY_AUDIOLM_MAX_REMOTE_BYTES" // default DefaultMaxRemoteBytes
)

// The environment variables that configure the LLM judge (the judge rung).
const (
	EnvLLMURL     = "FOLEY_LLM_URL"     // base URL, e.g. http://host:8000/v1; set to enable
	EnvLLMModel   = "FOLEY_LLM_MODEL"   // required when FOLEY_LLM_URL is set
	EnvLLMAPIKey  = "FOLEY_LLM_API_KEY" // optional bearer token
	EnvLLMTimeout = "FOLEY_LLM_TIMEOUT" // per attempt, a Go duration; default DefaultTimeout
)

// AudioLMFromEnv returns the audio LM judge the FOLEY_AUDIOLM_* variables
// configure, or (nil, nil) when FOLEY_AUDIOLM_URL is unset or blank. A
// variable that cannot be read is an Invalid error naming it and its
// value. It does not contact the server.
//
// Mind the nil: assign the judge to a foley.Judge only when it is not nil.
func AudioLMFromEnv() (*AudioLMJudge, error) {
	base := strings.TrimSpace(os.Getenv(EnvAudioLMURL))
	if base == "" {
		return nil, nil
	}
	cfg := AudioLMConfig{
		BaseURL: base,
		Model:   strings.TrimSpace(os.Getenv(EnvAudioLMModel)),
		APIKey:  strings.TrimSpace(os.Getenv(EnvAudioLMAPIKey)),
	}
	if v, ok := env(EnvAudioLMTau); ok {
		tau, err := strconv.ParseFloat(v, 64)
		if err != nil || verify.CheckTau(EnvAudioLMTau, tau) != nil {
			return nil, foley.Errorf(foley.Invalid, "%s=%q is not a number between 0 and 1", EnvAudioLMTau, v)
		}
		cfg.Tau = tau
	}
	var err error
	if cfg.Timeout, err = envDuration(EnvAudioLMTimeout); err != nil {
		return nil, err
	}
	if v, ok := env(EnvAudioLMAllowRemote); ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, foley.Errorf(foley.Invalid, "%s=%q is not a boolean (true or false)", EnvAudioLMAllowRemote, v)
		}
		cfg.AllowRemote = b
	}
	if v, ok := env(EnvAudioLMMaxRemoteBytes); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return nil, foley.Errorf(foley.Invalid, "%s=%q is not a positive number of bytes", EnvAudioLMMaxRemoteBytes, v)
		}
		cfg.MaxRemoteBytes = n
	}
	return NewAudioLMJudge(cfg)
}

// LLMFromEnv returns the LLM judge the FOLEY_LLM_* variables configure, or
// (nil, nil) when FOLEY_LLM_URL is unset or blank. FOLEY_LLM_MODEL is then
// required. A variable that cannot be read is an Invalid error naming it
// and its value. It does not contact the server.
//
// Mind the nil: assign the judge to a foley.Judge only when it is not nil.
func LLMFromEnv() (*LLMJudge, error) {
	base := strings.TrimSpace(os.Getenv(EnvLLMURL))
	if base == "" {
		return nil, nil
	}
	cfg := LLMConfig{
		BaseURL: base,
		Model:   strings.TrimSpace(os.Getenv(EnvLLMModel)),
		APIKey:  strings.TrimSpace(os.Getenv(EnvLLMAPIKey)),
	}
	if cfg.Model == "" {
		return nil, foley.Errorf(foley.Invalid, "%s is set (%s) but %s is not: name the model the server serves", EnvLLMURL, base, EnvLLMModel)
	}
	var err error
	if cfg.Timeout, err = envDuration(EnvLLMTimeout); err != nil {
		return nil, err
	}
	return NewLLMJudge(cfg)
}

// env returns the trimmed value of a variable and whether it is set and
// not blank.
func env(name string) (string, bool) {
	v := strings.TrimSpace(os.Getenv(name))
	return v, v != ""
}

// envDuration reads a positive Go duration; 0 when unset.
func envDuration(name string) (time.Duration, error) {
	v, ok := env(name)
	if !ok {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, foley.Errorf(foley.Invalid, "%s=%q is not a positive duration such as 90s or 2m", name, v)
	}
	return d, nil
}
