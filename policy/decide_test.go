package policy_test

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/policy"
)

// ---- helpers ----------------------------------------------------------------

const tau = policy.DefaultTauRetrieve

// cand returns a licensed, retrieved candidate with a verdict. Every pointer
// and slice field is set so that aliasing between inputs and outputs shows.
func cand(id string, match bool, conf float64) foley.Candidate {
	return foley.Candidate{
		Sound: foley.SoundRecord{
			ID:      id,
			URI:     "file:///lib/" + id + ".wav",
			Caption: "clip " + id,
			Tags:    []string{"tag-" + id, "door"},
			License: foley.License{LicenseID: "CC0-1.0", RevenueCapUSD: new(1e6), GenerationSeed: new(int64(7))},
		},
		Origin:    foley.OriginRetrieved,
		Event:     &foley.SoundEvent{Query: "door for " + id, Diegetic: new(true), AudioSet: []string{"Door"}},
		ClapScore: new(conf),
		Verdict: &foley.Verdict{
			Match:      match,
			Confidence: conf,
			Reason:     "verdict reason of " + id,
			Level:      foley.LevelListen,
			Judge:      "judge-" + id,
		},
		LicenseOK: new(true),
	}
}

// gen marks c as made by a generator.
func gen(c foley.Candidate) foley.Candidate {
	c.Origin = foley.OriginGenerated
	c.Sound.License.IsAIGenerated = true
	return c
}

// kept returns a licensed candidate that has not been verified.
func keptOnly(id string) foley.Candidate {
	c := cand(id, false, 0)
	c.Verdict = nil
	return c
}

func withLicense(c foley.Candidate, ok *bool) foley.Candidate {
	c.LicenseOK = ok
	return c
}

func withVerdict(c foley.Candidate, v *foley.Verdict) foley.Candidate {
	c.Verdict = v
	return c
}

func cands(cs ...foley.Candidate) []foley.Candidate { return cs }

var (
	diegetic         = foley.NewEvent("a heavy wooden door slams shut")
	explicitDiegetic = foley.SoundEvent{Query: "footsteps on gravel", Diegetic: new(true)}
	nonDiegetic      = foley.SoundEvent{Query: "a UI whoosh", Diegetic: new(false), Layer: foley.LayerSFX}
)

func budget(mut func(*policy.Budget)) policy.Budget {
	b := policy.DefaultBudget()
	if mut != nil {
		mut(&b)
	}
	return b
}

func spent(b *policy.Budget)      { b.Generated = b.MaxGenerate }
func noGenerate(b *policy.Budget) { b.AllowGenerate = false }

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	return new(*p)
}

func copyEvent(e foley.SoundEvent) foley.SoundEvent {
	e.Diegetic = copyPtr(e.Diegetic)
	e.Salience = copyPtr(e.Salience)
	e.Onset = copyPtr(e.Onset)
	e.AudioSet = slices.Clone(e.AudioSet)
	return e
}

func copyCandidate(c foley.Candidate) foley.Candidate {
	c.Sound.Tags = slices.Clone(c.Sound.Tags)
	c.Sound.License.RevenueCapUSD = copyPtr(c.Sound.License.RevenueCapUSD)
	c.Sound.License.GenerationSeed = copyPtr(c.Sound.License.GenerationSeed)
	if c.Event != nil {
		c.Event = new(copyEvent(*c.Event))
	}
	c.ClapScore = copyPtr(c.ClapScore)
	c.BM25Score = copyPtr(c.BM25Score)
	c.RRFScore = copyPtr(c.RRFScore)
	c.RerankScore = copyPtr(c.RerankScore)
	c.Verdict = copyPtr(c.Verdict)
	c.LicenseOK = copyPtr(c.LicenseOK)
	return c
}

func copyCandidates(cs []foley.Candidate) []foley.Candidate {
	if cs == nil {
		return nil
	}
	out := make([]foley.Candidate, len(cs))
	for i, c := range cs {
		out[i] = copyCandidate(c)
	}
	return out
}

func candID(d policy.Decision) string {
	if d.Candidate == nil {
		return ""
	}
	return d.Candidate.Sound.ID
}

// ---- validation -------------------------------------------------------------

