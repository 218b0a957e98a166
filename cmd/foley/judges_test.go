package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foley-audio/foley/audio"
	"github.com/foley-audio/foley/internal/fakeaudiolm"
	"github.com/foley-audio/foley/internal/otlptest"
	"github.com/foley-audio/foley/obs"
	"github.com/foley-audio/foley/verify"
)

const qwen = "Qwen/Qwen2-Audio-7B-Instruct"

// clearJudgeEnv makes the test independent of the judges configured on the
// machine that runs it.
func clearJudgeEnv(t *testing.T) {
	for _, v := range []string{"FOLEY_AUDIOLM_URL", "FOLEY_AUDIOLM_MODEL", "FOLEY_AUDIOLM_API_KEY", "ANTHROPIC_API_KEY",
		"FOLEY_LLM_URL", "FOLEY_LLM_MODEL", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		t.Setenv(v, "")
	}
}

// writeTone writes a seconds-long 440 Hz tone at rate Hz with channels
// channels, as a 16-bit WAV file.
func writeTone(t *testing.T, path string, rate, channels int, seconds float64) {
	t.Helper()
	n := int(seconds * float64(rate))
	c := &audio.Clip{SampleRate: rate, Channels: channels, Samples: make([]float32, n*channels)}
	for i := range n {
		for ch := range channels {
			c.Samples[i*channels+ch] = float32(0.3 * math.Sin(2*math.Pi*440*float64(i)/float64(rate)))
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := c.WriteWAV16(f); err != nil {
		t.Fatal(err)
	}
}

// shortlistFiles writes n WAV clips (distinct lengths, so distinct
// contents) and a shortlist of them, licensed CC0, with clap scores that
// pass; the clips whose index is in doors are captioned as doors.
func shortlistFiles(t *testing.T, dir string, n int) string {
	t.Helper()
	var cands []map[string]any
	for i := range n {
		path := filepath.Join(dir, fmt.Sprintf("clip%02d.wav", i))
		writeTone(t, path, 48000, 2, 0.5+0.01*float64(i))
		cands = append(cands, map[string]any{
			"sound": map[string]any{
				"id": fmt.Sprintf("clip-%02d", i), "uri": path, "caption": "a sound", "tags": []string{"sound"},
				"license": map[string]any{"license_id": "CC0-1.0", "rights_verified": true},
			},
			"origin": "retrieved", "clap_score": 0.6,
		})
	}
	b, _ := json.Marshal(cands)
	list := filepath.Join(dir, "list.json")
	if err := os.WriteFile(list, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return list
}

func TestVerifyWithAudioLM(t *testing.T) {
	clearJudgeEnv(t)
	dir := t.TempDir()
	list := shortlistFiles(t, dir, 3)
	fake := fakeaudiolm.New(t, qwen, fakeaudiolm.Contains("door"))
	rcv := otlptest.New(t)
	t.Setenv("FOLEY_AUDIOLM_URL", fake.BaseURL())
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.URL)
	lib := filepath.Join(dir, "lib", "library.db")

	code, out, errs := foleyRun(t, "", "verify", "a door slams", "-c", list, "--json", "--library", lib)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows := decodeRows(t, out)
	for _, r := range rows {
		v := r.Verdict
		if v == nil || !v.Match || v.Judge != "audiolm:"+qwen || v.Cached || !strings.Contains(v.Reason, "P(yes)") {
			t.Errorf("%s: %+v, want a fresh audiolm match with P(yes) in the reason", r.ID, v)
		}
	}
	if strings.Contains(errs, "string-overlap") {
		t.Errorf("the text-judge note was printed with an audio LM configured: %s", errs)
	}
	if fake.Calls() != 3 {
		t.Errorf("%d calls, want 3", fake.Calls())
	}
	if _, err := os.Stat(lib + ".verdicts"); err != nil {
		t.Errorf("no verdict cache beside the library: %v", err)
	}
	if _, err := os.Stat(lib); err == nil {
		t.Error("verify created a library file")
	}

	// The spans: a verify_match per candidate, each with a model-call child.
	spans := rcv.Spans()
	matches, calls := 0, 0
	parents := map[string]bool{}
	for _, s := range spans {
		if s.Name == verify.SpanVerifyMatch {
			matches++
			parents[s.SpanID] = true
			if s.Attrs[verify.AttrJudge] != "audiolm:"+qwen || s.Attrs[verify.AttrMatch] != true || s.Attrs[verify.AttrLevel] != "listen" {
				t.Errorf("verify_match attributes %v", s.Attrs)
			}
		}
	}
	for _, s := range spans {
		if s.Name != "chat "+qwen {
			continue
		}
		calls++
		if !parents[s.ParentSpanID] {
			t.Errorf("model-call span is not a child of a verify_match span")
		}
		for k, want := range map[string]any{obs.AttrOperation: "chat", obs.AttrProvider: "openai", obs.AttrRequestModel: qwen,
			obs.AttrResponseModel: qwen, obs.AttrServerAddress: "127.0.0.1", obs.AttrOutputTokens: int64(1)} {
			if s.Attrs[k] != want {
				t.Errorf("model-call %s = %#v, want %#v", k, s.Attrs[k], want)
			}
		}
		if _, ok := s.Attrs[obs.AttrInputTokens]; !ok {
			t.Error("no input token count")
		}
	}
	if matches != 3 || calls != 3 {
		t.Errorf("%d verify_match and %d model-call spans, want 3 and 3 (of %d spans)", matches, calls, len(spans))
	}

	// Again: every verdict from the cache, no call.
	code, out, errs = foleyRun(t, "", "verify", "a door slams", "-c", list, "--json", "--library", lib)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, r := range decodeRows(t, out) {
		if r.Verdict == nil || !r.Verdict.Cached || !r.Verdict.Match {
			t.Errorf("second run %s: %+v, want the cached verdict", r.ID, r.Verdict)
		}
	}
	if fake.Calls() != 3 {
		t.Errorf("the second run made %d calls", fake.Calls()-3)
	}
	code, out, _ = foleyRun(t, "", "verify", "a door slams", "-c", list, "--library", lib)
	if code != 0 || !strings.Contains(out, "audiolm:"+qwen+" (cached)") {
		t.Errorf("table does not say cached:\n%s", out)
	}
	// A different event is a different question.
	code, out, _ = foleyRun(t, "", "verify", "a dog barks", "-c", list, "--json", "--library", lib)
	if code != 0 || fake.Calls() != 6 {
		t.Fatalf("exit %d, calls %d", code, fake.Calls())
	}
	for _, r := range decodeRows(t, out) {
		if r.Verdict == nil || r.Verdict.Match || r.Verdict.Cached {
			t.Errorf("dog: %+v, want a fresh non-match", r.Verdict)
		}
	}
	// --no-cache asks again.
	if code, _, errs := foleyRun(t, "", "verify", "a door slams", "-c", list, "--no-cache", "--library", lib); code != 0 || fake.Calls() != 9 {
		t.Errorf("--no-cache: exit %d, calls %d: %s", code, fake.Calls(), errs)
	}

	// The server goes away: errors, exit 1, no match, and nothing cached.
	fake.Close()
	code, out, errs = foleyRun(t, "", "verify", "a window breaks", "-c", list, "--json", "--library", lib)
	if code != 1 || !strings.Contains(errs, "could not be judged") {
		t.Errorf("server down: exit %d, stderr %s", code, errs)
	}
	for _, r := range decodeRows(t, out) {
		if r.Verdict != nil {
			t.Errorf("server down gave a verdict: %+v", r.Verdict)
		}
	}
}

func TestJudgesCommand(t *testing.T) {
	clearJudgeEnv(t)
	code, out, errs := foleyRun(t, "", "judges")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"clap", "listen  string-overlap (text only, does not hear the clip)", "FOLEY_AUDIOLM_URL", "ANTHROPIC_API_KEY"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	fake := fakeaudiolm.New(t, qwen, fakeaudiolm.Contains("door"))
	t.Setenv("FOLEY_AUDIOLM_URL", fake.BaseURL())
	code, out, errs = foleyRun(t, "", "judges", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rows []judgesRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 3 {
		t.Fatalf("%v: %s", err, out)
	}
	if r := rows[1]; r.Judge != "audiolm:"+qwen || r.Status != "ok" || !r.Model || !strings.Contains(r.Identity, "tau=0.5") {
		t.Errorf("listen row %+v", r)
	}
	if r := rows[2]; r.Judge != "string-overlap" || r.Model {
		t.Errorf("judge row %+v", r)
	}

	// A model the server does not serve, and then a server that is down.
	t.Setenv("FOLEY_AUDIOLM_MODEL", "no/such-model")
	if code, out, _ := foleyRun(t, "", "judges"); code != 1 || !strings.Contains(out, "failed") {
		t.Errorf("unserved model: exit %d\n%s", code, out)
	}
	fake.Close()
	if code, out, _ := foleyRun(t, "", "judges", "--timeout", "2s"); code != 1 || !strings.Contains(out, "failed") {
		t.Errorf("server down: exit %d\n%s", code, out)
	}
	if code, _, _ := foleyRun(t, "", "judges", "--no-check"); code != 0 {
		t.Errorf("--no-check: exit %d", code)
	}
	// A bad configuration is bad input.
	t.Setenv("FOLEY_AUDIOLM_URL", "not a url")
	if code, _, errs := foleyRun(t, "", "judges"); code != 2 || !strings.Contains(errs, "FOLEY_AUDIOLM_URL") {
		t.Errorf("bad URL: exit %d: %s", code, errs)
	}
}

func TestVerifyConcurrencyFlags(t *testing.T) {
	clearJudgeEnv(t)
	for _, args := range [][]string{{"--concurrency", "0"}, {"--rate", "-1"}, {"--concurrency", "x"}} {
		a := append([]string{"verify", "door", "-c", example}, args...)
		if code, _, errs := foleyRun(t, "", a...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, code, errs)
		}
	}
}

// TestVerifyConcurrencyBudget is the benchmark in small: 64 clips
// against an audio LM that answers in 200 ms, 8 at a time, take about 8
// rounds of 200 ms, and the same run again makes no call. (bench/verify
// measures it on the built binary.)
func TestVerifyConcurrencyBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	clearJudgeEnv(t)
	dir := t.TempDir()
	list := shortlistFiles(t, dir, 64)
	fake := fakeaudiolm.New(t, qwen, fakeaudiolm.Contains("door"))
	fake.Delay = 200 * time.Millisecond
	t.Setenv("FOLEY_AUDIOLM_URL", fake.BaseURL())
	lib := filepath.Join(dir, "library.db")
	start := time.Now()
	if code, _, errs := foleyRun(t, "", "verify", "a door slams", "-c", list, "--library", lib, "--concurrency", "8"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	elapsed := time.Since(start)
	// The bound is 1.2x, which bench/verify measures on the built
	// binary (1.13x). Here other test packages share the CPU, and the race
	// detector slows the decoding, so the test only guards against losing
	// the concurrency (serial would be 8x the ideal).
	limit := 1.5
	if raceEnabled {
		limit = 3
	}
	t.Logf("64 clips at concurrency 8: %v, %.2fx the ideal 1.6 s", elapsed, elapsed.Seconds()/1.6)
	if ideal := 1.6; elapsed.Seconds() > limit*ideal {
		t.Errorf("64 clips at concurrency 8 took %v, more than %.1fx the ideal %.1f s", elapsed, limit, ideal)
	}
	if fake.Calls() != 64 {
		t.Errorf("%d calls, want 64", fake.Calls())
	}
	if code, _, _ := foleyRun(t, "", "verify", "a door slams", "-c", list, "--library", lib); code != 0 || fake.Calls() != 64 {
		t.Errorf("second run: exit %d, %d more calls", code, fake.Calls()-64)
	}
}
