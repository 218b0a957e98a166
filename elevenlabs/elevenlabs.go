package elevenlabs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/audio"
	"github.com/foley-audio/foley/internal/httpretry"
	"github.com/foley-audio/foley/license"
	"github.com/foley-audio/foley/obs"
)

// The defaults of Config.
const (
	DefaultBaseURL       = "https://api.elevenlabs.io"
	DefaultModel         = "eleven_text_to_sound_v2"
	DefaultOutputFormat  = "mp3_44100_128"
	DefaultTimeout       = 120 * time.Second
	DefaultMaxRetries    = 3
	DefaultBackoffBase   = 1 * time.Second
	DefaultBackoffMax    = 30 * time.Second
	DefaultMaxRetryAfter = 60 * time.Second
)

// The limits the API puts on a request.
const (
	MinDurationS = 0.5 // seconds, when a duration is asked for
	MaxDurationS = 30  // seconds
)

// The identity of generated clips.
const (
	// Source is the License.Source of generated clips.
	Source = "elevenlabs"
	// LicenseID is the licence table id of generated clips (see package
	// license): sound effects made on a paid ElevenLabs plan.
	LicenseID = "ElevenLabs-SFX"
)

// endpointPath is the sound-generation endpoint, under the base URL.
const endpointPath = "/v1/sound-generation"

// maxAnswerBytes bounds an answer read into memory. Thirty seconds of MP3
// at 192 kbit/s is about 720 kB.
const maxAnswerBytes = 64 << 20

// Config configures a Generator. Only APIKey is required; every zero field
// takes its default.
type Config struct {
	// APIKey is sent as the xi-api-key header.
	APIKey string
	// BaseURL is the API's base URL (default DefaultBaseURL); requests go
	// to BaseURL + "/v1/sound-generation". A trailing slash is ignored.
	BaseURL string
	// Model is the model_id asked for (default DefaultModel).
	Model string
	// OutputFormat is the output_format asked for (default
	// DefaultOutputFormat). Only MP3 formats, mp3_<rate>_<kbps>, are
	// accepted: the others are raw PCM, μ-law, A-law or Opus, which foley
	// does not read as files.
	OutputFormat string
	// Timeout bounds each attempt, from sending the request to reading the
	// whole answer (default DefaultTimeout). A timed-out attempt is not
	// retried.
	Timeout time.Duration
	// MaxRetries is how many times an attempt answered 429 or 5xx, or
	// that could not connect, is tried again (default DefaultMaxRetries;
	// negative for none).
	MaxRetries int
	// BackoffBase is the wait before the first retry; each further wait
	// doubles, up to BackoffMax, and is jittered to between half and all
	// of that (defaults DefaultBackoffBase, DefaultBackoffMax). A
	// Retry-After header replaces it.
	BackoffBase time.Duration
	BackoffMax  time.Duration
	// MaxRetryAfter is the longest Retry-After the generator waits; an
	// API asking for more ends the retries with an error (default
	// DefaultMaxRetryAfter).
	MaxRetryAfter time.Duration
	// HTTPClient sends the requests (default: a client of its own). Its
	// own Timeout, if any, also applies.
	HTTPClient *http.Client
}

// Generator makes sound effects with the ElevenLabs sound-generation API
// (POST /v1/sound-generation). It is safe for concurrent use.
type Generator struct {
	base, endpoint string
	apiKey         string
	model, format  string
	client         *http.Client
	timeout        time.Duration
	policy         httpretry.Policy
}

var _ foley.Generator = (*Generator)(nil)

var mp3Format = regexp.MustCompile(`^mp3_[0-9]+_[0-9]+$`)

