package verify_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/verify"
)

func cand(id, caption string, clap *float64, tags ...string) foley.Candidate {
	return foley.Candidate{
		Sound:     foley.SoundRecord{ID: id, Caption: caption, Tags: tags},
		ClapScore: clap,
		LicenseOK: new(true),
	}
}

func TestClapJudge(t *testing.T) {
	ctx := context.Background()
	ev := foley.NewEvent("door slam")
	for _, tc := range []struct {
		name   string
		score  *float64
		tau    float64
		match  bool
		conf   float64
		reason string
	}{
		{"above", new(0.412), 0.35, true, 0.412, "clap_score=0.412 vs tau=0.35"},
		{"exactly at tau", new(0.35), 0.35, true, 0.35, "clap_score=0.350 vs tau=0.35"},
		{"below", new(0.349), 0.35, false, 0.349, "clap_score=0.349 vs tau=0.35"},
		{"missing is 0", nil, 0.35, false, 0, "clap_score=none (counted as 0) vs tau=0.35"},
		{"missing at tau 0", nil, 0, true, 0, "vs tau=0"},
		{"negative", new(-0.2), 0.35, false, 0, "clap_score=-0.200"},
		{"above 1 clamps", new(1.7), 0.35, true, 1, "clap_score=1.700"},
		{"NaN is missing", new(math.NaN()), 0.35, false, 0, "none"},
		{"zero score", new(0.0), 0.35, false, 0, "clap_score=0.000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, asked := range foley.Levels() {
				v, err := verify.ClapJudge{Tau: tc.tau}.Judge(ctx, ev, cand("a", "", tc.score), asked)
				if err != nil {
					t.Fatal(err)
				}
				if v.Match != tc.match || v.Confidence != tc.conf || v.Level != foley.LevelClap || v.Judge != "clap" {
					t.Errorf("asked %v: got %+v, want match=%v conf=%v level clap judge clap", asked, v, tc.match, tc.conf)
				}
				if !strings.Contains(v.Reason, tc.reason) {
					t.Errorf("reason %q lacks %q", v.Reason, tc.reason)
				}
			}
		})
	}
}

func TestStringOverlapJudge(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, query, caption string
		tags                 []string
		threshold            float64
		overlap              float64
	}{
		// query {a heavy wooden door slams shut}, text {heavy wooden door slams shut in a stone hallway}:
		// 6 shared of 9 in the union.
		{"paraphrase", "a heavy wooden door slams shut", "Heavy wooden door slams shut in a stone hallway", nil, 0.3, 6.0 / 9},
		{"tags count", "door slam", "", []string{"Door", "SLAM!", "wood"}, 0.3, 2.0 / 3},
		{"caption and tags merge", "door slam", "door", []string{"slam"}, 0.3, 1},
		{"duplicates are sets", "door door door", "door", []string{"door"}, 0.3, 1},
		{"punctuation and case", "Door-Slam (heavy)", "door_slam, HEAVY", nil, 0.3, 1}, // '_' separates tokens too
		{"no words in common", "dog bark", "cat meow", nil, 0.3, 0},
		{"both empty", "", "", nil, 0.3, 0},
		{"empty query", "", "door slam", nil, 0.3, 0},
		{"empty caption and tags", "door slam", "", nil, 0.3, 0},
		{"exactly at threshold", "a b c", "a x y z w v b c d e", nil, 0.3, 3.0 / 10},
		{"numbers are tokens", "1920s car horn", "car horn 1920s", nil, 0.3, 1},
		{"non-ascii splits", "café door", "cafe door", nil, 0.3, 1.0 / 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := verify.StringOverlapJudge{Threshold: tc.threshold}
			c := cand("a", tc.caption, new(0.9), tc.tags...)
			for _, level := range []foley.VerifyLevel{foley.LevelListen, foley.LevelJudge, foley.LevelClap} {
				v, err := j.Judge(ctx, foley.NewEvent(tc.query), c, level)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(v.Confidence-tc.overlap) > 1e-12 {
					t.Fatalf("overlap = %v, want %v", v.Confidence, tc.overlap)
				}
				if v.Match != (tc.overlap >= tc.threshold) || v.Level != level || v.Judge != "string-overlap" {
					t.Errorf("verdict %+v at %v", v, level)
				}
				if !strings.Contains(v.Reason, "not heard") {
					t.Errorf("reason %q does not say the audio was not heard", v.Reason)
				}
			}
		})
	}
}

