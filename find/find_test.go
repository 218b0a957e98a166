package find

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/policy"
)

// clip is a library record for the fake search.
func clip(id, caption, licence string, clap float64) foley.Candidate {
	return foley.Candidate{
		Sound: foley.SoundRecord{ID: id, Caption: caption, URI: "/clips/" + id + ".wav",
			License: foley.License{LicenseID: licence, RightsVerified: true, Creator: "someone"}},
		Origin: foley.OriginRetrieved, ClapScore: new(clap),
	}
}

// fakeSearch answers each query with its list, recording the queries.
type fakeSearch struct {
	lists   map[string][]foley.Candidate
	queries []string
	filters []foley.Filter
}

func (f *fakeSearch) search(_ context.Context, q string, k int, flt foley.Filter) ([]foley.Candidate, error) {
	f.queries, f.filters = append(f.queries, q), append(f.filters, flt)
	if q == "explode" {
		return nil, errors.New("library is gone")
	}
	l := f.lists[q]
	return append([]foley.Candidate(nil), l[:min(k, len(l))]...), nil
}

// scoreJudge answers with the confidence in conf by clip id (0 when
// absent), matching at 0.3, and counts its calls.
type scoreJudge struct {
	conf  map[string]float64
	calls atomic.Int64
}

func (j *scoreJudge) Name() string { return "scores" }
func (j *scoreJudge) Judge(_ context.Context, _ foley.SoundEvent, c foley.Candidate, level foley.VerifyLevel) (foley.Verdict, error) {
	j.calls.Add(1)
	conf := j.conf[c.Sound.ID]
	return foley.Verdict{Match: conf >= 0.3, Confidence: conf, Reason: "scored " + c.Sound.ID, Level: level, Judge: j.Name()}, nil
}

type fakeRefiner struct {
	variants []string
	failures []string
	tried    [][]string
}

func (f *fakeRefiner) Name() string { return "fake-refiner" }
func (f *fakeRefiner) Refine(_ context.Context, _ foley.SoundEvent, failure string, tried []string, n int) ([]string, error) {
	f.failures = append(f.failures, failure)
	f.tried = append(f.tried, append([]string(nil), tried...))
	return f.variants[:min(n, len(f.variants))], nil
}

type fakeGenerator struct {
	calls int
	fail  error
}

func (g *fakeGenerator) Name() string { return "fakegen:v1" }
func (g *fakeGenerator) Generate(_ context.Context, req foley.GenerateRequest) (foley.GeneratedClip, error) {
	g.calls++
	if g.fail != nil {
		return foley.GeneratedClip{}, g.fail
	}
	return foley.GeneratedClip{Audio: []byte("ID3fake"), Format: "mp3", Generator: "fakegen/v1", Prompt: req.Prompt,
		License: foley.License{Source: "fakegen", LicenseID: "ElevenLabs-SFX", RightsVerified: true}}, nil
}

type memStore struct{ recs []foley.SoundRecord }

func (m *memStore) AddGenerated(_ context.Context, c foley.GeneratedClip, e foley.SoundEvent) (foley.SoundRecord, error) {
	r := foley.SoundRecord{ID: "gen-1", Caption: c.Prompt, URI: "/gen/gen-1.mp3", License: c.License}
	r.License.IsAIGenerated, r.License.GenerationPrompt, r.License.Generator = true, c.Prompt, c.Generator
	m.recs = append(m.recs, r)
	return r, nil
}

func doorLists() map[string][]foley.Candidate {
	return map[string][]foley.Candidate{
		"door slam": {
			clip("knock", "door knock", "CC0-1.0", 0.80),
			clip("nc-slam", "door slam, non-commercial", "CC-BY-NC-4.0", 0.79),
			clip("slam", "door slam", "CC0-1.0", 0.70),
			clip("slam2", "door slam two", "CC0-1.0", 0.65),
			clip("creak", "door creak", "CC0-1.0", 0.60),
			clip("low", "footsteps", "CC0-1.0", 0.10),
		},
	}
}

