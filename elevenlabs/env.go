package elevenlabs

import (
	"os"
	"strings"

	"github.com/foley-audio/foley"
)

// The environment variables FromEnv reads.
const (
	EnvAPIKey  = "ELEVENLABS_API_KEY"     // the API key; set to enable the generator
	EnvModel   = "FOLEY_ELEVENLABS_MODEL" // default DefaultModel
	EnvBaseURL = "ELEVENLABS_BASE_URL"    // default DefaultBaseURL
)

// FromEnv returns the generator ELEVENLABS_API_KEY, FOLEY_ELEVENLABS_MODEL
// and ELEVENLABS_BASE_URL configure, or (nil, nil) when
// ELEVENLABS_API_KEY is unset or blank. A variable that cannot be used is
// an Invalid error naming it (and its value, except for the key). It does
// not contact the API.
//
// Mind the nil: assign the generator to a foley.Generator only when it is
// not nil.
func FromEnv() (*Generator, error) {
	key := strings.TrimSpace(os.Getenv(EnvAPIKey))
	if key == "" {
		return nil, nil
	}
	if err := checkAPIKey(key); err != nil {
		return nil, foley.Errorf(foley.Invalid, "%s %v", EnvAPIKey, err)
	}
	cfg := Config{APIKey: key}
	if v := strings.TrimSpace(os.Getenv(EnvModel)); v != "" {
		if err := checkModel(v); err != nil {
			return nil, foley.Errorf(foley.Invalid, "%s=%v", EnvModel, err)
		}
		cfg.Model = v
	}
	if v := strings.TrimSpace(os.Getenv(EnvBaseURL)); v != "" {
		base, err := checkBaseURL(v)
		if err != nil {
			return nil, foley.Errorf(foley.Invalid, "%s=%v", EnvBaseURL, err)
		}
		cfg.BaseURL = base
	}
	return New(cfg)
}
