package embed

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/audio"
)

func startFake(t *testing.T, f *fakeCLAP) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv
}

// testCLAP returns a CLAP for url with fast retries; edit adjusts the
// configuration.
func testCLAP(t *testing.T, url string, edit ...func(*CLAPConfig)) *CLAP {
	t.Helper()
	cfg := CLAPConfig{URL: url, BackoffBase: time.Millisecond, BackoffMax: 4 * time.Millisecond, Timeout: 20 * time.Second}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := NewCLAP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// writeTone writes a WAV file of a sine at freq Hz, each channel in
// another phase, whose amplitude rises over the clip (so that no two
// windows of it are alike).
func writeTone(t *testing.T, path string, rate, channels int, seconds, freq float64) {
	t.Helper()
	n := int(math.Round(seconds * float64(rate)))
	c := &audio.Clip{SampleRate: rate, Channels: channels, Samples: make([]float32, n*channels)}
	for i := range n {
		for k := range channels {
			amp := 0.1 + 0.5*float64(i)/float64(n)
			c.Samples[i*channels+k] = float32(amp * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)+float64(k)))
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WriteWAV16(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func assertVector(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d numbers, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Fatalf("%s: [%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
	if n := norm(got); math.Abs(n-1) > 1e-5 {
		t.Fatalf("%s: norm %v, want 1", what, n)
	}
}

func assertCode(t *testing.T, err error, code foley.ErrorCode, says ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want code %s", code)
	}
	if got := foley.CodeOf(err); got != code {
		t.Errorf("error code = %s, want %s (%v)", got, code, err)
	}
	for _, s := range says {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
}

func TestNewCLAP(t *testing.T) {
	for _, bad := range []string{"", "  ", "localhost:7997", "ftp://host/", "http://", "://x"} {
		_, err := NewCLAP(CLAPConfig{URL: bad})
		assertCode(t, err, foley.Invalid, "FOLEY_CLAP_URL")
	}
	_, err := NewCLAP(CLAPConfig{URL: "http://x", Dim: -1})
	assertCode(t, err, foley.Invalid, "negative")

	c, err := NewCLAP(CLAPConfig{URL: "http://localhost:7997/"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Model() != DefaultCLAPModel || c.URL() != "http://localhost:7997" || c.Dim() != 0 || !c.AudioCapable() {
		t.Errorf("defaults: model %q, url %q, dim %d, audio %v", c.Model(), c.URL(), c.Dim(), c.AudioCapable())
	}
	if c.policy.Attempts != DefaultCLAPAttempts || c.timeout != DefaultCLAPTimeout || c.policy.BackoffBase != DefaultBackoffBase || c.maxSeconds != DefaultMaxAudioSeconds {
		t.Errorf("defaults: attempts %d, timeout %s, backoff %s, max seconds %v", c.policy.Attempts, c.timeout, c.policy.BackoffBase, c.maxSeconds)
	}
	c, _ = NewCLAP(CLAPConfig{URL: "https://clap.example/api", Model: "Org/My-CLAP ", Dim: 512})
	if c.Model() != "Org/My-CLAP " || c.Dim() != 512 || c.endpoint != "https://clap.example/api/embeddings" {
		t.Errorf("model %q (want it exactly as given), dim %d, endpoint %s", c.Model(), c.Dim(), c.endpoint)
	}
}

func TestCLAPConfigFromEnv(t *testing.T) {
	t.Setenv(EnvCLAPURL, "")
	t.Setenv(EnvCLAPModel, "")
	t.Setenv(EnvCLAPAPIKey, "")
	if _, ok := CLAPConfigFromEnv(); ok {
		t.Error("configured without FOLEY_CLAP_URL")
	}
	t.Setenv(EnvCLAPURL, " http://gpu:7997 ")
	cfg, ok := CLAPConfigFromEnv()
	if !ok || cfg.URL != "http://gpu:7997" || cfg.Model != "" || cfg.APIKey != "" {
		t.Errorf("URL only: %+v, %v", cfg, ok)
	}
	t.Setenv(EnvCLAPModel, "laion/clap-htsat-fused")
	t.Setenv(EnvCLAPAPIKey, "s3cret")
	cfg, _ = CLAPConfigFromEnv()
	if cfg.Model != "laion/clap-htsat-fused" || cfg.APIKey != "s3cret" {
		t.Errorf("all set: %+v", cfg)
	}
	c, err := NewCLAP(cfg)
	if err != nil || c.Model() != "laion/clap-htsat-fused" {
		t.Errorf("NewCLAP: %v, %v", c, err)
	}
}

func TestFromEnv(t *testing.T) {
	ctx := context.Background()
	t.Setenv(EnvCLAPURL, "")
	t.Setenv(EnvCLAPModel, "")
	t.Setenv(EnvCLAPAPIKey, "")
	e, err := FromEnv(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := e.(*Hash); !ok || h.Dim() != DefaultHashDim {
		t.Errorf("unconfigured: %T %v", e, e.Model())
	}

	f := newFake(t)
	f.apiKey = "s3cret"
	srv := startFake(t, f)
	t.Setenv(EnvCLAPURL, srv.URL)
	t.Setenv(EnvCLAPAPIKey, "s3cret")
	e, err = FromEnv(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := e.(*CLAP); !ok || c.Dim() != f.dim || c.Model() != DefaultCLAPModel {
		t.Errorf("configured: %T dim %d", e, e.Dim())
	}

	// A configured server that fails is an error, never a fallback to text.
	t.Setenv(EnvCLAPModel, "no/such-model")
	_, err = FromEnv(ctx)
	assertCode(t, err, foley.Invalid, srv.URL, "no/such-model")
}

func TestCLAPText(t *testing.T) {
	f := newFake(t)
	f.apiKey = "tok"
	srv := startFake(t, f)
	c := testCLAP(t, srv.URL, func(cfg *CLAPConfig) { cfg.APIKey = "tok" })
	if c.Dim() != 0 {
		t.Fatalf("Dim before any answer = %d, want 0", c.Dim())
	}
	texts := []string{"heavy wooden door slams shut", "rain on a tin roof", "a dog barks", "", "door slam"}
	got, err := c.EmbedText(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(got), len(texts))
	}
	for i, text := range texts {
		assertVector(t, fmt.Sprintf("text %d", i), got[i], fakeVector(text, f.dim))
	}
	if c.Dim() != f.dim {
		t.Errorf("Dim after the first answer = %d, want %d", c.Dim(), f.dim)
	}
	reqs := f.log()
	if len(reqs) != 1 || reqs[0].Modality != "" || !slices.Equal(reqs[0].Inputs, texts) {
		t.Errorf("requests: %+v", reqs)
	}
	if none, err := c.EmbedText(context.Background(), nil); err != nil || len(none) != 0 || f.count() != 1 {
		t.Errorf("no texts: %v, %v, %d requests", none, err, f.count())
	}
}

func TestCLAPTextBatches(t *testing.T) {
	f := newFake(t)
	c := testCLAP(t, startFake(t, f).URL)
	texts := make([]string, 600)
	for i := range texts {
		texts[i] = fmt.Sprintf("sound %d", i)
	}
	got, err := c.EmbedText(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, r := range f.log() {
		sizes = append(sizes, len(r.Inputs))
	}
	if !slices.Equal(sizes, []int{256, 256, 88}) {
		t.Errorf("batches %v, want [256 256 88]", sizes)
	}
	for _, i := range []int{0, 255, 256, 599} {
		assertVector(t, texts[i], got[i], fakeVector(texts[i], f.dim))
	}
}

func TestCLAPInit(t *testing.T) {
	f := newFake(t)
	f.dim = 48
	c := testCLAP(t, startFake(t, f).URL)
	if err := c.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c.Dim() != 48 {
		t.Errorf("Dim after Init = %d, want 48", c.Dim())
	}
	if reqs := f.log(); len(reqs) != 1 || !slices.Equal(reqs[0].Inputs, []string{ProbeText}) {
		t.Errorf("Init sent %+v", reqs)
	}
}

func TestCLAPDimMismatch(t *testing.T) {
	f := newFake(t)
	srv := startFake(t, f)
	// A configured dimension the server does not answer.
	c := testCLAP(t, srv.URL, func(cfg *CLAPConfig) { cfg.Dim = 16 })
	_, err := c.EmbedText(context.Background(), []string{"door"})
	assertCode(t, err, foley.Unavailable, "32 numbers", "16")
	// A server that changes dimension after the first answer.
	c = testCLAP(t, srv.URL)
	if err := c.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.dim = 64
	f.mu.Unlock()
	_, err = c.EmbedText(context.Background(), []string{"door"})
	assertCode(t, err, foley.Unavailable, "64 numbers", "have 32")
	if c.Dim() != 32 {
		t.Errorf("Dim changed to %d", c.Dim())
	}
}

func TestCLAPAudioBatching(t *testing.T) {
	f := newFake(t)
	c := testCLAP(t, startFake(t, f).URL)
	dir := t.TempDir()
	// Most clips are at 48 kHz already (resampling is slow under -race);
	// some are not.
	formats := []struct{ rate, channels int }{{48000, 1}, {48000, 2}, {44100, 2}, {48000, 1}, {48000, 2},
		{48000, 1}, {48000, 2}, {22050, 1}, {48000, 1}, {48000, 2}, {48000, 1}, {16000, 2}, {48000, 1}, {96000, 1}}
	var uris []string
	for i := range 70 {
		fm := formats[i%len(formats)]
		path := filepath.Join(dir, fmt.Sprintf("clip%02d.wav", i))
		writeTone(t, path, fm.rate, fm.channels, 0.25, 200+float64(i)*37)
		if i%2 == 1 {
			path = "file://" + path
		}
		uris = append(uris, path)
	}
	got, err := c.EmbedAudio(context.Background(), uris)
	if err != nil {
		t.Fatal(err)
	}
	reqs := f.log()
	var sizes []int
	var inputs []string
	for _, r := range reqs {
		if r.Modality != "audio" {
			t.Errorf("modality %q, want audio", r.Modality)
		}
		sizes = append(sizes, len(r.Inputs))
		inputs = append(inputs, r.Inputs...)
	}
	if !slices.Equal(sizes, []int{32, 32, 6}) {
		t.Fatalf("batches %v, want [32 32 6]", sizes)
	}
	if len(got) != 70 {
		t.Fatalf("%d vectors for 70 clips", len(got))
	}
	seen := map[string]bool{}
	for i := range got {
		// Each clip is one window, sent in order, resampled to 48 kHz.
		if n := wavFrames(t, inputs[i]); n < 11990 || n > 12010 {
			t.Errorf("clip %d: %d frames at 48 kHz, want about 12000", i, n)
		}
		assertVector(t, fmt.Sprintf("clip %d", i), got[i], fakeVector(inputs[i], f.dim))
		if seen[inputs[i]] {
			t.Errorf("clip %d sent the same audio as another", i)
		}
		seen[inputs[i]] = true
	}
	if c.Dim() != f.dim {
		t.Errorf("Dim = %d after audio", c.Dim())
	}
}

func TestCLAPAudioWindows(t *testing.T) {
	f := newFake(t)
	c := testCLAP(t, startFake(t, f).URL)
	dir := t.TempDir()
	long := filepath.Join(dir, "long.wav")
	short := filepath.Join(dir, "short.wav")
	writeTone(t, long, 48000, 1, 23, 440)
	writeTone(t, short, 48000, 1, 1, 880)

	got, err := c.EmbedAudio(context.Background(), []string{long, short})
	if err != nil {
		t.Fatal(err)
	}
	reqs := f.log()
	if len(reqs) != 1 || len(reqs[0].Inputs) != 5 {
		t.Fatalf("requests: %d, want one of 4 windows and 1 clip", len(reqs))
	}
	inputs := reqs[0].Inputs

	// The windows foley must send: 0-10, 5-15, 10-20 and 13-23 s of the
	// mono clip, as 16-bit WAV.
	clip, _, err := audio.DecodeFile(long, 0)
	if err != nil {
		t.Fatal(err)
	}
	windows := clip.Mono().Windows(10, 5)
	if len(windows) != 4 {
		t.Fatalf("audio cuts 23 s into %d windows, want 4", len(windows))
	}
	mean := make([]float64, f.dim)
	for k, w := range windows {
		var buf bytes.Buffer
		if err := w.WriteWAV16(&buf); err != nil {
			t.Fatal(err)
		}
		if inputs[k] != WAVDataURI(buf.Bytes()) {
			t.Errorf("window %d is not the %d-th 10 s window of the mono clip", k, k)
		}
		if n := wavFrames(t, inputs[k]); n != 480000 {
			t.Errorf("window %d: %d frames, want 480000 (10 s)", k, n)
		}
		for j, x := range fakeVector(inputs[k], f.dim) {
			mean[j] += float64(x) / 4
		}
	}
	assertVector(t, "23 s clip", got[0], normalize64(mean))
	assertVector(t, "1 s clip", got[1], fakeVector(inputs[4], f.dim))
	if Cosine(got[0], fakeVector(inputs[0], f.dim)) > 0.99 {
		t.Error("the long clip's vector is its first window's, not the mean")
	}

	// Only the first MaxAudioSeconds are heard: 12 s are two windows,
	// 0-10 and 2-12 s.
	c = testCLAP(t, c.URL(), func(cfg *CLAPConfig) { cfg.MaxAudioSeconds = 12 })
	if _, err := c.EmbedAudio(context.Background(), []string{long}); err != nil {
		t.Fatal(err)
	}
	reqs = f.log()
	if last := reqs[len(reqs)-1]; len(last.Inputs) != 2 || last.Inputs[0] != inputs[0] {
		t.Errorf("MaxAudioSeconds 12: %d windows sent, want 2 starting with the first", len(last.Inputs))
	}
}

func TestCLAPAudioWrongFormatRejected(t *testing.T) {
	// A server that wants 44.1 kHz rejects foley's 48 kHz as Infinity
	// rejects invalid input: 422 and a validation error, quoted.
	f := newFake(t)
	f.rate = 44100
	c := testCLAP(t, startFake(t, f).URL)
	path := filepath.Join(t.TempDir(), "a.wav")
	writeTone(t, path, 48000, 1, 0.5, 440)
	_, err := c.EmbedAudio(context.Background(), []string{path})
	assertCode(t, err, foley.Invalid, "422", "sample rate 48000 Hz, want 44100 Hz", "body.input.0")
	if f.count() != 1 {
		t.Errorf("%d attempts for a 422, want 1", f.count())
	}
}

func TestCLAPAudioFileErrors(t *testing.T) {
	f := newFake(t)
	c := testCLAP(t, startFake(t, f).URL)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.wav")
	writeTone(t, good, 48000, 1, 0.5, 440)
	text := filepath.Join(dir, "notes.wav")
	os.WriteFile(text, []byte("this is not a sound file at all"), 0o644)
	empty := filepath.Join(dir, "empty.wav")
	writeTone(t, empty, 48000, 1, 0, 440)
	missing := filepath.Join(dir, "missing.wav")

	for _, tc := range []struct {
		uri  string
		code foley.ErrorCode
		says string
	}{
		{missing, foley.NotFound, "missing.wav"},
		{text, foley.Invalid, "notes.wav"},
		{empty, foley.Invalid, "no audio"},
		{"https://freesound.org/s/1.wav", foley.Invalid, "only local files"},
		{"file://otherhost/x.wav", foley.Invalid, "only local files"},
		{"", foley.Invalid, "empty"},
	} {
		_, err := c.EmbedAudio(context.Background(), []string{good, tc.uri})
		assertCode(t, err, tc.code, tc.says)
	}
	if f.count() != 0 {
		t.Errorf("%d requests sent for batches with a bad file", f.count())
	}
}

func TestCLAPRetry(t *testing.T) {
	f := newFake(t)
	f.hook = func(w http.ResponseWriter, r *http.Request, n int) bool {
		if n <= 2 {
			openAIError(w, http.StatusServiceUnavailable, "model is loading")
			return true
		}
		return false
	}
	c := testCLAP(t, startFake(t, f).URL)
	got, err := c.EmbedText(context.Background(), []string{"door"})
	if err != nil {
		t.Fatal(err)
	}
	assertVector(t, "door", got[0], fakeVector("door", f.dim))
	if f.count() != 3 {
		t.Errorf("%d attempts, want 3 (two 503s, then success)", f.count())
	}
}

func TestCLAPRetryAfter(t *testing.T) {
	f := newFake(t)
	var mu sync.Mutex
	var times []time.Time
	f.hook = func(w http.ResponseWriter, r *http.Request, n int) bool {
		mu.Lock()
		times = append(times, time.Now())
		mu.Unlock()
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			openAIError(w, http.StatusTooManyRequests, "slow down")
			return true
		}
		return false
	}
	// The backoff alone would wait milliseconds: only Retry-After explains
	// a second.
	c := testCLAP(t, startFake(t, f).URL)
	if _, err := c.EmbedText(context.Background(), []string{"door"}); err != nil {
		t.Fatal(err)
	}
	if len(times) != 2 {
		t.Fatalf("%d attempts, want 2", len(times))
	}
	if gap := times[1].Sub(times[0]); gap < time.Second {
		t.Errorf("retried after %s, before the Retry-After of 1 s", gap)
	}

	// A Retry-After longer than foley waits ends the retries at once.
	f2 := newFake(t)
	f2.hook = func(w http.ResponseWriter, r *http.Request, n int) bool {
		w.Header().Set("Retry-After", "120")
		openAIError(w, http.StatusServiceUnavailable, "maintenance")
		return true
	}
	c = testCLAP(t, startFake(t, f2).URL, func(cfg *CLAPConfig) { cfg.MaxRetryAfter = 5 * time.Second })
	start := time.Now()
	_, err := c.EmbedText(context.Background(), []string{"door"})
	assertCode(t, err, foley.Unavailable, "maintenance", "retry after 2m0s")
	if f2.count() != 1 || time.Since(start) > 2*time.Second {
		t.Errorf("%d attempts in %s, want 1 at once", f2.count(), time.Since(start))
	}
}

func TestCLAPGiveUp(t *testing.T) {
	f := newFake(t)
	f.hook = func(w http.ResponseWriter, r *http.Request, n int) bool {
		openAIError(w, http.StatusInternalServerError, "InternalServerError: CUDA out of memory")
		return true
	}
	c := testCLAP(t, startFake(t, f).URL, func(cfg *CLAPConfig) { cfg.MaxAttempts = 3 })
	_, err := c.EmbedText(context.Background(), []string{"door"})
	assertCode(t, err, foley.Unavailable, "500", "CUDA out of memory", "after 3 attempts")
	if f.count() != 3 {
		t.Errorf("%d attempts, want 3", f.count())
	}
	// The default is 4.
	c = testCLAP(t, startFake(t, f).URL, func(cfg *CLAPConfig) { cfg.MaxAttempts = 0 })
	before := f.count()
	c.EmbedText(context.Background(), []string{"door"})
	if n := f.count() - before; n != DefaultCLAPAttempts {
		t.Errorf("%d attempts by default, want %d", n, DefaultCLAPAttempts)
	}
}

func TestCLAPServerDown(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	c := testCLAP(t, url, func(cfg *CLAPConfig) { cfg.MaxAttempts = 2 })
	_, err := c.EmbedText(context.Background(), []string{"door"})
	assertCode(t, err, foley.Unavailable, url, "CLAP server", "not reachable", "FOLEY_CLAP_URL", "infinity_emb")
	dir := t.TempDir()
	path := filepath.Join(dir, "a.wav")
	writeTone(t, path, 48000, 1, 0.5, 440)
	_, err = c.EmbedAudio(context.Background(), []string{path})
	assertCode(t, err, foley.Unavailable, url, "not reachable")
	assertCode(t, c.Init(context.Background()), foley.Unavailable, "not reachable")
}

func TestCLAPRejected(t *testing.T) {
	f := newFake(t)
	f.model = "laion/clap-htsat-unfused"
	f.apiKey = "right"
	srv := startFake(t, f)

	// A model the server does not serve: Infinity's 400, quoted, not retried.
	c := testCLAP(t, srv.URL, func(cfg *CLAPConfig) { cfg.APIKey = "right" })
	_, err := c.EmbedText(context.Background(), []string{"door"})
	assertCode(t, err, foley.Invalid, "400", `"Invalid model: laion/larger_clap_general, available models: [laion/clap-htsat-unfused]"`)
	if f.count() != 1 {
		t.Errorf("%d attempts for a 400, want 1", f.count())
	}
	// A wrong key.
	c = testCLAP(t, srv.URL, func(cfg *CLAPConfig) { cfg.APIKey = "wrong"; cfg.Model = f.model })
	_, err = c.EmbedText(context.Background(), []string{"door"})
	assertCode(t, err, foley.Unavailable, "401", "Invalid bearer token", "FOLEY_CLAP_API_KEY")
	// A URL that is not the base URL.
	c = testCLAP(t, srv.URL+"/v1", func(cfg *CLAPConfig) { cfg.APIKey = "right"; cfg.Model = f.model })
	_, err = c.EmbedText(context.Background(), []string{"door"})
	assertCode(t, err, foley.Unavailable, "404", "base URL")
}

// block waits for the client to go away (or 10 s). It reads the body
// first: the server notices a closed connection only after that.
func block(r *http.Request) {
	io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
}

func TestCLAPContextCancel(t *testing.T) {
	f := newFake(t)
	f.hook = func(w http.ResponseWriter, r *http.Request, n int) bool {
		block(r)
		return true
	}
	c := testCLAP(t, startFake(t, f).URL)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.EmbedText(ctx, []string{"door"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled during a request: %v", err)
	}
	if time.Since(start) > 3*time.Second {
		t.Errorf("returned %s after the cancel", time.Since(start))
	}

	// Cancelled while waiting to retry.
	f2 := newFake(t)
	f2.hook = func(w http.ResponseWriter, r *http.Request, n int) bool {
		w.Header().Set("Retry-After", "30")
		openAIError(w, http.StatusServiceUnavailable, "busy")
		return true
	}
	c = testCLAP(t, startFake(t, f2).URL)
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start = time.Now()
	_, err = c.EmbedText(ctx, []string{"door"})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 3*time.Second {
		t.Errorf("cancelled during the backoff: %v after %s", err, time.Since(start))
	}
	if f2.count() != 1 {
		t.Errorf("%d attempts, want 1", f2.count())
	}

	// Already cancelled: audio sends nothing.
	path := filepath.Join(t.TempDir(), "a.wav")
	writeTone(t, path, 48000, 1, 0.5, 440)
	_, err = c.EmbedAudio(ctx, []string{path})
	if !errors.Is(err, context.Canceled) || f2.count() != 1 {
		t.Errorf("audio with a cancelled context: %v, %d requests", err, f2.count())
	}
}

func TestCLAPTimeout(t *testing.T) {
	f := newFake(t)
	f.hook = func(w http.ResponseWriter, r *http.Request, n int) bool {
		block(r)
		return true
	}
	c := testCLAP(t, startFake(t, f).URL, func(cfg *CLAPConfig) { cfg.Timeout = 100 * time.Millisecond })
	_, err := c.EmbedText(context.Background(), []string{"door"})
	assertCode(t, err, foley.Unavailable, "did not answer within 100ms")
	if f.count() != 1 {
		t.Errorf("%d attempts after a timeout, want 1", f.count())
	}
}

func TestCLAPBadAnswers(t *testing.T) {
	vec := func(xs ...float32) string {
		var b strings.Builder
		b.WriteString("[")
		for i, x := range xs {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprint(&b, x)
		}
		return b.String() + "]"
	}
	for _, tc := range []struct {
		name, body, says string
	}{
		{"not JSON", `<html>oops</html>`, "not an embeddings answer"},
		{"too few", `{"data":[{"embedding":` + vec(1, 0) + `,"index":0}]}`, "1 embeddings for 2 inputs"},
		{"index twice", `{"data":[{"embedding":` + vec(1, 0) + `,"index":0},{"embedding":` + vec(0, 1) + `,"index":0}]}`, "twice"},
		{"index out of range", `{"data":[{"embedding":` + vec(1, 0) + `,"index":0},{"embedding":` + vec(0, 1) + `,"index":2}]}`, "out of range"},
		{"dimensions differ", `{"data":[{"embedding":` + vec(1, 0) + `,"index":0},{"embedding":` + vec(0, 1, 0) + `,"index":1}]}`, "2 and 3 numbers"},
		{"zero vector", `{"data":[{"embedding":` + vec(1, 0) + `,"index":0},{"embedding":` + vec(0, 0) + `,"index":1}]}`, "zero"},
		{"empty vector", `{"data":[{"embedding":[],"index":0},{"embedding":[],"index":1}]}`, "empty"},
		{"overflow", `{"data":[{"embedding":[1e39,0],"index":0},{"embedding":[0,1],"index":1}]}`, "not finite"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.hook = func(w http.ResponseWriter, r *http.Request, n int) bool {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, tc.body)
				return true
			}
			c := testCLAP(t, startFake(t, f).URL)
			_, err := c.EmbedText(context.Background(), []string{"a", "b"})
			assertCode(t, err, foley.Unavailable, "bad answer", tc.says)
			if c.Dim() != 0 {
				t.Errorf("a bad answer set Dim to %d", c.Dim())
			}
		})
	}
}

func TestCLAPBase64Answer(t *testing.T) {
	// An answer in encoding_format "base64" (a proxy that ignores "float")
	// still reads; without index fields, order is position.
	enc := func(v ...float32) string {
		b := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
		return base64.StdEncoding.EncodeToString(b)
	}
	f := newFake(t)
	f.hook = func(w http.ResponseWriter, r *http.Request, n int) bool {
		fmt.Fprintf(w, `{"object":"list","data":[{"object":"embedding","embedding":%q},{"object":"embedding","embedding":%q}],"model":"m"}`,
			enc(3, 4), enc(0, -2))
		return true
	}
	c := testCLAP(t, startFake(t, f).URL)
	got, err := c.EmbedText(context.Background(), []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	assertVector(t, "a", got[0], []float32{0.6, 0.8})
	assertVector(t, "b", got[1], []float32{0, -1})
}

func TestCLAPConcurrent(t *testing.T) {
	f := newFake(t)
	c := testCLAP(t, startFake(t, f).URL)
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			text := fmt.Sprintf("sound %d", g)
			got, err := c.EmbedText(context.Background(), []string{text})
			if err != nil {
				t.Error(err)
				return
			}
			if Cosine(got[0], fakeVector(text, f.dim)) < 0.9999 {
				t.Errorf("goroutine %d got another vector", g)
			}
		})
	}
	wg.Wait()
	if c.Dim() != f.dim {
		t.Errorf("Dim = %d", c.Dim())
	}
}

func TestBackoff(t *testing.T) {
	c, _ := NewCLAP(CLAPConfig{URL: "http://x", BackoffBase: 100 * time.Millisecond, BackoffMax: time.Second})
	for attempt, full := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 4: 800 * time.Millisecond, 5: time.Second, 30: time.Second} {
		for range 20 {
			if d := c.policy.Backoff(attempt); d < full/2 || d > full {
				t.Errorf("backoff after attempt %d = %s, want %s..%s", attempt, d, full/2, full)
			}
		}
	}
}

func TestLocalPath(t *testing.T) {
	for in, want := range map[string]string{
		"sounds/door.wav":               "sounds/door.wav",
		"/abs/door.wav":                 "/abs/door.wav",
		"file:///abs/door%20slam.wav":   "/abs/door slam.wav",
		"file://localhost/abs/door.wav": "/abs/door.wav",
	} {
		if got, err := localPath(in); err != nil || got != want {
			t.Errorf("localPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