func TestDecideValidation(t *testing.T) {
	good := cands(cand("a", true, 0.9))
	tests := []struct {
		name     string
		event    foley.SoundEvent
		kept     []foley.Candidate
		verified []foley.Candidate
		tau      float64
		budget   policy.Budget
		loop     int
		want     foley.ErrorCode
	}{
		{name: "tau NaN", tau: math.NaN(), want: foley.Invalid},
		{name: "tau negative", tau: -0.001, want: foley.Invalid},
		{name: "tau above one", tau: 1.001, want: foley.Invalid},
		{name: "tau +Inf", tau: math.Inf(1), want: foley.Invalid},
		{name: "tau -Inf", tau: math.Inf(-1), want: foley.Invalid},
		{name: "tau NaN with good candidates", tau: math.NaN(), kept: good, verified: good, want: foley.Invalid},
		{name: "negative loop", tau: tau, loop: -1, want: foley.Invalid},
		{name: "negative MaxRefine", tau: tau, budget: budget(func(b *policy.Budget) { b.MaxRefine = -1 }), want: foley.Invalid},
		{name: "negative MaxGenerate", tau: tau, budget: budget(func(b *policy.Budget) { b.MaxGenerate = -1 }), want: foley.Invalid},
		{name: "negative Generated", tau: tau, budget: budget(func(b *policy.Budget) { b.Generated = -1 }), want: foley.Invalid},
		{name: "negative MaxRefine with generation disabled", tau: tau, budget: budget(func(b *policy.Budget) { b.MaxRefine = -3; b.AllowGenerate = false }), want: foley.Invalid},
		{name: "kept LicenseOK nil", tau: tau, kept: cands(withLicense(keptOnly("k"), nil)), want: foley.Unlicensed},
		{name: "kept LicenseOK false", tau: tau, kept: cands(withLicense(keptOnly("k"), new(false))), want: foley.Unlicensed},
		{name: "kept ungated after licensed ones", tau: tau, kept: cands(keptOnly("k1"), keptOnly("k2"), withLicense(keptOnly("k3"), nil)), want: foley.Unlicensed},
		{name: "verified LicenseOK nil", tau: tau, verified: cands(withLicense(cand("v", true, 0.9), nil)), want: foley.Unlicensed},
		{name: "verified LicenseOK false", tau: tau, verified: cands(withLicense(cand("v", true, 0.9), new(false))), want: foley.Unlicensed},
		{name: "verified unlicensed behind a usable match", tau: tau, verified: cands(cand("a", true, 0.99), withLicense(cand("b", true, 0.1), new(false))), want: foley.Unlicensed},
		{name: "unlicensed generated candidate on non-diegetic event", event: nonDiegetic, tau: tau, verified: cands(withLicense(gen(cand("g", true, 0.9)), nil)), want: foley.Unlicensed},
		{name: "verified without verdict", tau: tau, verified: cands(withVerdict(cand("v", true, 0.9), nil)), want: foley.Invalid},
		{name: "verdict nil behind a usable match", tau: tau, verified: cands(cand("a", true, 0.99), withVerdict(cand("b", true, 0.9), nil)), want: foley.Invalid},
		{name: "verdict nil on non-diegetic event", event: nonDiegetic, tau: tau, verified: cands(withVerdict(gen(cand("g", true, 0.9)), nil)), want: foley.Invalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.event.Query == "" {
				tc.event = diegetic
			}
			if tc.budget == (policy.Budget{}) {
				tc.budget = policy.DefaultBudget()
			}
			d, err := policy.Decide(tc.event, tc.kept, tc.verified, tc.tau, tc.budget, tc.loop)
			if err == nil {
				t.Fatalf("Decide = %+v, nil error; want a %s error", d, tc.want)
			}
			if got := foley.CodeOf(err); got != tc.want {
				t.Errorf("CodeOf(%v) = %q, want %q", err, got, tc.want)
			}
			if err.Error() == "" {
				t.Error("error message is empty")
			}
			if !reflect.DeepEqual(d, policy.Decision{}) {
				t.Errorf("Decision on error = %+v, want the zero Decision", d)
			}
		})
	}
}

func TestDecideValidInputsNoError(t *testing.T) {
	tests := []struct {
		name     string
		kept     []foley.Candidate
		verified []foley.Candidate
		tau      float64
		budget   policy.Budget
		loop     int
	}{
		{name: "tau zero", tau: 0, budget: policy.DefaultBudget()},
		{name: "tau one", tau: 1, budget: policy.DefaultBudget()},
		{name: "zero budget", tau: tau},
		{name: "loop beyond MaxRefine", tau: tau, budget: policy.DefaultBudget(), loop: 10},
		{name: "Generated beyond MaxGenerate", tau: tau, budget: budget(func(b *policy.Budget) { b.Generated = 5 })},
		{name: "kept candidates need no verdict", tau: tau, budget: policy.DefaultBudget(), kept: cands(keptOnly("a"), keptOnly("b"))},
		{name: "nil and empty slices", tau: tau, budget: policy.DefaultBudget(), kept: []foley.Candidate{}, verified: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := policy.Decide(diegetic, tc.kept, tc.verified, tc.tau, tc.budget, tc.loop)
			if err != nil {
				t.Fatalf("Decide: unexpected error %v", err)
			}
			if d.Reason == "" {
				t.Errorf("Decision %+v has an empty reason", d)
			}
		})
	}
}

// ---- rules ------------------------------------------------------------------

