package elevenlabs

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/audio"
	"github.com/foley-audio/foley/obs"
)

// newGen returns a generator on the fake, with short backoffs.
func newGen(t *testing.T, f *fakeAPI, base string, edit ...func(*Config)) *Generator {
	t.Helper()
	cfg := Config{APIKey: f.apiKey, BaseURL: base, BackoffBase: time.Millisecond, BackoffMax: 4 * time.Millisecond}
	for _, e := range edit {
		e(&cfg)
	}
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func wantCode(t *testing.T, err error, code foley.ErrorCode, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", code)
	}
	if got := foley.CodeOf(err); got != code {
		t.Errorf("code %s, want %s: %v", got, code, err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
}

func TestGenerate(t *testing.T) {
	f, srv := newFake(t)
	g := newGen(t, f, srv.URL+"/")
	u := &obs.Usage{}
	ctx := obs.WithUsage(context.Background(), u)
	clip, err := g.Generate(ctx, foley.GenerateRequest{
		Prompt: "a heavy wooden door slams shut", DurationS: 2.5, PromptInfluence: new(0.7), Loop: true, Seed: new(int64(42)),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(clip.Audio, f.mp3) {
		t.Errorf("audio is %d bytes, not the %d the API sent", len(clip.Audio), len(f.mp3))
	}
	if clip.Format != "mp3" || clip.Generator != "elevenlabs/eleven_text_to_sound_v2" ||
		clip.Prompt != "a heavy wooden door slams shut" || clip.Seed != nil {
		t.Errorf("clip = %+v", clip)
	}
	l := clip.License
	if l.Source != "elevenlabs" || l.LicenseID != "ElevenLabs-SFX" || !l.IsAIGenerated || !l.RightsVerified ||
		l.Generator != clip.Generator || l.GenerationPrompt != clip.Prompt || l.Title != clip.Prompt || l.GenerationSeed != nil {
		t.Errorf("license = %+v", l)
	}
	if !l.CommercialOK || !l.DerivativeOK || l.RedistributeOK || l.TrainOK {
		t.Errorf("license flags not from the table: %+v", l)
	}

	d, err := audio.NewDecoder(bytes.NewReader(clip.Audio))
	if err != nil {
		t.Fatal(err)
	}
	c, err := audio.ReadAll(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	if c.SampleRate != 44100 || c.Frames() == 0 {
		t.Errorf("decoded %d frames at %d Hz", c.Frames(), c.SampleRate)
	}

	reqs := f.log()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	var text, model string
	var dur, infl float64
	var loop bool
	field(t, r, "text", &text)
	field(t, r, "model_id", &model)
	if !field(t, r, "duration_seconds", &dur) || !field(t, r, "prompt_influence", &infl) || !field(t, r, "loop", &loop) {
		t.Fatalf("fields missing: %v", r.Body)
	}
	if text != clip.Prompt || model != DefaultModel || dur != 2.5 || infl != 0.7 || !loop || r.OutputFormat != DefaultOutputFormat {
		t.Errorf("request = %+v", r)
	}
	if _, ok := r.Body["seed"]; ok {
		t.Error("a seed was sent")
	}
	if tot := u.Totals(); tot.Calls != 1 || tot.Failed != 0 {
		t.Errorf("usage %+v", tot)
	}
}

func TestGenerateDefaultsOmitted(t *testing.T) {
	f, srv := newFake(t)
	g := newGen(t, f, srv.URL)
	if _, err := g.Generate(context.Background(), foley.GenerateRequest{Prompt: "rain on a tin roof"}); err != nil {
		t.Fatal(err)
	}
	r := f.log()[0]
	for _, k := range []string{"duration_seconds", "prompt_influence", "loop"} {
		if _, ok := r.Body[k]; ok {
			t.Errorf("%s sent: %s", k, r.Body[k])
		}
	}
}

func TestGenerateModel(t *testing.T) {
	f, srv := newFake(t)
	g := newGen(t, f, srv.URL, func(c *Config) { c.Model = "eleven_sfx_v3"; c.OutputFormat = "mp3_44100_128" })
	if g.Name() != "elevenlabs:eleven_sfx_v3" {
		t.Errorf("Name = %q", g.Name())
	}
	clip, err := g.Generate(context.Background(), foley.GenerateRequest{Prompt: "a whoosh"})
	if err != nil {
		t.Fatal(err)
	}
	var model string
	field(t, f.log()[0], "model_id", &model)
	if model != "eleven_sfx_v3" || clip.Generator != "elevenlabs/eleven_sfx_v3" || clip.License.Generator != clip.Generator {
		t.Errorf("model %q, clip %q", model, clip.Generator)
	}
}

func TestName(t *testing.T) {
	g, err := New(Config{APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if g.Name() != "elevenlabs:eleven_text_to_sound_v2" || g.Model() != DefaultModel {
		t.Errorf("Name %q Model %q", g.Name(), g.Model())
	}
	if g.endpoint != "https://api.elevenlabs.io/v1/sound-generation?output_format=mp3_44100_128" {
		t.Errorf("endpoint %q", g.endpoint)
	}
	if g.policy.Attempts != DefaultMaxRetries+1 || g.timeout != DefaultTimeout {
		t.Errorf("attempts %d timeout %s", g.policy.Attempts, g.timeout)
	}
}

func TestNewInvalid(t *testing.T) {
	for name, cfg := range map[string]Config{
		"no key":         {},
		"key with space": {APIKey: "sk 123"},
		"bad URL":        {APIKey: "k", BaseURL: "api.elevenlabs.io"},
		"ftp URL":        {APIKey: "k", BaseURL: "ftp://api.elevenlabs.io"},
		"URL with query": {APIKey: "k", BaseURL: "https://api.elevenlabs.io/?x=1"},
		"model":          {APIKey: "k", Model: "eleven text"},
		"pcm":            {APIKey: "k", OutputFormat: "pcm_44100"},
		"opus":           {APIKey: "k", OutputFormat: "opus_48000_128"},
		"timeout":        {APIKey: "k", Timeout: -time.Second},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := New(cfg)
			wantCode(t, err, foley.Invalid, "ElevenLabs")
			if cfg.APIKey != "" && cfg.APIKey != "k" && strings.Contains(err.Error(), cfg.APIKey) {
				t.Errorf("error quotes the key: %v", err)
			}
		})
	}
}

func TestGenerateRejectedLocally(t *testing.T) {
	f, srv := newFake(t)
	g := newGen(t, f, srv.URL)
	u := &obs.Usage{}
	ctx := obs.WithUsage(context.Background(), u)
	for name, req := range map[string]foley.GenerateRequest{
		"empty prompt":     {},
		"blank prompt":     {Prompt: " \n\t"},
		"too short":        {Prompt: "x", DurationS: 0.4},
		"too long":         {Prompt: "x", DurationS: 30.5},
		"negative":         {Prompt: "x", DurationS: -1},
		"NaN duration":     {Prompt: "x", DurationS: math.NaN()},
		"Inf duration":     {Prompt: "x", DurationS: math.Inf(1)},
		"influence < 0":    {Prompt: "x", PromptInfluence: new(-0.1)},
		"influence > 1":    {Prompt: "x", PromptInfluence: new(1.1)},
		"NaN influence":    {Prompt: "x", PromptInfluence: new(math.NaN())},
		"loop, bad length": {Prompt: "x", Loop: true, DurationS: 31},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := g.Generate(ctx, req)
			wantCode(t, err, foley.Invalid)
		})
	}
	if n := f.count(); n != 0 {
		t.Errorf("%d requests reached the API", n)
	}
	if c := u.Totals().Calls; c != 0 {
		t.Errorf("%d calls counted", c)
	}
	// The edges are allowed.
	for _, req := range []foley.GenerateRequest{
		{Prompt: "x", DurationS: 0.5, PromptInfluence: new(0.0)},
		{Prompt: "x", DurationS: 30, PromptInfluence: new(1.0)},
	} {
		if _, err := g.Generate(ctx, req); err != nil {
			t.Errorf("%+v: %v", req, err)
		}
	}
}

func TestRetryAfter429(t *testing.T) {
	f, srv := newFake(t)
	f.hook = func(w http.ResponseWriter, r *http.Request, n int) bool {
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			apiError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "Too many requests")
			return true
		}
		return false
	}
	// A long backoff: the Retry-After of 0 must replace it.
	g := newGen(t, f, srv.URL, func(c *Config) { c.BackoffBase = time.Hour; c.BackoffMax = time.Hour })
	start := time.Now()
	if _, err := g.Generate(context.Background(), foley.GenerateRequest{Prompt: "a dog barks"}); err != nil {
		t.Fatal(err)
	}
	if f.count() != 2 || len(f.log()) != 1 {
		t.Errorf("%d requests, %d valid", f.count(), len(f.log()))
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s: Retry-After was not honoured", d)
	}
}

func TestRetryAfterTooLong(t *testing.T) {
	f, srv := newFake(t)
	f.hook = func(w http.ResponseWriter, r *http.Request, n int) bool {
		w.Header().Set("Retry-After", "3600")
		apiError(w, http.StatusTooManyRequests, "concurrent_limit_exceeded", "Too many concurrent requests")
		return true
	}
	g := newGen(t, f, srv.URL)
	_, err := g.Generate(context.Background(), foley.GenerateRequest{Prompt: "a dog barks"})
	wantCode(t, err, foley.Unavailable, "429", "Too many concurrent requests", "concurrent_limit_exceeded", "retry after 1h0m0s")
	if f.count() != 1 {
		t.Errorf("%d requests", f.count())
	}
}

func TestGiveUp500(t *testing.T) {
	f, srv := newFake(t)
	f.hook = func(w http.ResponseWriter, r *http.Request, n int) bool {
		apiError(w, http.StatusInternalServerError, "internal_error", "Something went wrong on our side")
		return true
	}
	u := &obs.Usage{}
	g := newGen(t, f, srv.URL, func(c *Config) { c.MaxRetries = 2 })
	_, err := g.Generate(obs.WithUsage(context.Background(), u), foley.GenerateRequest{Prompt: "thunder"})
	wantCode(t, err, foley.Unavailable, "500 Internal Server Error", "Something went wrong on our side", "gave up after 3 attempts", srv.URL)
	if f.count() != 3 {
		t.Errorf("%d requests, want 3", f.count())
	}
	if tot := u.Totals(); tot.Calls != 1 || tot.Failed != 1 {
		t.Errorf("usage %+v", tot)
	}

	// No retries at all.
	f2, srv2 := newFake(t)
	f2.hook = f.hook
	g = newGen(t, f2, srv2.URL, func(c *Config) { c.MaxRetries = -1 })
	_, err = g.Generate(context.Background(), foley.GenerateRequest{Prompt: "thunder"})
	wantCode(t, err, foley.Unavailable, "500")
	if f2.count() != 1 {
		t.Errorf("%d requests, want 1", f2.count())
	}
}

func TestUnauthorized(t *testing.T) {
	f, srv := newFake(t)
	g := newGen(t, f, srv.URL, func(c *Config) { c.APIKey = "sk_wrong_key_abcdef" })
	_, err := g.Generate(context.Background(), foley.GenerateRequest{Prompt: "a dog barks"})
	wantCode(t, err, foley.Unavailable, "refused the API key", "401", "Invalid API key", "invalid_api_key", "ELEVENLABS_API_KEY")
	if strings.Contains(err.Error(), "sk_wrong_key_abcdef") {
		t.Errorf("error quotes the key: %v", err)
	}
	if f.count() != 1 {
		t.Errorf("%d requests: a 401 was retried", f.count())
	}
}

func TestQuotaExceeded(t *testing.T) {
	f, srv := newFake(t)
	f.hook = func(w http.ResponseWriter, r *http.Request, n int) bool {
		apiError(w, http.StatusUnauthorized, "quota_exceeded", "You have insufficient quota to complete this request")
		return true
	}
	g := newGen(t, f, srv.URL)
	_, err := g.Generate(context.Background(), foley.GenerateRequest{Prompt: "a dog barks"})
	wantCode(t, err, foley.Unavailable, "insufficient quota", "credits are used up")
}

func TestRejected(t *testing.T) {
	f, srv := newFake(t)
	g := newGen(t, f, srv.URL, func(c *Config) { c.Model = "no-such-model" })
	f.hook = func(w http.ResponseWriter, r *http.Request, n int) bool {
		switch n {
		case 1: // FastAPI validation error
			validationError(w, []any{"body", "model_id"}, "Input should be a supported sound model")
		case 2: // the current error shape
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"detail":{"type":"validation_error","code":"invalid_parameters",` +
				`"message":"Looping is only supported by eleven_text_to_sound_v2.","status":"invalid_parameters",` +
				`"request_id":"3c807fc4","param":"loop"}}`))
		case 3:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"detail":"Bad request: text too long"}`))
		}
		return true
	}
	_, err := g.Generate(context.Background(), foley.GenerateRequest{Prompt: "x"})
	wantCode(t, err, foley.Invalid, "422", "Input should be a supported sound model (at body.model_id)", `model "no-such-model"`)
	_, err = g.Generate(context.Background(), foley.GenerateRequest{Prompt: "x", Loop: true})
	wantCode(t, err, foley.Invalid, "400 Bad Request", "Looping is only supported", "invalid_parameters", "parameter loop")
	_, err = g.Generate(context.Background(), foley.GenerateRequest{Prompt: "x"})
	wantCode(t, err, foley.Invalid, "text too long")
	if f.count() != 3 {
		t.Errorf("%d requests: a 4xx was retried", f.count())
	}
}

