package openai

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/verify"
)

var doorEvent = foley.NewEvent("a heavy wooden door slams shut")

func candidate(uri string) foley.Candidate {
	return foley.Candidate{Sound: foley.SoundRecord{ID: "door-1", URI: uri, Caption: "wooden door slam", Tags: []string{"door", "slam"}}}
}

func newAudioJudge(t *testing.T, f *fakeServer, mod func(*AudioLMConfig)) *AudioLMJudge {
	t.Helper()
	cfg := AudioLMConfig{BaseURL: f.Base(), APIKey: f.APIKey, MaxRetries: 2, Timeout: 5 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	j, err := NewAudioLMJudge(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// failJudge runs the judge expecting an error with code, and checks that
// no verdict came with it.
func failJudge(t *testing.T, j foley.Judge, c foley.Candidate, code foley.ErrorCode, wants ...string) error {
	t.Helper()
	v, err := j.Judge(context.Background(), doorEvent, c, foley.LevelListen)
	if err == nil {
		t.Fatalf("Judge = %+v, want an error", v)
	}
	if v != (foley.Verdict{}) {
		t.Errorf("Judge returned verdict %+v with its error; want the zero verdict", v)
	}
	t.Logf("error: %v", err)
	if got := foley.CodeOf(err); got != code {
		t.Errorf("error code %s, want %s (error: %v)", got, code, err)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
	return err
}

func TestAudioLMMatch(t *testing.T) {
	// P(yes) summed over "Yes", " yes" and "YES." = 0.6 + 0.1 + 0.05 = 0.75;
	// P(no) over "No" and " no" = 0.15 + 0.05 = 0.2; "Maybe" counts for
	// neither. AQAScore = 0.75 / 0.95.
	lp := logprobs(alt{"Yes", 0.6}, alt{"Yes", 0.6}, alt{"No", 0.15}, alt{" yes", 0.1}, alt{"YES.", 0.05}, alt{" no", 0.05}, alt{"Maybe", 0.03})
	f := newFake(t, "audio", answerWith(completion(DefaultAudioLMModel, "Yes", lp, "length", true)))
	f.APIKey = "secret-token"
	f.wantPrompt = verify.ListenPrompt(doorEvent)
	j := newAudioJudge(t, f, nil)

	// 48 kHz stereo, 2 s: the judge must send 16 kHz mono.
	path := filepath.Join(t.TempDir(), "stereo.wav")
	writeWAV(t, path, 48000, 2, 2)
	v, err := j.Judge(context.Background(), doorEvent, candidate(path), foley.LevelListen)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.75 / 0.95
	if !v.Match || math.Abs(v.Confidence-want) > 1e-9 {
		t.Errorf("verdict %+v, want a match with confidence %.6f", v, want)
	}
	if v.Level != foley.LevelListen || v.Judge != "audiolm:"+DefaultAudioLMModel {
		t.Errorf("level %v judge %q", v.Level, v.Judge)
	}
	wantReason := fmt.Sprintf("%s: P(yes)=0.789 vs tau=0.5 (AQAScore over the first token's top logprobs)", DefaultAudioLMModel)
	if v.Reason != wantReason {
		t.Errorf("reason %q, want %q", v.Reason, wantReason)
	}
	if got := binary.LittleEndian.Uint32(f.lastWAV()[40:]); got < 2*16000*2-4 || got > 2*16000*2+4 {
		t.Errorf("WAV data is %d bytes, want 2 s at 16 kHz mono 16-bit (%d)", got, 2*16000*2)
	}
}

func TestAudioLMHearsTheFirst30Seconds(t *testing.T) {
	lp := logprobs(alt{"Yes", 0.9}, alt{"Yes", 0.9}, alt{"No", 0.1})
	f := newFake(t, "audio", answerWith(completion(DefaultAudioLMModel, "Yes", lp, "length", true)))
	path := filepath.Join(t.TempDir(), "long.wav")
	writeWAV(t, path, 16000, 1, 40)
	if _, err := newAudioJudge(t, f, nil).Judge(context.Background(), doorEvent, candidate(path), foley.LevelListen); err != nil {
		t.Fatal(err)
	}
	if got := binary.LittleEndian.Uint32(f.lastWAV()[40:]); got != 30*16000*2 {
		t.Errorf("WAV data is %d bytes, want 30 s at 16 kHz mono 16-bit (%d)", got, 30*16000*2)
	}
}

func TestAudioLMNoMatch(t *testing.T) {
	lp := logprobs(alt{"No", 0.7}, alt{"No", 0.7}, alt{"Yes", 0.2}, alt{" no", 0.05})
	f := newFake(t, "audio", answerWith(completion(DefaultAudioLMModel, "No", lp, "length", true)))
	t.Setenv("OPENAI_API_KEY", "sk-must-not-leak") // the fake demands no Authorization header
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	j := newAudioJudge(t, f, func(c *AudioLMConfig) { c.Tau = 0.25 })
	v, err := j.Judge(context.Background(), doorEvent, candidate("file://"+shortWAV(t)), foley.LevelJudge)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.2 / 0.95
	if v.Match || math.Abs(v.Confidence-want) > 1e-9 {
		t.Errorf("verdict %+v, want no match with confidence %.6f", v, want)
	}
	if v.Level != foley.LevelJudge || !strings.Contains(v.Reason, "P(yes)=0.211 vs tau=0.25") {
		t.Errorf("verdict %+v", v)
	}
	if f.count() != 1 {
		t.Errorf("%d requests, want 1", f.count())
	}
}

func TestAudioLMTextFallback(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		lp      map[string]any
		match   bool
		why     string
	}{
		{"no logprobs yes", "Yes.", nil, true, "the answer has no logprobs"},
		{"no logprobs no", " no", nil, false, "the answer has no logprobs"},
		{"empty logprobs", "YES", map[string]any{"content": []any{}}, true, "the answer has no logprobs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, "audio", answerWith(completion(DefaultAudioLMModel, tc.content, tc.lp, "length", false)))
			j := newAudioJudge(t, f, nil)
			v, err := j.Judge(context.Background(), doorEvent, candidate(shortWAV(t)), foley.LevelListen)
			if err != nil {
				t.Fatal(err)
			}
			conf := 0.0
			if tc.match {
				conf = 1
			}
			if v.Match != tc.match || v.Confidence != conf {
				t.Errorf("verdict %+v, want match %v confidence %g", v, tc.match, conf)
			}
			if !strings.Contains(v.Reason, tc.why) || !strings.Contains(v.Reason, "text answer") {
				t.Errorf("reason %q does not say it fell back to the text answer (%s)", v.Reason, tc.why)
			}
		})
	}
}

func TestAudioLMNeitherYesNorNo(t *testing.T) {
	t.Run("logprobs", func(t *testing.T) {
		lp := logprobs(alt{"Sure", 0.5}, alt{"Sure", 0.5}, alt{"Maybe", 0.3})
		f := newFake(t, "audio", answerWith(completion(DefaultAudioLMModel, "Sure", lp, "length", true)))
		failJudge(t, newAudioJudge(t, f, nil), candidate(shortWAV(t)), foley.Unavailable, `"Sure"`, "neither yes nor no is among the first token's top logprobs")
	})
	t.Run("text", func(t *testing.T) {
		f := newFake(t, "audio", answerWith(completion(DefaultAudioLMModel, "Perhaps", nil, "length", true)))
		failJudge(t, newAudioJudge(t, f, nil), candidate(shortWAV(t)), foley.Unavailable, `"Perhaps"`, "neither yes nor no", "no logprobs")
	})
	t.Run("no choices", func(t *testing.T) {
		c := completion(DefaultAudioLMModel, "", nil, "stop", true)
		c["choices"] = []any{}
		f := newFake(t, "audio", answerWith(c))
		failJudge(t, newAudioJudge(t, f, nil), candidate(shortWAV(t)), foley.Unavailable, "no choices")
	})
}

func TestAudioLMRetriesTooManyRequests(t *testing.T) {
	lp := logprobs(alt{"Yes", 0.9}, alt{"Yes", 0.9}, alt{"No", 0.1})
	f := newFake(t, "audio", func(w http.ResponseWriter, n int) {
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": map[string]any{"message": "slow down", "type": "rate_limit", "code": 429}})
			return
		}
		writeJSON(w, http.StatusOK, completion(DefaultAudioLMModel, "Yes", lp, "length", true))
	})
	v, err := newAudioJudge(t, f, nil).Judge(context.Background(), doorEvent, candidate(shortWAV(t)), foley.LevelListen)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Match || math.Abs(v.Confidence-0.9) > 1e-9 {
		t.Errorf("verdict %+v", v)
	}
	if f.count() != 2 {
		t.Errorf("%d requests, want 2", f.count())
	}
}

func TestAudioLMOverloaded(t *testing.T) {
	f := newFake(t, "audio", func(w http.ResponseWriter, _ int) {
		w.Header().Set("Retry-After", "0")
		writeJSON(w, 529, map[string]any{"error": map[string]any{"message": "overloaded", "type": "overloaded_error"}})
	})
	failJudge(t, newAudioJudge(t, f, nil), candidate(shortWAV(t)), foley.Unavailable,
		"audio LM at "+f.Base(), "529", "after 3 attempts", `"overloaded"`)
	if f.count() != 3 {
		t.Errorf("%d requests, want 3 (MaxRetries 2)", f.count())
	}
}

func TestAudioLMServerError(t *testing.T) {
	// vLLM's older error shape, which the SDK does not parse.
	f := newFake(t, "audio", func(w http.ResponseWriter, _ int) {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"object": "error", "message": "CUDA out of memory", "type": "InternalServerError", "param": nil, "code": 500})
	})
	failJudge(t, newAudioJudge(t, f, func(c *AudioLMConfig) { c.MaxRetries = -1 }), candidate(shortWAV(t)), foley.Unavailable,
		"500 Internal Server Error", "CUDA out of memory")
	if f.count() != 1 {
		t.Errorf("%d requests, want 1 (no retries)", f.count())
	}
}