func TestDecideRules(t *testing.T) {
	tests := []struct {
		name     string
		event    foley.SoundEvent
		kept     []foley.Candidate
		verified []foley.Candidate
		tau      float64 // 0 means DefaultTauRetrieve; use tauZero for 0
		tauZero  bool
		budget   *policy.Budget // nil means DefaultBudget
		loop     int

		want       policy.Action
		wantID     string // for Use
		bestEffort bool
		reason     []string // substrings the reason must hold
		notReason  []string // substrings it must not hold
	}{
		// Rule 1: non-diegetic events generate first.
		{name: "rule1 non-diegetic, nothing found", event: nonDiegetic,
			want: policy.Generate, reason: []string{"non-diegetic"}},
		{name: "rule1 non-diegetic beats a retrieved match above tau", event: nonDiegetic,
			kept: cands(cand("r", true, 0.95)), verified: cands(cand("r", true, 0.95)),
			want: policy.Generate},
		{name: "rule1 non-diegetic generates even when refine budget is spent", event: nonDiegetic, loop: 2,
			want: policy.Generate},
		{name: "rule1 skipped: generated match above tau is used", event: nonDiegetic,
			verified: cands(gen(cand("g", true, 0.8))),
			want:     policy.Use, wantID: "g", reason: []string{`"g"`, "judge-g"}},
		{name: "rule1 skipped: generated match exactly at tau", event: nonDiegetic,
			verified: cands(gen(cand("g", true, 0.5))),
			want:     policy.Use, wantID: "g"},
		{name: "rule1 skipped: generated match after retrieved non-match", event: nonDiegetic,
			verified: cands(cand("r", false, 0.9), gen(cand("g", true, 0.7))),
			want:     policy.Use, wantID: "g"},
		{name: "rule1 applies: generated match below tau", event: nonDiegetic,
			verified: cands(gen(cand("g", true, 0.49))),
			want:     policy.Generate},
		{name: "rule1 applies: generated non-match with high confidence", event: nonDiegetic,
			verified: cands(gen(cand("g", false, 0.99))),
			want:     policy.Generate},
		{name: "rule1 applies: generated below tau, retrieved above", event: nonDiegetic,
			verified: cands(gen(cand("g", true, 0.3)), cand("r", true, 0.9)),
			want:     policy.Generate},
		{name: "rule1 off when generation budget spent: rule 2 uses retrieved", event: nonDiegetic,
			budget: new(budget(spent)), verified: cands(cand("r", true, 0.9)),
			want: policy.Use, wantID: "r"},
		{name: "rule1 off when generation not allowed: rule 2", event: nonDiegetic,
			budget: new(budget(noGenerate)), verified: cands(cand("r", true, 0.9)),
			want: policy.Use, wantID: "r"},
		{name: "rule1 off when generation not allowed: refine", event: nonDiegetic,
			budget: new(budget(noGenerate)),
			want:   policy.Refine},
		{name: "rule1 off when MaxGenerate is zero", event: nonDiegetic,
			budget: new(budget(func(b *policy.Budget) { b.MaxGenerate = 0 })),
			want:   policy.Refine},
		{name: "generation not allowed, non-diegetic, all spent: drop", event: nonDiegetic,
			budget: new(budget(noGenerate)), loop: 2,
			want: policy.Drop, reason: []string{"silence", "not allowed"}},
		{name: "diegetic (nil) never hits rule 1", event: diegetic,
			want: policy.Refine},
		{name: "diegetic (explicit true) never hits rule 1", event: explicitDiegetic,
			want: policy.Refine},
		{name: "diegetic (explicit true) uses retrieved match", event: explicitDiegetic,
			verified: cands(cand("r", true, 0.6)),
			want:     policy.Use, wantID: "r"},

		// Rule 2: the best matching verified candidate at or above tau.
		{name: "rule2 single match above tau",
			kept: cands(keptOnly("a")), verified: cands(cand("a", true, 0.9)),
			want: policy.Use, wantID: "a", reason: []string{`"a"`, "judge-a"}},
		{name: "rule2 highest confidence wins",
			verified: cands(cand("a", true, 0.6), cand("b", true, 0.9), cand("c", true, 0.7)),
			want:     policy.Use, wantID: "b", reason: []string{`"b"`, "judge-b"}, notReason: []string{`"a"`, `"c"`}},
		{name: "rule2 tie goes to the earlier",
			verified: cands(cand("a", true, 0.4), cand("b", true, 0.8), cand("c", true, 0.8)),
			want:     policy.Use, wantID: "b"},
		{name: "rule2 tie of all goes to the first",
			verified: cands(cand("a", true, 0.7), cand("b", true, 0.7), cand("c", true, 0.7)),
			want:     policy.Use, wantID: "a"},
		{name: "rule2 confidence exactly tau counts",
			verified: cands(cand("a", true, 0.5)),
			want:     policy.Use, wantID: "a"},
		{name: "rule2 custom tau exactly",
			tau: 0.75, verified: cands(cand("a", true, 0.75)),
			want: policy.Use, wantID: "a"},
		{name: "rule2 tau zero uses any match",
			tauZero: true, verified: cands(cand("a", true, 0)),
			want: policy.Use, wantID: "a"},
		{name: "rule2 tau one needs certainty",
			tau: 1, verified: cands(cand("a", true, 1)),
			want: policy.Use, wantID: "a"},
		{name: "rule2 tau one, 0.999 refines",
			tau: 1, verified: cands(cand("a", true, 0.999)),
			want: policy.Refine},
		{name: "rule2 non-match is never chosen even with high confidence",
			verified: cands(cand("x", false, 0.99), cand("a", true, 0.6)),
			want:     policy.Use, wantID: "a", notReason: []string{`"x"`}},
		{name: "rule2 non-match at confidence 1 refines",
			verified: cands(cand("x", false, 1)),
			want:     policy.Refine, reason: []string{"verdict reason of x"}},
		{name: "rule2 applies even when every budget is spent",
			budget: new(budget(spent)), loop: 2, verified: cands(cand("a", true, 0.9)),
			want: policy.Use, wantID: "a"},
		{name: "rule2 unnamed judge still said",
			verified: cands(withVerdict(cand("a", true, 0.9), &foley.Verdict{Match: true, Confidence: 0.9, Level: foley.LevelClap})),
			want:     policy.Use, wantID: "a", reason: []string{`"a"`, "unnamed judge"}},
		{name: "kept candidates are never used, only verified ones",
			kept:   cands(cand("k", true, 0.99)),
			budget: new(budget(spent)), loop: 2,
			want: policy.Drop, reason: []string{"silence"}},

		// Rule 3: refine while loop < MaxRefine.
		{name: "rule3 below tau, loop 0",
			verified: cands(cand("a", true, 0.4)),
			want:     policy.Refine, reason: []string{"refine 1 of 2", `"a"`}},
		{name: "rule3 below tau, loop 1",
			verified: cands(cand("a", true, 0.4)), loop: 1,
			want: policy.Refine, reason: []string{"refine 2 of 2"}},
		{name: "rule3 custom MaxRefine",
			budget: new(budget(func(b *policy.Budget) { b.MaxRefine = 5 })), loop: 3,
			want: policy.Refine, reason: []string{"refine 4 of 5"}},
		{name: "rule3 refine even with generation spent",
			budget: new(budget(spent)),
			want:   policy.Refine, reason: []string{"refine 1 of 2"}},
		{name: "rule3 no candidates says licence gate",
			want: policy.Refine, reason: []string{"no candidate passed the licence gate", "refine 1 of 2"}},
		{name: "rule3 kept but unverified",
			kept: cands(keptOnly("a"), keptOnly("b")),
			want: policy.Refine, reason: []string{"refine 1 of 2"}, notReason: []string{"licence gate"}},
		{name: "rule3 none matched lists verdict reasons",
			verified: cands(
				withVerdict(cand("a", false, 0.2), &foley.Verdict{Confidence: 0.2, Reason: "too metallic", Judge: "clap"}),
				withVerdict(cand("b", false, 0.9), &foley.Verdict{Confidence: 0.9, Reason: "this is a window, not a door", Judge: "listen"}),
			),
			want: policy.Refine, reason: []string{"too metallic", "this is a window, not a door", "refine 1 of 2"}},

		// Rule 4: generate once refining is spent.
		{name: "rule4 refine spent, generate",
			verified: cands(cand("a", true, 0.4)), loop: 2,
			want: policy.Generate},
		{name: "rule4 MaxRefine zero generates at once",
			budget: new(budget(func(b *policy.Budget) { b.MaxRefine = 0 })),
			want:   policy.Generate},
		{name: "rule4 loop beyond MaxRefine",
			loop: 7,
			want: policy.Generate, reason: []string{"no candidate passed the licence gate"}},
		{name: "rule4 second generation of three",
			budget: new(budget(func(b *policy.Budget) { b.MaxGenerate = 3; b.Generated = 1 })), loop: 2,
			want: policy.Generate},

		// Rule 5: best effort.
		{name: "rule5 best effort below tau",
			verified: cands(cand("x", false, 0.95), cand("a", true, 0.3), cand("b", true, 0.45), cand("c", true, 0.2)),
			budget:   new(budget(spent)), loop: 2,
			want: policy.Use, wantID: "b", bestEffort: true, reason: []string{`"b"`, "judge-b"}},
		{name: "rule5 best effort tie goes to the earlier",
			verified: cands(cand("a", true, 0.3), cand("b", true, 0.3)),
			budget:   new(budget(spent)), loop: 2,
			want: policy.Use, wantID: "a", bestEffort: true},
		{name: "rule5 best effort when generation not allowed",
			verified: cands(cand("a", true, 0.1)),
			budget:   new(budget(noGenerate)), loop: 2,
			want: policy.Use, wantID: "a", bestEffort: true},
		{name: "rule5 best effort of a generated clip on non-diegetic event", event: nonDiegetic,
			verified: cands(gen(cand("g", true, 0.2))),
			budget:   new(budget(spent)), loop: 2,
			want: policy.Use, wantID: "g", bestEffort: true},
		{name: "rule5 zero budget, confidence zero match",
			verified: cands(cand("a", true, 0)),
			budget:   &policy.Budget{},
			want:     policy.Use, wantID: "a", bestEffort: true},

		// Rule 6: silence.
		{name: "rule6 nothing matched, generation budget spent",
			verified: cands(
				withVerdict(cand("a", false, 0.8), &foley.Verdict{Confidence: 0.8, Reason: "a dog, not a door", Judge: "listen"}),
			),
			budget: new(budget(spent)), loop: 2,
			want: policy.Drop, reason: []string{"silence", "generation budget spent", "a dog, not a door"}, notReason: []string{"not allowed"}},
		{name: "rule6 no candidates, generation not allowed",
			budget: new(budget(noGenerate)), loop: 2,
			want: policy.Drop, reason: []string{"silence", "generation not allowed", "no candidate passed the licence gate"}},
		{name: "rule6 no candidates, generation budget spent",
			budget: new(budget(spent)), loop: 2,
			want: policy.Drop, reason: []string{"silence", "generation budget spent", "no candidate passed the licence gate"}, notReason: []string{"not allowed"}},
		{name: "rule6 MaxGenerate zero counts as budget spent",
			budget: new(budget(func(b *policy.Budget) { b.MaxGenerate = 0 })), loop: 2,
			want: policy.Drop, reason: []string{"silence", "generation budget spent"}},
		{name: "rule6 zero budget",
			budget: &policy.Budget{},
			want:   policy.Drop, reason: []string{"silence"}},
		{name: "rule6 kept but unverified",
			kept:   cands(keptOnly("a")),
			budget: new(budget(spent)), loop: 2,
			want: policy.Drop, reason: []string{"silence"}, notReason: []string{"licence gate"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev := tc.event
			if ev.Query == "" {
				ev = diegetic
			}
			tauR := tc.tau
			if tauR == 0 && !tc.tauZero {
				tauR = tau
			}
			b := policy.DefaultBudget()
			if tc.budget != nil {
				b = *tc.budget
			}
			d, err := policy.Decide(ev, tc.kept, tc.verified, tauR, b, tc.loop)
			if err != nil {
				t.Fatalf("Decide: unexpected error %v", err)
			}
			if d.Action != tc.want {
				t.Fatalf("Action = %v, want %v (reason %q)", d.Action, tc.want, d.Reason)
			}
			if d.Reason == "" {
				t.Error("Reason is empty")
			}
			if tc.want == policy.Use {
				if d.Candidate == nil {
					t.Fatalf("Use without a candidate (reason %q)", d.Reason)
				}
				if got := candID(d); got != tc.wantID {
					t.Errorf("Candidate = %q, want %q (reason %q)", got, tc.wantID, d.Reason)
				}
				// The Use reason names the candidate and its judge.
				if !strings.Contains(d.Reason, d.Candidate.Sound.ID) {
					t.Errorf("Use reason %q does not name candidate %q", d.Reason, d.Candidate.Sound.ID)
				}
				if j := d.Candidate.Verdict.Judge; j != "" && !strings.Contains(d.Reason, j) {
					t.Errorf("Use reason %q does not name judge %q", d.Reason, j)
				}
			} else if d.Candidate != nil {
				t.Errorf("%v decision carries candidate %q; want nil", d.Action, candID(d))
			}
			if d.BestEffort != tc.bestEffort {
				t.Errorf("BestEffort = %v, want %v", d.BestEffort, tc.bestEffort)
			}
			for _, s := range tc.reason {
				if !strings.Contains(d.Reason, s) {
					t.Errorf("Reason %q does not contain %q", d.Reason, s)
				}
			}
			for _, s := range tc.notReason {
				if strings.Contains(d.Reason, s) {
					t.Errorf("Reason %q contains %q", d.Reason, s)
				}
			}
		})
	}
}

