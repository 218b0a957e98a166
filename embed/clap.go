package embed

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/audio"
	"github.com/foley-audio/foley/internal/httpretry"
)

// DefaultCLAPModel is the CLAP model asked for when none is configured.
const DefaultCLAPModel = "laion/larger_clap_general"

// The audio CLAP is sent, and how long clips are cut.
const (
	CLAPSampleRate    = 48000 // Hz, mono, 16-bit WAV
	CLAPWindowSeconds = 10    // a clip longer than this is embedded in windows
	CLAPHopSeconds    = 5     // one window every CLAPHopSeconds
	// MaxAudioBatch is the most inputs sent in one audio request.
	MaxAudioBatch = 32
	// MaxTextBatch is the most inputs sent in one text request.
	MaxTextBatch = 256
)

// The defaults of CLAPConfig.
const (
	DefaultCLAPTimeout     = 2 * time.Minute
	DefaultCLAPAttempts    = 4
	DefaultBackoffBase     = 500 * time.Millisecond
	DefaultBackoffMax      = 30 * time.Second
	DefaultMaxRetryAfter   = 60 * time.Second
	DefaultMaxAudioSeconds = 300
)

// ProbeText is the text Init embeds to learn the dimension.
const ProbeText = "a sound"

// CLAPConfig configures a CLAP embedder. Only URL is required; every zero
// field takes its default.
type CLAPConfig struct {
	// URL is the base URL of an Infinity-compatible embedding server, e.g.
	// http://localhost:7997; requests go to URL + "/embeddings". A
	// trailing slash is ignored.
	URL string
	// Model is the model asked for, and what Model() returns
	// (default DefaultCLAPModel).
	Model string
	// APIKey, when set, is sent as "Authorization: Bearer APIKey".
	APIKey string
	// HTTPClient sends the requests (default: a client of its own). Its
	// own Timeout, if any, also applies.
	HTTPClient *http.Client
	// Timeout bounds each attempt, from sending the request to reading the
	// whole answer (default DefaultCLAPTimeout). A timed-out attempt is
	// not retried: the server is overloaded or stuck.
	Timeout time.Duration
	// MaxAttempts is the most attempts per request, the first included
	// (default DefaultCLAPAttempts).
	MaxAttempts int
	// BackoffBase is the wait before the second attempt; each further
	// wait doubles, up to BackoffMax, and is jittered to between half and
	// all of that (defaults DefaultBackoffBase, DefaultBackoffMax).
	BackoffBase time.Duration
	BackoffMax  time.Duration
	// MaxRetryAfter is the longest Retry-After the embedder waits; a
	// server asking for more ends the retries with an error
	// (default DefaultMaxRetryAfter).
	MaxRetryAfter time.Duration
	// Dim, when > 0, is the dimension the server must answer; 0 learns
	// it from the first answer (see CLAP.Init).
	Dim int
	// MaxAudioSeconds is how much of each file is heard, from its start
	// (default DefaultMaxAudioSeconds; it bounds memory on hour-long
	// ambiences).
	MaxAudioSeconds float64
}

// CLAP embeds text and sound with a CLAP model served by an
// Infinity-compatible embedding server (POST {URL}/embeddings, OpenAI
// shaped, with "modality": "audio" for sound). It is safe for concurrent
// use.
//
// Text is sent as is. Sound files are decoded, downmixed to mono,
// resampled to 48 kHz and sent as base64 data URIs of 16-bit WAV files, at
// most 32 per request. A clip longer than 10 s is cut into 10 s windows
// every 5 s (the last one ending at the clip's end); each window's vector
// is normalised, the clip's vector is their mean, normalised. Every vector
// returned is L2-normalised.
//
// Requests answered 429 or 5xx, or that could not connect, are retried
// with exponential backoff and jitter, honouring Retry-After, at most
// MaxAttempts times. A server that cannot be reached is an error with code
// foley.Unavailable; a request it rejects (4xx) is an error quoting the
// server's message.
//
// Dim is 0 until the first answer, which fixes it: call Init before
// anything needs the dimension (FromEnv does). An answer of another
// dimension afterwards is an error.
type CLAP struct {
	url, endpoint string
	model, apiKey string
	client        *http.Client
	timeout       time.Duration
	policy        httpretry.Policy
	maxSeconds    float64
	dim           atomic.Int64
}