func TestFindUsesTheBestClipCheaply(t *testing.T) {
	s := &fakeSearch{lists: doorLists()}
	j := &scoreJudge{conf: map[string]float64{"knock": 0.1, "slam": 0.9, "slam2": 0.8, "creak": 0.2}}
	res, err := Find(context.Background(), s.search, []foley.SoundEvent{foley.NewEvent("door slam")}, Options{Use: foley.DefaultUse(), Judge: j, TauClap: 0.35})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.Action != policy.Use || r.Chosen == nil || r.Chosen.Sound.ID != "slam" || r.BestEffort {
		t.Fatalf("result %+v", r)
	}
	// knock (0.1, no match), then slam (0.9 >= 0.5): stop. slam2 and
	// creak are not asked.
	if j.calls.Load() != 2 || r.Cost.Expensive != 2 {
		t.Errorf("%d judge calls, cost %+v; want 2", j.calls.Load(), r.Cost)
	}
	if !s.filters[0].CommercialOnly {
		t.Error("the search did not filter for commercial use")
	}
	trail := map[string]Trail{}
	for _, tr := range r.Steps[0].Trail {
		trail[tr.ID] = tr
	}
	if tr := trail["nc-slam"]; tr.LicenseOK || !strings.Contains(tr.LicenseReason, "commercial") || len(tr.Verdicts) != 0 {
		t.Errorf("the non-commercial clip: %+v", tr)
	}
	if tr := trail["slam"]; len(tr.Verdicts) != 2 || tr.Verdicts[0].Level != foley.LevelClap || tr.Verdicts[1].Judge != "scores" {
		t.Errorf("slam's verdict trail: %+v", tr.Verdicts)
	}
	if tr := trail["slam2"]; !strings.Contains(tr.Skipped, "earlier candidate reached tau_retrieve") {
		t.Errorf("slam2 skipped %q", tr.Skipped)
	}
	if tr := trail["low"]; len(tr.Verdicts) != 1 || tr.Verdicts[0].Match {
		t.Errorf("low: %+v, want a failed clap verdict only", tr.Verdicts)
	}

	// Exhaustive asks the judge about every clap-passing clip.
	j2 := &scoreJudge{conf: j.conf}
	res, _ = Find(context.Background(), s.search, []foley.SoundEvent{foley.NewEvent("door slam")}, Options{Use: foley.DefaultUse(), Judge: j2, TauClap: 0.35, Exhaustive: true})
	if j2.calls.Load() != 4 || res[0].Chosen.Sound.ID != "slam" {
		t.Errorf("exhaustive: %d calls, chose %v", j2.calls.Load(), res[0].Chosen)
	}
	// MaxExpensive 1: only knock is asked; nothing reaches tau; no refiner,
	// no generator: best effort is impossible (knock did not match): silence.
	j3 := &scoreJudge{conf: j.conf}
	res, _ = Find(context.Background(), s.search, []foley.SoundEvent{foley.NewEvent("door slam")}, Options{Use: foley.DefaultUse(), Judge: j3, TauClap: 0.35, MaxExpensive: 1})
	r = res[0]
	if j3.calls.Load() != 1 || r.Action != policy.Drop || !strings.Contains(r.Reason, "no refiner is configured") || !strings.Contains(r.Reason, "no generator is configured") {
		t.Errorf("max expensive 1: %d calls, %v: %s", j3.calls.Load(), r.Action, r.Reason)
	}
}