// With more non-matching verdicts than fit, the reason still says how many
// there were and carries the reasons of the first ones.
func TestDecideNoMatchReasonManyVerified(t *testing.T) {
	var verified []foley.Candidate
	for _, id := range []string{"a", "b", "c", "d"} {
		verified = append(verified, cand(id, false, 0.5))
	}
	for _, loop := range []int{0, 2} {
		t.Run(map[int]string{0: "refine", 2: "generate"}[loop], func(t *testing.T) {
			d, err := policy.Decide(diegetic, nil, verified, tau, policy.DefaultBudget(), loop)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{"4", "verdict reason of a", "verdict reason of b", "verdict reason of c"} {
				if !strings.Contains(d.Reason, s) {
					t.Errorf("Reason %q does not contain %q", d.Reason, s)
				}
			}
		})
	}
}

// The candidate of a Use decision is a copy: changing it, at any depth, must
// leave the caller's slice as it was.
func TestDecideUseReturnsCopy(t *testing.T) {
	mutations := []struct {
		name   string
		mutate func(*foley.Candidate)
		read   func(foley.Candidate) any // what the mutation touches, read from the input
	}{
		{"sound id", func(c *foley.Candidate) { c.Sound.ID = "changed" }, func(c foley.Candidate) any { return c.Sound.ID }},
		{"origin", func(c *foley.Candidate) { c.Origin = foley.OriginGenerated }, func(c foley.Candidate) any { return c.Origin }},
		{"verdict pointer replaced", func(c *foley.Candidate) { c.Verdict = nil }, func(c foley.Candidate) any { return c.Verdict != nil }},
		{"verdict confidence", func(c *foley.Candidate) { c.Verdict.Confidence = 0.01 }, func(c foley.Candidate) any { return c.Verdict.Confidence }},
		{"verdict match", func(c *foley.Candidate) { c.Verdict.Match = false }, func(c foley.Candidate) any { return c.Verdict.Match }},
		{"license ok", func(c *foley.Candidate) { *c.LicenseOK = false }, func(c foley.Candidate) any { return *c.LicenseOK }},
		{"tags element", func(c *foley.Candidate) { c.Sound.Tags[0] = "changed" }, func(c foley.Candidate) any { return c.Sound.Tags }},
		{"clap score", func(c *foley.Candidate) { *c.ClapScore = -1 }, func(c foley.Candidate) any { return *c.ClapScore }},
		{"event query", func(c *foley.Candidate) { c.Event.Query = "changed" }, func(c foley.Candidate) any { return c.Event.Query }},
	}
	setups := []struct {
		name       string
		budget     policy.Budget
		loop       int
		conf       float64
		bestEffort bool
	}{
		{"use", policy.DefaultBudget(), 0, 0.9, false},
		{"best effort", budget(spent), 2, 0.2, true},
	}
	for _, s := range setups {
		for _, m := range mutations {
			t.Run(s.name+"/"+m.name, func(t *testing.T) {
				verified := cands(cand("a", true, s.conf), cand("b", false, 0.1))
				before := copyCandidates(verified)
				d, err := policy.Decide(diegetic, nil, verified, tau, s.budget, s.loop)
				if err != nil {
					t.Fatal(err)
				}
				if d.Action != policy.Use || d.BestEffort != s.bestEffort || d.Candidate == nil {
					t.Fatalf("Decision = %+v, want Use (best effort %v)", d, s.bestEffort)
				}
				if d.Candidate == &verified[0] {
					t.Fatal("returned candidate is a pointer into the input slice")
				}
				m.mutate(d.Candidate)
				if !reflect.DeepEqual(verified, before) {
					t.Errorf("mutating the returned candidate (%s) changed the input slice: verified[0] now %v, was %v",
						m.name, m.read(verified[0]), m.read(before[0]))
				}
			})
		}
	}
}