var _ foley.Embedder = (*CLAP)(nil)

// NewCLAP checks cfg and returns a CLAP embedder. It does not contact the
// server; Init does.
func NewCLAP(cfg CLAPConfig) (*CLAP, error) {
	raw := strings.TrimSpace(cfg.URL)
	if raw == "" {
		return nil, foley.Errorf(foley.Invalid, "CLAP: no server URL; %s", clapHowTo)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, foley.Errorf(foley.Invalid,
			"CLAP: server URL %q is not an http:// or https:// URL (FOLEY_CLAP_URL wants the server's base URL, e.g. http://localhost:7997)", raw)
	}
	if cfg.Dim < 0 {
		return nil, foley.Errorf(foley.Invalid, "CLAP: dimension %d is negative", cfg.Dim)
	}
	base := strings.TrimRight(raw, "/")
	c := &CLAP{
		url:      base,
		endpoint: base + "/embeddings",
		model:    cmp.Or(cfg.Model, DefaultCLAPModel),
		apiKey:   cfg.APIKey,
		client:   cfg.HTTPClient,
		timeout:  orDefault(cfg.Timeout, DefaultCLAPTimeout),
		policy: httpretry.Policy{
			Attempts:      orDefault(cfg.MaxAttempts, DefaultCLAPAttempts),
			BackoffBase:   orDefault(cfg.BackoffBase, DefaultBackoffBase),
			BackoffMax:    orDefault(cfg.BackoffMax, DefaultBackoffMax),
			MaxRetryAfter: orDefault(cfg.MaxRetryAfter, DefaultMaxRetryAfter),
		},
		maxSeconds: orDefault(cfg.MaxAudioSeconds, DefaultMaxAudioSeconds),
	}
	if c.client == nil {
		c.client = &http.Client{}
	}
	c.policy.BackoffMax = max(c.policy.BackoffMax, c.policy.BackoffBase)
	c.dim.Store(int64(cfg.Dim))
	return c, nil
}

