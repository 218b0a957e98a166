package embed

import (
	"context"
	"os"
	"strings"

	"github.com/foley-audio/foley"
)

// The environment variables that configure CLAP.
const (
	EnvCLAPURL    = "FOLEY_CLAP_URL"     // the server's base URL; set to enable CLAP
	EnvCLAPModel  = "FOLEY_CLAP_MODEL"   // default DefaultCLAPModel
	EnvCLAPAPIKey = "FOLEY_CLAP_API_KEY" // optional bearer token
)

// CLAPConfigFromEnv reads FOLEY_CLAP_URL, FOLEY_CLAP_MODEL and
// FOLEY_CLAP_API_KEY. ok is false when FOLEY_CLAP_URL is unset or blank:
// CLAP is not configured. The other fields keep their defaults (zero).
func CLAPConfigFromEnv() (cfg CLAPConfig, ok bool) {
	cfg.URL = strings.TrimSpace(os.Getenv(EnvCLAPURL))
	cfg.Model = strings.TrimSpace(os.Getenv(EnvCLAPModel))
	cfg.APIKey = strings.TrimSpace(os.Getenv(EnvCLAPAPIKey))
	return cfg, cfg.URL != ""
}

// FromEnv returns the embedder the environment configures: CLAP when
// FOLEY_CLAP_URL is set, already initialised (so its Dim is known), else
// the built-in text embedder NewHash(0). A configured CLAP server that
// cannot be reached is an error (code foley.Unavailable), never a silent
// fallback to text: vectors of two models cannot share a library.
func FromEnv(ctx context.Context) (foley.Embedder, error) {
	cfg, ok := CLAPConfigFromEnv()
	if !ok {
		return NewHash(0), nil
	}
	c, err := NewCLAP(cfg)
	if err != nil {
		return nil, err
	}
	if err := c.Init(ctx); err != nil {
		return nil, err
	}
	return c, nil
}