// ---- purity -----------------------------------------------------------------

func TestDecidePure(t *testing.T) {
	tests := []struct {
		name     string
		event    foley.SoundEvent
		kept     []foley.Candidate
		verified []foley.Candidate
		budget   policy.Budget
		loop     int
	}{
		{"use", diegetic, cands(keptOnly("a"), keptOnly("b")), cands(cand("a", true, 0.9), cand("b", true, 0.7)), policy.DefaultBudget(), 0},
		{"refine", diegetic, cands(keptOnly("a")), cands(cand("a", true, 0.3)), policy.DefaultBudget(), 1},
		{"generate non-diegetic", nonDiegetic, nil, cands(gen(cand("g", true, 0.2))), policy.DefaultBudget(), 0},
		{"use generated", nonDiegetic, nil, cands(gen(cand("g", true, 0.9))), policy.DefaultBudget(), 0},
		{"best effort", explicitDiegetic, cands(keptOnly("a")), cands(cand("x", false, 0.9), cand("a", true, 0.3)), budget(spent), 2},
		{"drop", diegetic, nil, cands(cand("x", false, 0.9)), budget(noGenerate), 2},
		{"error unlicensed", diegetic, cands(withLicense(keptOnly("a"), nil)), nil, policy.DefaultBudget(), 0},
		{"error no verdict", diegetic, nil, cands(withVerdict(cand("a", true, 0.9), nil)), policy.DefaultBudget(), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			event, kept, verified, b := copyEvent(tc.event), copyCandidates(tc.kept), copyCandidates(tc.verified), tc.budget

			d1, err1 := policy.Decide(tc.event, tc.kept, tc.verified, tau, tc.budget, tc.loop)
			d2, err2 := policy.Decide(tc.event, tc.kept, tc.verified, tau, tc.budget, tc.loop)

			if !reflect.DeepEqual(d1, d2) {
				t.Errorf("two calls differ:\n %+v\n %+v", d1, d2)
			}
			if (err1 == nil) != (err2 == nil) || (err1 != nil && (err1.Error() != err2.Error() || foley.CodeOf(err1) != foley.CodeOf(err2))) {
				t.Errorf("two calls give different errors: %v / %v", err1, err2)
			}
			if !reflect.DeepEqual(tc.event, event) {
				t.Errorf("event mutated: %+v, was %+v", tc.event, event)
			}
			if !reflect.DeepEqual(tc.kept, kept) {
				t.Errorf("kept mutated:\n got  %+v\n want %+v", tc.kept, kept)
			}
			if !reflect.DeepEqual(tc.verified, verified) {
				t.Errorf("verified mutated:\n got  %+v\n want %+v", tc.verified, verified)
			}
			if tc.budget != b {
				t.Errorf("budget mutated: %+v, was %+v", tc.budget, b)
			}
		})
	}
}