// orDefault returns v, or def when v is not positive.
func orDefault[T int | float64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Init embeds ProbeText, which checks that the server answers and fixes
// Dim. Call it once before the dimension is needed.
func (c *CLAP) Init(ctx context.Context) error {
	_, err := c.EmbedText(ctx, []string{ProbeText})
	return err
}

// Model returns the configured model name exactly.
func (c *CLAP) Model() string { return c.model }

// URL returns the server's base URL.
func (c *CLAP) URL() string { return c.url }

// Dim is the dimension of the vectors: the configured one, else the one of
// the first answer; 0 before any answer.
func (c *CLAP) Dim() int { return int(c.dim.Load()) }

// AudioCapable is true: CLAP hears the clips.
func (c *CLAP) AudioCapable() bool { return true }

// EmbedText embeds each text, in order.
func (c *CLAP) EmbedText(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += MaxTextBatch {
		batch := texts[start:min(start+MaxTextBatch, len(texts))]
		vecs, err := c.embed(ctx, "", batch)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// EmbedAudio embeds the sound of each file (a path or a file:// URI), in
// order. Only the first MaxAudioSeconds of a file are heard. A file that
// cannot be read or decoded fails the whole call with an error naming it
// (code foley.NotFound for a missing file, foley.Invalid otherwise).
func (c *CLAP) EmbedAudio(ctx context.Context, uris []string) ([][]float32, error) {
	sums := make([][]float64, len(uris))
	var batch []string
	var owners []int // the file each input of batch belongs to
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		vecs, err := c.embed(ctx, "audio", batch)
		if err != nil {
			return err
		}
		for j, v := range vecs {
			s := sums[owners[j]]
			if s == nil {
				s = make([]float64, len(v))
				sums[owners[j]] = s
			}
			for k, x := range v { // v is normalised: each window weighs the same
				s[k] += float64(x)
			}
		}
		batch, owners = batch[:0], owners[:0]
		return nil
	}
	for i, uri := range uris {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		windows, err := c.windows(uri)
		if err != nil {
			return nil, err
		}
		for _, w := range windows {
			batch = append(batch, w)
			owners = append(owners, i)
			if len(batch) == MaxAudioBatch {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(uris))
	for i, s := range sums {
		// The mean of the windows, normalised: the normalised sum.
		v := normalize64(s)
		if isZero(v) {
			return nil, foley.Errorf(foley.Unavailable, "CLAP server at %s: the windows of %s embed to vectors that cancel out", c.url, uris[i])
		}
		out[i] = v
	}
	return out, nil
}

// windows decodes a file and returns the data URIs of its windows.
func (c *CLAP) windows(uri string) ([]string, error) {
	path, err := localPath(uri)
	if err != nil {
		return nil, err
	}
	clip, _, err := audio.DecodeFile(path, c.maxSeconds)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, foley.Errorf(foley.NotFound, "CLAP: sound file %s not found: %w", uri, err)
		}
		return nil, foley.Errorf(foley.Invalid, "CLAP: cannot decode sound file %s: %w", uri, err)
	}
	if clip.Frames() == 0 {
		return nil, foley.Errorf(foley.Invalid, "CLAP: sound file %s holds no audio", uri)
	}
	mono, err := clip.Mono().Resample(CLAPSampleRate)
	if err != nil {
		return nil, foley.Errorf(foley.Invalid, "CLAP: cannot resample %s to %d Hz: %w", uri, CLAPSampleRate, err)
	}
	var out []string
	var buf bytes.Buffer
	for _, w := range mono.Windows(CLAPWindowSeconds, CLAPHopSeconds) {
		buf.Reset()
		if err := w.WriteWAV16(&buf); err != nil {
			return nil, foley.Errorf(foley.Invalid, "CLAP: cannot encode %s: %w", uri, err)
		}
		out = append(out, WAVDataURI(buf.Bytes()))
	}
	return out, nil
}

// WAVDataURI returns a WAV file as the data URI CLAP servers accept.
func WAVDataURI(wav []byte) string {
	return "data:audio/wav;base64," + base64.StdEncoding.EncodeToString(wav)
}

// localPath turns a path or file:// URI into a path.
func localPath(uri string) (string, error) {
	if !strings.Contains(uri, "://") {
		if uri == "" {
			return "", foley.Errorf(foley.Invalid, "CLAP: empty sound file name")
		}
		return uri, nil
	}
	u, err := url.Parse(uri)
	if err != nil {
		return "", foley.Errorf(foley.Invalid, "CLAP: sound URI %q: %v", uri, err)
	}
	if u.Scheme != "file" {
		return "", foley.Errorf(foley.Invalid, "CLAP: sound URI %q: only local files (a path or file://) can be embedded, not %s://", uri, u.Scheme)
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", foley.Errorf(foley.Invalid, "CLAP: sound URI %q names host %q; only local files can be embedded", uri, u.Host)
	}
	if u.Path == "" {
		return "", foley.Errorf(foley.Invalid, "CLAP: sound URI %q has no path", uri)
	}
	return u.Path, nil
}

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// normalize32 returns v scaled to unit L2 norm, or false when it cannot be
// (zero, or not finite).
func normalize32(v []float32) ([]float32, bool) {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 || math.IsInf(ss, 0) || math.IsNaN(ss) {
		return nil, false
	}
	inv := 1 / math.Sqrt(ss)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out, true
}

// String describes the embedder, for logs.
func (c *CLAP) String() string {
	return fmt.Sprintf("CLAP %s at %s", c.model, c.url)
}