// New checks cfg and returns a generator. It does not contact the API.
func New(cfg Config) (*Generator, error) {
	if err := checkAPIKey(cfg.APIKey); err != nil {
		return nil, foley.Errorf(foley.Invalid, "ElevenLabs: the API key %v (set %s)", err, EnvAPIKey)
	}
	base, err := checkBaseURL(cmpOr(strings.TrimSpace(cfg.BaseURL), DefaultBaseURL))
	if err != nil {
		return nil, foley.Errorf(foley.Invalid, "ElevenLabs: base URL %v", err)
	}
	model := cmpOr(strings.TrimSpace(cfg.Model), DefaultModel)
	if err := checkModel(model); err != nil {
		return nil, foley.Errorf(foley.Invalid, "ElevenLabs: model %v", err)
	}
	format := cmpOr(strings.TrimSpace(cfg.OutputFormat), DefaultOutputFormat)
	if !mp3Format.MatchString(format) {
		return nil, foley.Errorf(foley.Invalid,
			"ElevenLabs: output format %q is not supported: foley asks for MP3, mp3_<rate>_<kbps> such as %s", format, DefaultOutputFormat)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"timeout", cfg.Timeout}, {"backoff base", cfg.BackoffBase}, {"backoff max", cfg.BackoffMax}, {"max Retry-After", cfg.MaxRetryAfter}} {
		if d.v < 0 {
			return nil, foley.Errorf(foley.Invalid, "ElevenLabs: %s %s is negative", d.name, d.v)
		}
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	g := &Generator{
		base:     base,
		endpoint: base + endpointPath + "?" + url.Values{"output_format": {format}}.Encode(),
		apiKey:   cfg.APIKey,
		model:    model,
		format:   format,
		client:   cfg.HTTPClient,
		timeout:  cmpOr(cfg.Timeout, DefaultTimeout),
		policy: httpretry.Policy{
			Attempts:      retries + 1,
			BackoffBase:   cmpOr(cfg.BackoffBase, DefaultBackoffBase),
			BackoffMax:    cmpOr(cfg.BackoffMax, DefaultBackoffMax),
			MaxRetryAfter: cmpOr(cfg.MaxRetryAfter, DefaultMaxRetryAfter),
		},
	}
	g.policy.BackoffMax = max(g.policy.BackoffMax, g.policy.BackoffBase)
	if g.client == nil {
		g.client = &http.Client{}
	}
	return g, nil
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// checkAPIKey says what is wrong with a key, without quoting it.
func checkAPIKey(key string) error {
	if key == "" {
		return errors.New("is empty")
	}
	for _, r := range key {
		if r <= ' ' || r >= 0x7f {
			return errors.New("holds spaces, control or non-ASCII characters")
		}
	}
	return nil
}

// checkBaseURL returns raw without its trailing slashes when it is an
// http(s) URL with a host and no query.
func checkBaseURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http:// or https:// URL such as %s", raw, DefaultBaseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%q has a query or fragment; give the API's base URL such as %s", raw, DefaultBaseURL)
	}
	return strings.TrimRight(raw, "/"), nil
}

// checkModel checks that a model id is one word of printable characters.
func checkModel(m string) error {
	for _, r := range m {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return fmt.Errorf("%q is not a model id such as %s", m, DefaultModel)
		}
	}
	return nil
}

// Name is "elevenlabs:" and the model.
func (g *Generator) Name() string { return "elevenlabs:" + g.model }

// Model is the model_id the generator asks for.
func (g *Generator) Model() string { return g.model }

// soundRequest is the body of POST /v1/sound-generation.
type soundRequest struct {
	Text            string   `json:"text"`
	DurationSeconds *float64 `json:"duration_seconds,omitempty"` // absent: the model chooses
	PromptInfluence *float64 `json:"prompt_influence,omitempty"` // absent: the API's default, 0.3
	Loop            bool     `json:"loop,omitempty"`
	ModelID         string   `json:"model_id"`
}