// ---- budget -----------------------------------------------------------------

func TestDefaultBudget(t *testing.T) {
	want := policy.Budget{MaxRefine: 2, MaxGenerate: 1, AllowGenerate: true, ResetPerEvent: true, Generated: 0}
	if got := policy.DefaultBudget(); got != want {
		t.Errorf("DefaultBudget() = %+v, want %+v", got, want)
	}
	if err := policy.DefaultBudget().Validate(); err != nil {
		t.Errorf("DefaultBudget().Validate() = %v", err)
	}
	if policy.DefaultTauRetrieve != 0.5 {
		t.Errorf("DefaultTauRetrieve = %v, want 0.5", policy.DefaultTauRetrieve)
	}
}

func TestBudgetCanGenerate(t *testing.T) {
	tests := []struct {
		name string
		b    policy.Budget
		want bool
	}{
		{"default", policy.DefaultBudget(), true},
		{"spent", budget(spent), false},
		{"over spent", budget(func(b *policy.Budget) { b.Generated = 3 }), false},
		{"not allowed", budget(noGenerate), false},
		{"not allowed with budget", policy.Budget{MaxGenerate: 5}, false},
		{"max zero", budget(func(b *policy.Budget) { b.MaxGenerate = 0 }), false},
		{"one of three left", policy.Budget{AllowGenerate: true, MaxGenerate: 3, Generated: 2}, true},
		{"zero value", policy.Budget{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.b.CanGenerate(); got != tc.want {
				t.Errorf("%+v.CanGenerate() = %v, want %v", tc.b, got, tc.want)
			}
		})
	}
}