func TestAudioLMRejected(t *testing.T) {
	f := newFake(t, "audio", func(w http.ResponseWriter, _ int) {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": "This model's maximum context length is 8192 tokens", "type": "BadRequestError", "code": 400}})
	})
	failJudge(t, newAudioJudge(t, f, nil), candidate(shortWAV(t)), foley.Invalid, "400 Bad Request", "maximum context length")
	if f.count() != 1 {
		t.Errorf("%d requests, want 1: a 400 is not retried", f.count())
	}
}

func TestAudioLMUnauthorized(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"message": "Unauthorized", "code": 401}})
	}))
	defer srv.Close()
	j, err := NewAudioLMJudge(AudioLMConfig{BaseURL: srv.URL + "/v1", APIKey: "wrong"})
	if err != nil {
		t.Fatal(err)
	}
	failJudge(t, j, candidate(shortWAV(t)), foley.Unavailable, "401 Unauthorized", EnvAudioLMAPIKey)
}

func TestAudioLMTimeout(t *testing.T) {
	release := make(chan struct{})
	f := newFake(t, "audio", func(w http.ResponseWriter, _ int) {
		select {
		case <-release:
		case <-time.After(2 * time.Second):
		}
		writeJSON(w, http.StatusOK, completion(DefaultAudioLMModel, "Yes", nil, "length", true))
	})
	t.Cleanup(func() { close(release) }) // runs before the server closes
	j := newAudioJudge(t, f, func(c *AudioLMConfig) { c.Timeout = 100 * time.Millisecond })
	start := time.Now()
	failJudge(t, j, candidate(shortWAV(t)), foley.Unavailable, "did not answer within 100ms")
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("the judge took %s despite a 100ms timeout", d)
	}
	if f.count() != 1 {
		t.Errorf("%d requests, want 1: a timed-out attempt is not retried", f.count())
	}
}