// Generate asks the API for one clip. A request out of the API's ranges is
// an Invalid error, without a call. req.Seed is not sent: the API takes no
// seed, so its clips are not reproducible and the clip's Seed is nil.
func (g *Generator) Generate(ctx context.Context, req foley.GenerateRequest) (foley.GeneratedClip, error) {
	if err := checkRequest(req); err != nil {
		return foley.GeneratedClip{}, err
	}
	body := soundRequest{Text: req.Prompt, Loop: req.Loop, ModelID: g.model}
	if req.DurationS != 0 {
		body.DurationSeconds = &req.DurationS
	}
	if req.PromptInfluence != nil {
		body.PromptInfluence = new(*req.PromptInfluence)
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return foley.GeneratedClip{}, foley.Errorf(foley.Internal, "ElevenLabs: encoding the request: %w", err)
	}

	ctx, span := obs.StartCall(ctx, obs.Call{Operation: "generate_content", Provider: "elevenlabs", Model: g.model, ServerURL: g.base})
	clip, err := g.generate(ctx, raw, req)
	span.End(obs.Result{ResponseModel: g.model, InputTokens: -1, OutputTokens: -1}, err)
	if err != nil {
		return foley.GeneratedClip{}, err
	}
	return clip, nil
}

func (g *Generator) generate(ctx context.Context, body []byte, req foley.GenerateRequest) (foley.GeneratedClip, error) {
	ans, err := g.post(ctx, body)
	if err != nil {
		return foley.GeneratedClip{}, err
	}
	format, err := g.checkAudio(ans)
	if err != nil {
		return foley.GeneratedClip{}, err
	}
	gen := "elevenlabs/" + g.model
	return foley.GeneratedClip{
		Audio:     ans.body,
		Format:    string(format),
		Generator: gen,
		Prompt:    req.Prompt,
		Seed:      nil, // the API takes no seed
		License: license.Normalize(foley.License{
			Source:           Source,
			LicenseID:        LicenseID,
			Title:            req.Prompt,
			RightsVerified:   true,
			IsAIGenerated:    true,
			Generator:        gen,
			GenerationPrompt: req.Prompt,
		}),
	}, nil
}

// checkRequest checks req against the API's ranges.
func checkRequest(req foley.GenerateRequest) error {
	if strings.TrimSpace(req.Prompt) == "" {
		return foley.Errorf(foley.Invalid, "ElevenLabs: the prompt is empty")
	}
	if d := req.DurationS; d != 0 && !(d >= MinDurationS && d <= MaxDurationS) {
		return foley.Errorf(foley.Invalid,
			"ElevenLabs: duration %v s is outside %v..%v s (0 lets the model choose)", d, MinDurationS, MaxDurationS)
	}
	if p := req.PromptInfluence; p != nil && !(*p >= 0 && *p <= 1) {
		return foley.Errorf(foley.Invalid, "ElevenLabs: prompt influence %v is outside 0..1", *p)
	}
	return nil
}

// checkAudio checks that a 2xx answer is a sound file foley can decode and
// returns its format.
func (g *Generator) checkAudio(ans *answer) (audio.Format, error) {
	mt := mediaType(ans.contentType)
	switch {
	case strings.HasPrefix(mt, "audio/"), mt == "application/octet-stream", mt == "":
	default:
		return "", g.badAnswer("its Content-Type is %q, not audio: %q", ans.contentType, httpretry.ServerMessage(ans.body))
	}
	if len(ans.body) == 0 {
		return "", g.badAnswer("it is empty")
	}
	d, err := audio.NewDecoder(bytes.NewReader(ans.body))
	if err != nil {
		return "", g.badAnswer("it is not a sound file foley reads (%v)", err)
	}
	defer d.Close()
	buf := make([]float32, 4096*d.Info().Channels)
	n, err := d.Read(buf)
	if n == 0 && err != nil && !errors.Is(err, io.EOF) {
		return "", g.badAnswer("its %s audio does not decode (%v)", d.Info().Format, err)
	}
	if n == 0 {
		return "", g.badAnswer("its %s audio holds no samples", d.Info().Format)
	}
	return d.Info().Format, nil
}

// mediaType is the lower-case media type of a Content-Type header.
func mediaType(ct string) string {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

func (g *Generator) badAnswer(format string, args ...any) error {
	return foley.Errorf(foley.Unavailable, "ElevenLabs API at %s gave a bad answer: %s", g.base, fmt.Sprintf(format, args...))
}