func TestBudgetStartEvent(t *testing.T) {
	tests := []struct {
		name string
		b    policy.Budget
		want int
	}{
		{"reset per event zeroes", policy.Budget{MaxRefine: 2, MaxGenerate: 1, AllowGenerate: true, ResetPerEvent: true, Generated: 1}, 0},
		{"reset per event zeroes many", policy.Budget{MaxGenerate: 10, AllowGenerate: true, ResetPerEvent: true, Generated: 7}, 0},
		{"shared budget kept", policy.Budget{MaxRefine: 2, MaxGenerate: 1, AllowGenerate: true, Generated: 1}, 1},
		{"shared budget kept many", policy.Budget{MaxGenerate: 10, Generated: 7}, 7},
		{"already zero", policy.DefaultBudget(), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.b
			b.StartEvent()
			if b.Generated != tc.want {
				t.Errorf("Generated after StartEvent = %d, want %d", b.Generated, tc.want)
			}
			// Nothing but Generated changes.
			b.Generated, tc.b.Generated = 0, 0
			if b != tc.b {
				t.Errorf("StartEvent changed other fields: %+v, was %+v", b, tc.b)
			}
		})
	}
	t.Run("reset restores generation", func(t *testing.T) {
		b := policy.DefaultBudget()
		b.Generated++
		if b.CanGenerate() {
			t.Fatal("CanGenerate after spending the only generation")
		}
		b.StartEvent()
		if !b.CanGenerate() {
			t.Error("CanGenerate false after StartEvent with ResetPerEvent")
		}
	})
	t.Run("shared budget stays spent", func(t *testing.T) {
		b := policy.DefaultBudget()
		b.ResetPerEvent = false
		b.Generated++
		b.StartEvent()
		if b.CanGenerate() {
			t.Error("CanGenerate true after StartEvent on a shared, spent budget")
		}
	})
}

func TestBudgetValidate(t *testing.T) {
	tests := []struct {
		name string
		b    policy.Budget
		ok   bool
	}{
		{"default", policy.DefaultBudget(), true},
		{"zero", policy.Budget{}, true},
		{"negative max refine", policy.Budget{MaxRefine: -1}, false},
		{"negative max generate", policy.Budget{MaxGenerate: -1}, false},
		{"negative generated", policy.Budget{Generated: -1}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.b.Validate()
			if tc.ok {
				if err != nil {
					t.Errorf("Validate() = %v, want nil", err)
				}
				return
			}
			if foley.CodeOf(err) != foley.Invalid {
				t.Errorf("Validate() = %v (code %q), want an Invalid error", err, foley.CodeOf(err))
			}
		})
	}
}