func TestFindRefines(t *testing.T) {
	lists := doorLists()
	lists["door bang"] = []foley.Candidate{clip("bang", "door bang", "CC0-1.0", 0.75)}
	lists["a portal slams"] = []foley.Candidate{clip("knock", "door knock", "CC0-1.0", 0.80)}
	s := &fakeSearch{lists: lists}
	j := &scoreJudge{conf: map[string]float64{"knock": 0.1, "bang": 0.95}}
	ref := &fakeRefiner{variants: []string{"door bang", "A Portal  Slams", "a portal slams"}}
	ev := foley.NewEvent("a portal slams")
	res, err := Find(context.Background(), s.search, []foley.SoundEvent{ev}, Options{Use: foley.DefaultUse(), Judge: j, Refiner: ref, TauClap: 0.35})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.Action != policy.Use || r.Chosen.Sound.ID != "bang" || len(r.Steps) != 2 {
		t.Fatalf("%+v", r)
	}
	if r.Steps[0].Decision.Action != policy.Refine || r.Steps[1].Refiner != "fake-refiner" {
		t.Errorf("steps %+v", r.Steps)
	}
	// The refiner heard why the first shortlist failed, and what was tried;
	// its repeats of the tried query were dropped.
	if len(ref.failures) != 1 || !strings.Contains(ref.failures[0], "knock") || ref.tried[0][0] != "a portal slams" {
		t.Errorf("refiner got %q, tried %q", ref.failures, ref.tried)
	}
	if got := r.Steps[1].Queries; len(got) != 2 || got[0] != "a portal slams" || got[1] != "door bang" {
		t.Errorf("step 2 searched %q", got)
	}
	// knock was found again in step 2 and not judged again.
	if j.calls.Load() != 2 {
		t.Errorf("%d judge calls, want 2 (knock once, bang once)", j.calls.Load())
	}
}

func TestFindGenerates(t *testing.T) {
	s := &fakeSearch{lists: doorLists()}
	j := &scoreJudge{conf: map[string]float64{"gen-1": 0.85}}
	gen := &fakeGenerator{}
	store := &memStore{}
	events := []foley.SoundEvent{foley.NewEvent("door slam"), foley.NewEvent("laser zap")}
	res, err := Find(context.Background(), s.search, events, Options{Use: foley.DefaultUse(), Judge: j, Generator: gen, Store: store, TauClap: 0.35})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Action != policy.Use || r.Chosen == nil || r.Chosen.Sound.ID != "gen-1" || r.Chosen.Origin != foley.OriginGenerated {
			t.Fatalf("%s: %+v", r.Event.Query, r)
		}
		last := r.Steps[len(r.Steps)-1]
		if last.Generate != "fakegen:v1" || len(last.Trail) != 1 || len(last.Trail[0].Verdicts) != 1 || last.Trail[0].Verdicts[0].Level != foley.LevelListen {
			t.Errorf("%s: generated step %+v (want a listen verdict and no clap verdict)", r.Event.Query, last)
		}
		if r.Cost.Generations != 1 {
			t.Errorf("cost %+v", r.Cost)
		}
	}
	// The budget resets per event: two events, two generations.
	if gen.calls != 2 || len(store.recs) != 2 || !store.recs[0].License.IsAIGenerated {
		t.Errorf("generator calls %d, stored %+v", gen.calls, store.recs)
	}

	// A generator that fails: that event is silence with the error, the
	// next one goes on.
	gen.fail = foley.Errorf(foley.Unavailable, "quota exceeded")
	res, err = Find(context.Background(), s.search, []foley.SoundEvent{foley.NewEvent("laser zap"), foley.NewEvent("door slam")},
		Options{Use: foley.DefaultUse(), Judge: &scoreJudge{conf: map[string]float64{"slam": 0.9}}, Generator: gen, Store: store, TauClap: 0.35})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Action != policy.Drop || !strings.Contains(res[0].Error, "quota exceeded") || res[1].Action != policy.Use {
		t.Errorf("results %+v", res)
	}
}