func TestWrongBaseURL(t *testing.T) {
	f, srv := newFake(t)
	g := newGen(t, f, srv.URL+"/api")
	_, err := g.Generate(context.Background(), foley.GenerateRequest{Prompt: "x"})
	wantCode(t, err, foley.Unavailable, "404", "/v1/sound-generation", "ELEVENLABS_BASE_URL")
}

func TestTimeout(t *testing.T) {
	f, srv := newFake(t)
	f.hook = func(w http.ResponseWriter, r *http.Request, n int) bool {
		io.Copy(io.Discard, r.Body) // so that the server notices the client leave
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		return true
	}
	g := newGen(t, f, srv.URL, func(c *Config) { c.Timeout = 50 * time.Millisecond })
	_, err := g.Generate(context.Background(), foley.GenerateRequest{Prompt: "x"})
	wantCode(t, err, foley.Unavailable, "did not answer within 50ms")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v is not a deadline", err)
	}
	if f.count() != 1 {
		t.Errorf("%d requests: a timed-out attempt was retried", f.count())
	}
}

func TestContextCancel(t *testing.T) {
	f, srv := newFake(t)
	ctx, cancel := context.WithCancel(context.Background())
	f.hook = func(w http.ResponseWriter, r *http.Request, n int) bool {
		cancel()
		w.Header().Set("Retry-After", "30")
		apiError(w, http.StatusServiceUnavailable, "service_unavailable", "busy")
		return true
	}
	g := newGen(t, f, srv.URL)
	_, err := g.Generate(ctx, foley.GenerateRequest{Prompt: "x"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}

	// Cancelled while waiting to retry.
	f2, srv2 := newFake(t)
	ctx2, cancel2 := context.WithCancel(context.Background())
	f2.hook = func(w http.ResponseWriter, r *http.Request, n int) bool {
		time.AfterFunc(20*time.Millisecond, cancel2)
		w.Header().Set("Retry-After", "30")
		apiError(w, http.StatusServiceUnavailable, "service_unavailable", "busy")
		return true
	}
	g = newGen(t, f2, srv2.URL)
	start := time.Now()
	_, err = g.Generate(ctx2, foley.GenerateRequest{Prompt: "x"})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 10*time.Second {
		t.Fatalf("err = %v after %s", err, time.Since(start))
	}
}

func TestServerDown(t *testing.T) {
	f, srv := newFake(t)
	base := srv.URL
	srv.Close()
	g := newGen(t, f, base, func(c *Config) { c.MaxRetries = 1 })
	_, err := g.Generate(context.Background(), foley.GenerateRequest{Prompt: "x"})
	wantCode(t, err, foley.Unavailable, "not reachable", "gave up after 2 attempts")
}

func TestBadAnswers(t *testing.T) {
	mp3, err := os.ReadFile(fixtureMP3)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		ct   string
		body string
		says string
	}{
		"HTML":            {"text/html; charset=utf-8", "<!DOCTYPE html><html><body>Maintenance</body></html>", "text/html"},
		"JSON":            {"application/json", `{"detail":{"status":"odd","message":"not audio today"}}`, "not audio today"},
		"empty":           {"audio/mpeg", "", "empty"},
		"garbage":         {"audio/mpeg", "this is not an mp3 file at all", "not a sound file"},
		"HTML as audio":   {"audio/mpeg", "<html>oops</html>", "not a sound file"},
		"truncated frame": {"audio/mpeg", string(mp3[:8]), "mp3"},
		"ID3 only":        {"audio/mpeg", "ID3\x03\x00\x00\x00\x00\x00\x00", ""},
	} {
		t.Run(name, func(t *testing.T) {
			f, srv := newFake(t)
			f.hook = func(w http.ResponseWriter, r *http.Request, n int) bool {
				w.Header().Set("Content-Type", tc.ct)
				w.Write([]byte(tc.body))
				return true
			}
			g := newGen(t, f, srv.URL)
			_, err := g.Generate(context.Background(), foley.GenerateRequest{Prompt: "x"})
			wantCode(t, err, foley.Unavailable, "bad answer", tc.says)
			if f.count() != 1 {
				t.Errorf("%d requests", f.count())
			}
		})
	}
}