// AllowGenerate=false never yields Generate, whatever the event, loop and
// candidates.
func TestDecideNeverGeneratesWhenNotAllowed(t *testing.T) {
	events := map[string]foley.SoundEvent{"diegetic": diegetic, "explicit diegetic": explicitDiegetic, "non-diegetic": nonDiegetic}
	lists := map[string][]foley.Candidate{
		"none":          nil,
		"no match":      cands(cand("x", false, 0.9)),
		"below tau":     cands(cand("a", true, 0.2)),
		"generated low": cands(gen(cand("g", true, 0.2))),
	}
	for en, ev := range events {
		for ln, verified := range lists {
			for loop := range 5 {
				for _, gens := range []int{0, 1, 5} {
					b := policy.Budget{MaxRefine: 2, MaxGenerate: 5, Generated: gens, AllowGenerate: false, ResetPerEvent: true}
					d, err := policy.Decide(ev, nil, verified, tau, b, loop)
					if err != nil {
						t.Fatalf("%s/%s/loop %d: %v", en, ln, loop, err)
					}
					if d.Action == policy.Generate {
						t.Errorf("%s/%s/loop %d/generated %d: Generate with AllowGenerate=false (reason %q)", en, ln, loop, gens, d.Reason)
					}
				}
			}
		}
	}
}

// ---- action -----------------------------------------------------------------

func TestActionString(t *testing.T) {
	tests := []struct {
		a    policy.Action
		want string
	}{
		{policy.Use, "use"},
		{policy.Refine, "refine"},
		{policy.Generate, "generate"},
		{policy.Drop, "drop"},
		{0, "action(0)"},
		{5, "action(5)"},
		{-1, "action(-1)"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			if got := tc.a.String(); got != tc.want {
				t.Errorf("Action(%d).String() = %q, want %q", int(tc.a), got, tc.want)
			}
		})
	}
}

func TestActionMarshalText(t *testing.T) {
	tests := []struct {
		a       policy.Action
		want    string
		wantErr bool
	}{
		{a: policy.Use, want: "use"},
		{a: policy.Refine, want: "refine"},
		{a: policy.Generate, want: "generate"},
		{a: policy.Drop, want: "drop"},
		{a: 0, wantErr: true},
		{a: 5, wantErr: true},
		{a: -1, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.a.String(), func(t *testing.T) {
			got, err := tc.a.MarshalText()
			if tc.wantErr {
				if err == nil {
					t.Errorf("MarshalText() = %q, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("MarshalText(): %v", err)
			}
			if string(got) != tc.want {
				t.Errorf("MarshalText() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDecisionJSON(t *testing.T) {
	c := cand("a", true, 0.9)
	tests := []struct {
		name string
		d    policy.Decision
		want []string
		not  []string
	}{
		{"use", policy.Decision{Action: policy.Use, Candidate: &c, Reason: "r"},
			[]string{`"action":"use"`, `"candidate":{`, `"reason":"r"`}, []string{"best_effort"}},
		{"use best effort", policy.Decision{Action: policy.Use, Candidate: &c, BestEffort: true, Reason: "r"},
			[]string{`"action":"use"`, `"best_effort":true`}, nil},
		{"refine", policy.Decision{Action: policy.Refine, Reason: "r"},
			[]string{`"action":"refine"`}, []string{"candidate"}},
		{"generate", policy.Decision{Action: policy.Generate, Reason: "r"},
			[]string{`"action":"generate"`}, []string{"candidate"}},
		{"drop", policy.Decision{Action: policy.Drop, Reason: "r"},
			[]string{`"action":"drop"`}, []string{"candidate"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.d)
			if err != nil {
				t.Fatalf("json.Marshal: %v", err)
			}
			for _, s := range tc.want {
				if !strings.Contains(string(b), s) {
					t.Errorf("JSON %s does not contain %s", b, s)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(string(b), s) {
					t.Errorf("JSON %s contains %s", b, s)
				}
			}
		})
	}
	t.Run("from Decide", func(t *testing.T) {
		d, err := policy.Decide(diegetic, nil, cands(cand("a", true, 0.9)), tau, policy.DefaultBudget(), 0)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m["action"] != "use" {
			t.Errorf(`"action" = %v, want "use" in %s`, m["action"], b)
		}
		if m["reason"] != d.Reason {
			t.Errorf(`"reason" = %v, want %q`, m["reason"], d.Reason)
		}
	})
	t.Run("invalid action fails", func(t *testing.T) {
		if b, err := json.Marshal(policy.Decision{Reason: "r"}); err == nil {
			t.Errorf("json.Marshal of a zero action = %s, want an error", b)
		}
	})
}

func TestActionText(t *testing.T) {
	for _, a := range []policy.Action{policy.Use, policy.Refine, policy.Generate, policy.Drop} {
		b, err := a.MarshalText()
		var back policy.Action
		if err != nil || back.UnmarshalText(b) != nil || back != a {
			t.Errorf("%v: %s %v -> %v", a, b, err, back)
		}
	}
	var a policy.Action
	if err := a.UnmarshalText([]byte("shrug")); err == nil {
		t.Error("shrug accepted")
	}
}