func TestAudioLMMalformedAnswer(t *testing.T) {
	for name, body := range map[string]string{
		"truncated JSON": `{"id": "chatcmpl-1", "object": "chat.completion", "choices": [`,
		"not JSON":       `<html>Bad Gateway</html>`,
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, "audio", func(w http.ResponseWriter, _ int) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(body))
			})
			failJudge(t, newAudioJudge(t, f, nil), candidate(shortWAV(t)), foley.Unavailable, "audio LM at "+f.Base())
		})
	}
}

func TestAudioLMUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL + "/v1"
	srv.Close()
	j, err := NewAudioLMJudge(AudioLMConfig{BaseURL: base, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	failJudge(t, j, candidate(shortWAV(t)), foley.Unavailable, "not reachable", base)
	if err := j.Check(context.Background()); foley.CodeOf(err) != foley.Unavailable {
		t.Errorf("Check = %v, want Unavailable", err)
	}
}

func TestAudioLMCancelled(t *testing.T) {
	f := newFake(t, "audio", func(w http.ResponseWriter, _ int) {
		time.Sleep(300 * time.Millisecond)
		writeJSON(w, http.StatusOK, completion(DefaultAudioLMModel, "Yes", nil, "length", true))
	})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	v, err := newAudioJudge(t, f, nil).Judge(ctx, doorEvent, candidate(shortWAV(t)), foley.LevelListen)
	if !errors.Is(err, context.DeadlineExceeded) || v != (foley.Verdict{}) {
		t.Errorf("Judge = %+v, %v; want the context's error and no verdict", v, err)
	}
}

func TestAudioLMClipErrors(t *testing.T) {
	f := newFake(t, "audio", answerWith(completion(DefaultAudioLMModel, "Yes", nil, "length", true)))
	j := newAudioJudge(t, f, nil)
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.wav")
	if err := os.WriteFile(garbage, []byte("this is not a sound file at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.wav")
	failJudge(t, j, candidate(missing), foley.NotFound, missing)
	failJudge(t, j, candidate("file://"+missing), foley.NotFound, "file://"+missing)
	failJudge(t, j, candidate(garbage), foley.Invalid, garbage)
	failJudge(t, j, candidate(""), foley.Invalid, "no sound URI")
	failJudge(t, j, candidate("s3://bucket/door.wav"), foley.Invalid, "s3://bucket/door.wav")
	failJudge(t, j, candidate("https://sounds.example/door.wav"), foley.Invalid,
		"https://sounds.example/door.wav", EnvAudioLMAllowRemote)
	if _, err := j.Judge(context.Background(), foley.NewEvent(" "), candidate(shortWAV(t)), foley.LevelListen); foley.CodeOf(err) != foley.Invalid {
		t.Errorf("empty query: %v, want Invalid", err)
	}
	if f.count() != 0 {
		t.Errorf("the model was asked %d times about clips it could not hear", f.count())
	}
}

func TestAudioLMRemoteClips(t *testing.T) {
	path := shortWAV(t)
	wav, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	clips := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/door.wav":
			w.Header().Set("Content-Type", "audio/wav")
			w.Header().Set("Content-Length", fmt.Sprint(len(wav)))
			w.Write(wav)
		case "/chunked.wav": // no Content-Length: the limit applies while reading
			w.Header().Set("Content-Type", "audio/wav")
			for i := 0; i < len(wav); i += 512 {
				w.Write(wav[i:min(i+512, len(wav))])
				w.(http.Flusher).Flush()
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer clips.Close()
	lp := logprobs(alt{"Yes", 0.8}, alt{"Yes", 0.8}, alt{"No", 0.2})
	f := newFake(t, "audio", answerWith(completion(DefaultAudioLMModel, "Yes", lp, "length", true)))

	j := newAudioJudge(t, f, func(c *AudioLMConfig) { c.AllowRemote = true })
	for _, p := range []string{"/door.wav", "/chunked.wav"} {
		v, err := j.Judge(context.Background(), doorEvent, candidate(clips.URL+p), foley.LevelListen)
		if err != nil || !v.Match {
			t.Errorf("%s: %+v, %v; want a match", p, v, err)
		}
	}
	failJudge(t, j, candidate(clips.URL+"/gone.wav"), foley.NotFound, clips.URL+"/gone.wav")

	small := newAudioJudge(t, f, func(c *AudioLMConfig) { c.AllowRemote = true; c.MaxRemoteBytes = 1000 })
	for _, p := range []string{"/door.wav", "/chunked.wav"} {
		failJudge(t, small, candidate(clips.URL+p), foley.Invalid, clips.URL+p, "limit of 1000 bytes", EnvAudioLMMaxRemoteBytes)
	}
	if err := failJudge(t, small, candidate(clips.URL+"/door.wav"), foley.Invalid); !strings.Contains(err.Error(), fmt.Sprintf("it is %d bytes", len(wav))) {
		t.Errorf("error %q does not give the Content-Length", err)
	}
	if f.count() != 2 {
		t.Errorf("%d model requests, want 2", f.count())
	}
}

func TestAudioLMConcurrent(t *testing.T) {
	lp := logprobs(alt{" Yes", 0.9}, alt{" Yes", 0.9}, alt{" No", 0.1})
	f := newFake(t, "audio", answerWith(completion(DefaultAudioLMModel, " Yes", lp, "length", true)))
	j := newAudioJudge(t, f, nil)
	path := shortWAV(t)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			v, err := j.Judge(context.Background(), doorEvent, candidate(path), foley.LevelListen)
			if err != nil || !v.Match {
				t.Errorf("%+v, %v", v, err)
			}
		})
	}
	wg.Wait()
	if f.count() != 8 {
		t.Errorf("%d requests, want 8", f.count())
	}
}