// spy is a model judge that records its calls.
type spy struct {
	calls   atomic.Int32
	verdict foley.Verdict
	err     error
}

func (s *spy) Name() string { return "spy" }

func (s *spy) Judge(_ context.Context, _ foley.SoundEvent, _ foley.Candidate, _ foley.VerifyLevel) (foley.Verdict, error) {
	s.calls.Add(1)
	return s.verdict, s.err
}

func TestMatchLadder(t *testing.T) {
	ctx := context.Background()
	ev := foley.NewEvent("a heavy wooden door slams shut")
	good := cand("good", "heavy wooden door slams shut", new(0.6))
	weakClap := cand("weak", "heavy wooden door slams shut", new(0.2))
	generated := cand("gen", "a heavy wooden door slams shut", nil)
	generated.Origin = foley.OriginGenerated
	wrongObject := cand("knock", "three knocks on a front door", new(0.5))

	yes := foley.Verdict{Match: true, Confidence: 0.9, Reason: "P(yes)=0.9", Level: foley.LevelListen, Judge: "spy"}
	for _, tc := range []struct {
		name      string
		c         foley.Candidate
		level     foley.VerifyLevel
		judge     *spy // nil: the default judge
		wantMatch bool
		wantLevel foley.VerifyLevel
		wantJudge string
		wantCalls int32
	}{
		{"clap level answers with clap", good, foley.LevelClap, &spy{verdict: yes}, true, foley.LevelClap, "clap", 0},
		{"clap level, failing clap", weakClap, foley.LevelClap, &spy{verdict: yes}, false, foley.LevelClap, "clap", 0},
		{"listen after passing clap", good, foley.LevelListen, &spy{verdict: yes}, true, foley.LevelListen, "spy", 1},
		{"judge after passing clap", good, foley.LevelJudge, &spy{verdict: yes}, true, foley.LevelJudge, "spy", 1},
		{"gate failure at listen returns the clap verdict", weakClap, foley.LevelListen, &spy{verdict: yes}, false, foley.LevelClap, "clap", 0},
		{"gate failure at judge returns the clap verdict", weakClap, foley.LevelJudge, &spy{verdict: yes}, false, foley.LevelClap, "clap", 0},
		{"generated clip at clap", generated, foley.LevelClap, &spy{verdict: yes}, false, foley.LevelClap, "clap", 0},
		{"generated clip escalates to listen", generated, foley.LevelListen, &spy{verdict: yes}, true, foley.LevelListen, "spy", 1},
		{"generated clip escalates to judge", generated, foley.LevelJudge, &spy{verdict: yes}, true, foley.LevelJudge, "spy", 1},
		{"higher rung can reject", good, foley.LevelListen, &spy{verdict: foley.Verdict{Confidence: 0.1, Reason: "no"}}, false, foley.LevelListen, "spy", 1},
		{"default judge is string-overlap", good, foley.LevelListen, nil, true, foley.LevelListen, "string-overlap", 0},
		{"default judge at judge level", generated, foley.LevelJudge, nil, true, foley.LevelJudge, "string-overlap", 0},
		{"default judge catches the wrong object", wrongObject, foley.LevelListen, nil, false, foley.LevelListen, "string-overlap", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var judge foley.Judge
			if tc.judge != nil {
				judge = tc.judge
			}
			v, err := verify.Match(ctx, ev, tc.c, tc.level, judge, verify.DefaultTauClap)
			if err != nil {
				t.Fatal(err)
			}
			if v.Match != tc.wantMatch || v.Level != tc.wantLevel || v.Judge != tc.wantJudge {
				t.Errorf("got %+v; want match=%v level=%v judge=%s", v, tc.wantMatch, tc.wantLevel, tc.wantJudge)
			}
			if tc.judge != nil && tc.judge.calls.Load() != tc.wantCalls {
				t.Errorf("model judge called %d times, want %d", tc.judge.calls.Load(), tc.wantCalls)
			}
		})
	}
}