func TestFindNonDiegeticGeneratesFirst(t *testing.T) {
	s := &fakeSearch{lists: doorLists()}
	no := false
	ev := foley.SoundEvent{Query: "door slam", Diegetic: &no}
	gen := &fakeGenerator{}
	res, _ := Find(context.Background(), s.search, []foley.SoundEvent{ev}, Options{Use: foley.DefaultUse(),
		Judge: &scoreJudge{conf: map[string]float64{"slam": 0.9, "gen-1": 0.95}}, Generator: gen, Store: &memStore{}, TauClap: 0.35})
	if gen.calls != 1 || res[0].Chosen.Sound.ID != "gen-1" {
		t.Errorf("non-diegetic: %d generations, chose %v", gen.calls, res[0].Chosen)
	}
	// Without a generator it says so and uses the retrieved clip.
	res, _ = Find(context.Background(), s.search, []foley.SoundEvent{ev}, Options{Use: foley.DefaultUse(),
		Judge: &scoreJudge{conf: map[string]float64{"slam": 0.9}}, TauClap: 0.35})
	if res[0].Chosen == nil || res[0].Chosen.Sound.ID != "slam" || !strings.Contains(res[0].Reason, "no generator is configured") {
		t.Errorf("non-diegetic without a generator: %+v", res[0])
	}
}

func TestFindErrors(t *testing.T) {
	s := &fakeSearch{lists: doorLists()}
	res, err := Find(context.Background(), s.search, []foley.SoundEvent{foley.NewEvent("explode"), foley.NewEvent("door slam")}, Options{Use: foley.DefaultUse(), TauClap: 0.35})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Action != policy.Drop || !strings.Contains(res[0].Error, "library is gone") || res[1].Action == 0 {
		t.Errorf("%+v", res)
	}
	for _, o := range []Options{{TauClap: 2}, {TauRetrieve: -1}, {Level: foley.VerifyLevel(9)}, {Generator: &fakeGenerator{}}} {
		if _, err := Find(context.Background(), s.search, []foley.SoundEvent{foley.NewEvent("x")}, o); foley.CodeOf(err) != foley.Invalid {
			t.Errorf("%+v: %v", o, err)
		}
	}
	if _, err := Find(context.Background(), s.search, []foley.SoundEvent{{Query: " "}}, Options{}); foley.CodeOf(err) != foley.Invalid {
		t.Errorf("empty query: %v", err)
	}
}

func TestFuse(t *testing.T) {
	a := []foley.Candidate{clip("x", "", "CC0-1.0", .1), clip("y", "", "CC0-1.0", .2)}
	b := []foley.Candidate{clip("y", "", "CC0-1.0", .2), clip("z", "", "CC0-1.0", .3)}
	got := fuse([][]foley.Candidate{a, b}, 10)
	// y: 1/62 + 1/61; x: 1/61; z: 1/62.
	if len(got) != 3 || got[0].Sound.ID != "y" || got[1].Sound.ID != "x" || got[2].Sound.ID != "z" {
		t.Errorf("fused %v %v %v", got[0].Sound.ID, got[1].Sound.ID, got[2].Sound.ID)
	}
	if d := *got[0].RRFScore - (1.0/62 + 1.0/61); d > 1e-12 || d < -1e-12 {
		t.Errorf("rrf %v", *got[0].RRFScore)
	}
}