func TestOtherAudioAnswers(t *testing.T) {
	// An ID3-tagged MP3 sent as application/octet-stream, as the API's
	// OpenAPI description declares the answer, is accepted.
	id3, err := os.ReadFile("../audio/testdata/mp3_id3.mp3")
	if err != nil {
		t.Fatal(err)
	}
	f, srv := newFake(t)
	f.hook = func(w http.ResponseWriter, r *http.Request, n int) bool {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(id3)
		return true
	}
	g := newGen(t, f, srv.URL)
	clip, err := g.Generate(context.Background(), foley.GenerateRequest{Prompt: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if clip.Format != "mp3" || !bytes.Equal(clip.Audio, id3) {
		t.Errorf("format %q, %d bytes", clip.Format, len(clip.Audio))
	}
}

func TestConcurrent(t *testing.T) {
	f, srv := newFake(t)
	g := newGen(t, f, srv.URL)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = g.Generate(context.Background(), foley.GenerateRequest{Prompt: "a bell rings", DurationS: 1})
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if len(f.log()) != len(errs) {
		t.Errorf("%d requests", len(f.log()))
	}
}

func TestBackoff(t *testing.T) {
	g, err := New(Config{APIKey: "k", BackoffBase: 100 * time.Millisecond, BackoffMax: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for attempt, top := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 4: 800 * time.Millisecond, 9: time.Second} {
		for range 20 {
			if d := g.policy.Backoff(attempt); d < top/2 || d > top {
				t.Errorf("backoffFor(%d) = %s, want %s..%s", attempt, d, top/2, top)
			}
		}
	}
}
