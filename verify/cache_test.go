package verify_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/verify"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// modelJudge is a fake model judge with an identity: it counts its calls,
// answers after delay, and fails when fail is set.
type modelJudge struct {
	id    string
	calls atomic.Int64
	delay time.Duration
	fail  error
	match bool
}

func (m *modelJudge) Name() string     { return "fake-model" }
func (m *modelJudge) Identity() string { return m.id }
func (m *modelJudge) Judge(ctx context.Context, e foley.SoundEvent, c foley.Candidate, level foley.VerifyLevel) (foley.Verdict, error) {
	m.calls.Add(1)
	if m.delay > 0 {
		select {
		case <-time.After(m.delay):
		case <-ctx.Done():
			return foley.Verdict{}, ctx.Err()
		}
	}
	if m.fail != nil {
		return foley.Verdict{}, m.fail
	}
	return foley.Verdict{Match: m.match, Confidence: 0.9, Reason: "heard " + e.Query, Level: level, Judge: m.Name()}, nil
}

func hashed(id, sha string) foley.Candidate {
	c := cand(id, "door slam", new(0.9), "door")
	c.Sound.ContentSHA256 = sha
	return c
}

func TestCachedJudge(t *testing.T) {
	ctx := context.Background()
	ev := foley.NewEvent("door slam")
	m := &modelJudge{id: "fake|m1|prompt=v1", match: true}
	cache := &verify.MemoryCache{}
	j := verify.Cached(m, cache, nil)

	v1, err := j.Judge(ctx, ev, hashed("a", "aa"), foley.LevelListen)
	if err != nil || v1.Cached || !v1.Match {
		t.Fatalf("first: %+v %v, want a fresh match", v1, err)
	}
	v2, err := j.Judge(ctx, ev, hashed("a-copy", "AA"), foley.LevelListen)
	if err != nil || !v2.Cached || !v2.Match || v2.Reason != v1.Reason {
		t.Fatalf("second: %+v %v, want the cached verdict", v2, err)
	}
	if n := m.calls.Load(); n != 1 {
		t.Fatalf("calls = %d, want 1", n)
	}
	// Each part of the key makes a different entry.
	other := []struct {
		name  string
		ev    foley.SoundEvent
		c     foley.Candidate
		level foley.VerifyLevel
		judge foley.Judge
	}{
		{"query", foley.NewEvent("door creak"), hashed("a", "aa"), foley.LevelListen, j},
		{"scene", foley.SoundEvent{Query: "door slam", Scene: "a castle"}, hashed("a", "aa"), foley.LevelListen, j},
		{"content", ev, hashed("a", "bb"), foley.LevelListen, j},
		{"rung", ev, hashed("a", "aa"), foley.LevelJudge, j},
		{"identity", ev, hashed("a", "aa"), foley.LevelListen, verify.Cached(&modelJudge{id: "fake|m1|prompt=v1|tau=0.7"}, cache, nil)},
		{"caption", ev, func() foley.Candidate { c := hashed("a", "aa"); c.Sound.Caption = "door creak"; return c }(), foley.LevelListen, j},
	}
	for _, o := range other {
		v, err := o.judge.Judge(ctx, o.ev, o.c, o.level)
		if err != nil || v.Cached {
			t.Errorf("%s changed: got %+v %v, want a fresh verdict", o.name, v, err)
		}
	}
	if cache.Len() != 1+len(other) {
		t.Errorf("cache holds %d verdicts, want %d", cache.Len(), 1+len(other))
	}
}

func TestCachedJudgeNeverCachesErrors(t *testing.T) {
	ctx := context.Background()
	m := &modelJudge{id: "fake", fail: foley.Errorf(foley.Unavailable, "server down")}
	cache := &verify.MemoryCache{}
	j := verify.Cached(m, cache, nil)
	for range 2 {
		if v, err := j.Judge(ctx, foley.NewEvent("x"), hashed("a", "aa"), foley.LevelListen); err == nil || v.Match {
			t.Fatalf("got %+v %v, want the error", v, err)
		}
	}
	if m.calls.Load() != 2 || cache.Len() != 0 {
		t.Errorf("calls %d, cached %d; want 2 calls and nothing cached", m.calls.Load(), cache.Len())
	}
}

func TestCachedJudgeHashesLocalFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "a.wav")
	if err := os.WriteFile(path, []byte("RIFF...."), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &modelJudge{id: "fake"}
	cache := &verify.MemoryCache{}
	j := verify.Cached(m, cache, nil)
	for _, uri := range []string{path, "file://" + path} {
		c := cand("a", "door", new(0.9))
		c.Sound.URI = uri
		if _, err := j.Judge(ctx, foley.NewEvent("x"), c, foley.LevelListen); err != nil {
			t.Fatal(err)
		}
	}
	if m.calls.Load() != 1 {
		t.Errorf("the same file by path and by file:// URL: %d calls, want 1", m.calls.Load())
	}
	// No hash and no local file: not cached, still judged.
	c := cand("r", "door", new(0.9))
	c.Sound.URI = "https://example.org/a.wav"
	for range 2 {
		if _, err := j.Judge(ctx, foley.NewEvent("x"), c, foley.LevelListen); err != nil {
			t.Fatal(err)
		}
	}
	if m.calls.Load() != 3 {
		t.Errorf("remote clip without a hash: %d calls, want 3", m.calls.Load())
	}
}

type brokenCache struct{}

func (brokenCache) GetVerdict(context.Context, verify.CacheKey) (foley.Verdict, bool, error) {
	return foley.Verdict{}, false, errors.New("disk on fire")
}
func (brokenCache) PutVerdict(context.Context, verify.CacheKey, foley.Verdict) error {
	return errors.New("disk on fire")
}

func TestCachedJudgeBrokenCacheIsAMiss(t *testing.T) {
	m := &modelJudge{id: "fake", match: true}
	var reported []string
	j := verify.Cached(m, brokenCache{}, func(err error) { reported = append(reported, err.Error()) })
	v, err := j.Judge(context.Background(), foley.NewEvent("x"), hashed("a", "aa"), foley.LevelListen)
	if err != nil || !v.Match || v.Cached {
		t.Fatalf("got %+v %v, want a fresh verdict", v, err)
	}
	if len(reported) != 2 || !strings.Contains(reported[0], "disk on fire") {
		t.Errorf("reported %q, want the read and the write failures", reported)
	}
}

func TestCachedNeedsIdentity(t *testing.T) {
	j := verify.StringOverlapJudge{Threshold: 0.3}
	if got := verify.Cached(j, &verify.MemoryCache{}, nil); got != foley.Judge(j) {
		t.Errorf("a judge without identity was wrapped: %T", got)
	}
	m := &modelJudge{id: ""}
	if got := verify.Cached(m, &verify.MemoryCache{}, nil); got != foley.Judge(m) {
		t.Errorf("a judge with an empty identity was wrapped: %T", got)
	}
	if got := verify.Cached(&modelJudge{id: "x"}, nil, nil); got == nil {
		t.Error("nil cache gave nil")
	}
}

func TestShortlistConcurrency(t *testing.T) {
	m := &modelJudge{id: "fake", delay: 50 * time.Millisecond, match: true}
	cands := make([]foley.Candidate, 32)
	for i := range cands {
		cands[i] = hashed(string(rune('a'+i)), "")
	}
	cands[3].LicenseOK = new(false)
	var mu sync.Mutex
	done := map[int]bool{}
	start := time.Now()
	res := verify.Shortlist(context.Background(), foley.NewEvent("door slam"), cands, verify.Options{
		Level: foley.LevelListen, TauClap: 0.35, Judge: m, Concurrency: 8,
		Done: func(i int, _ verify.Result) { mu.Lock(); done[i] = true; mu.Unlock() },
	})
	elapsed := time.Since(start)
	if len(res) != 32 || len(done) != 32 {
		t.Fatalf("%d results, %d done, want 32", len(res), len(done))
	}
	for i, r := range res {
		if i == 3 {
			if foley.CodeOf(r.Err) != foley.Unlicensed {
				t.Errorf("unlicensed candidate: %v, want an unlicensed error", r.Err)
			}
			continue
		}
		if r.Err != nil || !r.Verdict.Match || r.Verdict.Level != foley.LevelListen {
			t.Errorf("%d: %+v %v", i, r.Verdict, r.Err)
		}
	}
	// 31 calls of 50 ms, 8 at a time: 4 rounds, 200 ms; serial would be 1.55 s.
	if elapsed > time.Second {
		t.Errorf("took %v; the calls did not overlap", elapsed)
	}
}

func TestShortlistCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := verify.Shortlist(ctx, foley.NewEvent("x"), []foley.Candidate{hashed("a", "")}, verify.Options{Level: foley.LevelListen, Judge: &modelJudge{id: "x", match: true}})
	if !errors.Is(res[0].Err, context.Canceled) || res[0].Verdict.Match {
		t.Errorf("got %+v, want the cancellation", res[0])
	}
}

func TestRateLimited(t *testing.T) {
	m := &modelJudge{id: "fake|1", match: true}
	j := verify.RateLimited(m, 20, 1)
	if ij, ok := j.(foley.IdentifiedJudge); !ok || ij.Identity() != "fake|1" {
		t.Fatalf("the limited judge lost its identity: %T", j)
	}
	cands := make([]foley.Candidate, 6)
	for i := range cands {
		cands[i] = hashed("a", "")
	}
	start := time.Now()
	verify.Shortlist(context.Background(), foley.NewEvent("x"), cands, verify.Options{Level: foley.LevelListen, Judge: j, Concurrency: 6})
	// 6 calls at 20/s with a burst of 1: at least 5 intervals of 50 ms.
	if el := time.Since(start); el < 240*time.Millisecond {
		t.Errorf("6 calls at 20/s took %v, want >= 250 ms", el)
	}
	if verify.RateLimited(m, 0, 1) != foley.Judge(m) {
		t.Error("rate 0 should not wrap")
	}
}

func TestMatchSpan(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })

	m := &modelJudge{id: "fake", match: true}
	if _, err := verify.Match(context.Background(), foley.NewEvent("door slam"), hashed("clip-1", ""), foley.LevelListen, m, 0.35); err != nil {
		t.Fatal(err)
	}
	m.fail = foley.Errorf(foley.Unavailable, "down")
	if _, err := verify.Match(context.Background(), foley.NewEvent("door slam"), hashed("clip-2", ""), foley.LevelListen, m, 0.35); err == nil {
		t.Fatal("want the judge's error")
	}
	spans := rec.Ended()
	if len(spans) != 2 {
		t.Fatalf("%d spans, want 2", len(spans))
	}
	attrs := map[string]string{}
	for _, kv := range spans[0].Attributes() {
		attrs[string(kv.Key)] = kv.Value.Emit()
	}
	want := map[string]string{
		verify.AttrLevel: "listen", verify.AttrCandidateID: "clip-1", verify.AttrMatch: "true",
		verify.AttrConfidence: "0.9", verify.AttrJudge: "fake-model", verify.AttrCached: "false",
	}
	for k, v := range want {
		if attrs[k] != v {
			t.Errorf("span attribute %s = %q, want %q", k, attrs[k], v)
		}
	}
	if spans[0].Name() != verify.SpanVerifyMatch {
		t.Errorf("span name %q", spans[0].Name())
	}
	if spans[1].Status().Code.String() != "Error" {
		t.Errorf("the failed match's span status is %v, want Error", spans[1].Status())
	}
	for _, kv := range spans[1].Attributes() {
		if string(kv.Key) == verify.AttrMatch {
			t.Errorf("a failed match recorded %s", kv.Key)
		}
	}
}

type panicJudge struct{}

func (panicJudge) Name() string { return "panics" }
func (panicJudge) Judge(context.Context, foley.SoundEvent, foley.Candidate, foley.VerifyLevel) (foley.Verdict, error) {
	panic("boom")
}

func TestShortlistRecoversAPanickingJudge(t *testing.T) {
	res := verify.Shortlist(context.Background(), foley.NewEvent("x"), []foley.Candidate{hashed("a", "")}, verify.Options{Level: foley.LevelListen, Judge: panicJudge{}})
	if foley.CodeOf(res[0].Err) != foley.Internal || !strings.Contains(res[0].Err.Error(), "boom") || res[0].Verdict.Match {
		t.Errorf("got %+v", res[0])
	}
}