func TestCredits(t *testing.T) {
	by := clip("rain", "Rain on a tin roof", "CC-BY-4.0", 0.9)
	by.Sound.License.Title, by.Sound.License.SourceURL = "Tin roof rain", "https://freesound.org/s/1/"
	cc0 := clip("door", "Door slam", "CC0-1.0", 0.9)
	own := clip("own", "x", "CC-BY-4.0", 0.9)
	own.Sound.License.Attribution = "Sound by Jane Doe, used with thanks"
	gen := foley.Candidate{Sound: foley.SoundRecord{ID: "gen-1", Caption: "laser zap", License: foley.License{LicenseID: "ElevenLabs-SFX",
		IsAIGenerated: true, Generator: "elevenlabs/eleven_text_to_sound_v2", GenerationPrompt: "laser zap"}}}
	res := []Result{
		{Event: foley.NewEvent("rain"), Action: policy.Use, Chosen: &by},
		{Event: foley.NewEvent("door"), Action: policy.Use, Chosen: &cc0},
		{Event: foley.NewEvent("more rain"), Action: policy.Use, Chosen: &by},
		{Event: foley.NewEvent("silence"), Action: policy.Drop},
		{Event: foley.NewEvent("thanks"), Action: policy.Use, Chosen: &own},
		{Event: foley.NewEvent("zap"), Action: policy.Use, Chosen: &gen},
	}
	cr := Credits(res)
	if len(cr) != 4 {
		t.Fatalf("%d credits: %+v", len(cr), cr)
	}
	want := []string{
		`"Tin roof rain" by someone (https://freesound.org/s/1/), licensed under Creative Commons Attribution 4.0 International (CC BY 4.0) (https://creativecommons.org/licenses/by/4.0/)`,
		`"Door slam" by someone, licensed under CC0 1.0 Universal (https://creativecommons.org/publicdomain/zero/1.0/)`,
		`Sound by Jane Doe, used with thanks`,
		`"laser zap", generated with elevenlabs/eleven_text_to_sound_v2 from the prompt "laser zap" (ElevenLabs-SFX)`,
	}
	for i, w := range want {
		if cr[i].Line != w {
			t.Errorf("credit %d:\n got %s\nwant %s", i, cr[i].Line, w)
		}
	}
	if cr[0].Events != "rain; more rain" || !cr[0].AttributionRequired || cr[1].AttributionRequired || !cr[3].AIGenerated {
		t.Errorf("%+v", cr)
	}
}

// filterSearch honours the commercial filter the way the library does (by
// the licence's commercial flag), and ranks differently without it.
func filterSearch(_ context.Context, q string, k int, f foley.Filter) ([]foley.Candidate, error) {
	all := []foley.Candidate{
		clip("nc", "door slam, non-commercial", "CC-BY-NC-4.0", 0.9),
		clip("slam", "door slam", "CC0-1.0", 0.8),
		clip("knock", "door knock", "CC0-1.0", 0.7),
		clip("creak", "door creak", "CC0-1.0", 0.6),
	}
	var out []foley.Candidate
	for _, c := range all {
		if f.CommercialOnly && c.Sound.License.LicenseID == "CC-BY-NC-4.0" {
			continue
		}
		out = append(out, c)
	}
	if f.CommercialOnly && len(out) > 2 {
		out = out[:2] // the filtered list is shorter: creak falls out of it
	}
	return out[:min(k, len(out))], nil
}

func TestFindShowsWhatTheLicenceFilterKeptOut(t *testing.T) {
	ref := &fakeRefiner{variants: []string{"door bang"}}
	j := &scoreJudge{conf: map[string]float64{}}
	res, err := Find(context.Background(), filterSearch, []foley.SoundEvent{foley.NewEvent("door slam")},
		Options{Use: foley.DefaultUse(), Judge: j, Refiner: ref, TauClap: 0.35, Budget: &policy.Budget{MaxRefine: 1}})
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]int{}
	for _, st := range res[0].Steps {
		for _, tr := range st.Trail {
			if strings.HasPrefix(tr.LicenseReason, "filtered out of the search") {
				shown[tr.ID]++
				if tr.LicenseOK || !strings.Contains(tr.LicenseReason, "commercial") {
					t.Errorf("%s: %+v", tr.ID, tr)
				}
			}
		}
	}
	// The non-commercial clip is shown once for the event; the CC0 clip
	// that only fell out of the shorter filtered list is not called
	// filtered.
	if shown["nc"] != 1 || shown["creak"] != 0 || len(res[0].Steps) != 2 {
		t.Errorf("shown %v over %d steps", shown, len(res[0].Steps))
	}
}