func TestAudioLMCheck(t *testing.T) {
	f := newFake(t, "audio", answerWith(nil))
	f.APIKey = "k"
	if err := newAudioJudge(t, f, nil).Check(context.Background()); err != nil {
		t.Errorf("Check = %v", err)
	}
	other := newAudioJudge(t, f, func(c *AudioLMConfig) { c.Model = "Qwen/Qwen2.5-Omni-7B" })
	err := other.Check(context.Background())
	if foley.CodeOf(err) != foley.Unavailable {
		t.Fatalf("Check = %v, want Unavailable", err)
	}
	for _, w := range []string{f.Base(), "Qwen/Qwen2.5-Omni-7B", DefaultAudioLMModel} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Check error %q does not mention %q", err, w)
		}
	}
}

func TestAudioLMIdentity(t *testing.T) {
	j, err := NewAudioLMJudge(AudioLMConfig{BaseURL: "http://gpu-box:8000/v1/"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := j.Identity(), "audiolm|Qwen/Qwen2-Audio-7B-Instruct|prompt="+verify.JudgePromptVersion+"|tau=0.5"; got != want {
		t.Errorf("Identity = %q, want %q", got, want)
	}
	if j.Name() != "audiolm:Qwen/Qwen2-Audio-7B-Instruct" || j.BaseURL() != "http://gpu-box:8000/v1" {
		t.Errorf("Name %q BaseURL %q", j.Name(), j.BaseURL())
	}
	j2, _ := NewAudioLMJudge(AudioLMConfig{BaseURL: "http://elsewhere/v1", Tau: 0.7, Model: "m"})
	if j2.Identity() != "audiolm|m|prompt=v1|tau=0.7" {
		t.Errorf("Identity = %q", j2.Identity())
	}
}

func TestNewAudioLMJudgeInvalid(t *testing.T) {
	for _, cfg := range []AudioLMConfig{
		{},
		{BaseURL: "localhost:8000"},
		{BaseURL: "ftp://host/v1"},
		{BaseURL: "http://host/v1", Tau: 1.5},
		{BaseURL: "http://host/v1", Tau: math.NaN()},
		{BaseURL: "http://host/v1", MaxRemoteBytes: -1},
		{BaseURL: "http://host/v1", Timeout: -time.Second},
	} {
		if _, err := NewAudioLMJudge(cfg); foley.CodeOf(err) != foley.Invalid {
			t.Errorf("NewAudioLMJudge(%+v) = %v, want Invalid", cfg, err)
		}
	}
}

func TestNormalizeToken(t *testing.T) {
	for in, want := range map[string]string{
		"Yes": "yes", " yes": "yes", "YES": "yes", "yes.": "yes", "\tYes!\n": "yes",
		"▁Yes": "yes", "ĠNo": "no", " no,": "no", "Nope": "nope", "": "",
	} {
		if got := normalizeToken(in); got != want {
			t.Errorf("normalizeToken(%q) = %q, want %q", in, got, want)
		}
	}
}