func TestMatchErrors(t *testing.T) {
	ctx := context.Background()
	ev := foley.NewEvent("door slam")
	ok := cand("a", "door slam", new(0.9))
	for _, tc := range []struct {
		name  string
		c     foley.Candidate
		level foley.VerifyLevel
		tau   float64
		judge foley.Judge
		code  foley.ErrorCode
	}{
		{"never gated", foley.Candidate{Sound: foley.SoundRecord{ID: "a"}, ClapScore: new(0.9)}, foley.LevelClap, 0.35, nil, foley.Unlicensed},
		{"gate said no", foley.Candidate{Sound: foley.SoundRecord{ID: "a"}, ClapScore: new(0.9), LicenseOK: new(false)}, foley.LevelListen, 0.35, nil, foley.Unlicensed},
		{"unset level", ok, 0, 0.35, nil, foley.Invalid},
		{"unknown level", ok, foley.VerifyLevel(9), 0.35, nil, foley.Invalid},
		{"negative tau", ok, foley.LevelClap, -0.1, nil, foley.Invalid},
		{"tau above 1", ok, foley.LevelClap, 1.5, nil, foley.Invalid},
		{"NaN tau", ok, foley.LevelClap, math.NaN(), nil, foley.Invalid},
		{"judge fails", ok, foley.LevelListen, 0.35, &spy{err: foley.Errorf(foley.Unavailable, "audio LM down")}, foley.Unavailable},
		{"judge returns a bad confidence", ok, foley.LevelJudge, 0.35, &spy{verdict: foley.Verdict{Match: true, Confidence: 1.2}}, foley.Internal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := verify.Match(ctx, ev, tc.c, tc.level, tc.judge, tc.tau)
			if err == nil {
				t.Fatalf("no error; verdict %+v", v)
			}
			if got := foley.CodeOf(err); got != tc.code {
				t.Errorf("code %q, want %q (%v)", got, tc.code, err)
			}
			if v.Match {
				t.Error("an error came with a match")
			}
		})
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := verify.Match(cancelled, ev, ok, foley.LevelListen, &spy{}, 0.35); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

func TestJudgesFor(t *testing.T) {
	listen, judge := &spy{}, &spy{}
	if _, ok := (verify.Judges{}).For(foley.LevelClap).(verify.ClapJudge); !ok {
		t.Error("clap does not resolve to ClapJudge")
	}
	for _, l := range []foley.VerifyLevel{foley.LevelListen, foley.LevelJudge} {
		if got := (verify.Judges{}).For(l).Name(); got != "string-overlap" {
			t.Errorf("unconfigured %v resolves to %s", l, got)
		}
	}
	j := verify.Judges{Listen: listen, Judge: judge}
	if j.For(foley.LevelListen) != listen || j.For(foley.LevelJudge) != judge {
		t.Error("configured judges are not used")
	}
	if (verify.Judges{Listen: listen}).For(foley.LevelJudge).Name() != "string-overlap" {
		t.Error("a listen judge answered at the judge rung")
	}
}

// TestConcurrentUse runs the ladder from many goroutines over shared judges;
// run with -race.
func TestConcurrentUse(t *testing.T) {
	ctx := context.Background()
	ev := foley.NewEvent("door slam")
	judges := []foley.Judge{nil, verify.StringOverlapJudge{Threshold: 0.3}, &spy{verdict: foley.Verdict{Match: true, Confidence: 1}}}
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			c := cand("a", "door slam", new(0.5), "wood")
			v, err := verify.Match(ctx, ev, c, foley.Levels()[i%3], judges[i%len(judges)], 0.35)
			if err != nil || !v.Match {
				t.Errorf("goroutine %d: %+v %v", i, v, err)
			}
		})
	}
	wg.Wait()
}
