package eval

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/verify"
)

// fixedSearch returns, for each query, the given ranking with the given
// clap scores.
func fixedSearch(rankings map[string][]string, scores map[string]float64) Searcher {
	return func(_ context.Context, e foley.SoundEvent, k int) ([]foley.Candidate, error) {
		var out []foley.Candidate
		for _, id := range rankings[e.Query] {
			c := foley.Candidate{Sound: foley.SoundRecord{ID: id, Caption: id}}
			if s, ok := scores[id]; ok {
				c.ClapScore = new(s)
			}
			out = append(out, c)
		}
		return out[:min(k, len(out))], nil
	}
}

func golden(t *testing.T, js string) *Golden {
	t.Helper()
	g, err := ParseGolden([]byte(js), "test")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

const tiny = `{"name": "tiny", "items": [
 {"id": "q1", "event": {"query": "door slam", "ucs_catid": "DOORWood"}, "relevance": {"a": 3, "b": 1}, "hard_negatives": ["x"], "kind": "direct"},
 {"id": "q2", "event": {"query": "dog bark", "ucs_catid": "ANMLDog"}, "relevance": {"c": 2}, "kind": "near_miss"},
 {"id": "q3", "event": {"query": "whale song", "ucs_catid": "ANMLWhale"}, "relevance": {}, "hard_negatives": ["c"], "kind": "no_match"}
]}`

func TestRetrievalByHand(t *testing.T) {
	g := golden(t, tiny)
	search := fixedSearch(map[string][]string{
		"door slam":  {"a", "x", "b"}, // nDCG@10: (3 + 1/log2 4) / (3 + 1/log2 3) = 3.5 / 3.630930
		"dog bark":   {"x", "y", "c"}, // nDCG: (2/log2 4) / 2 = 0.5; RR 1/3; AP@10 = (1/3)/1
		"whale song": {"c"},
	}, nil)
	rep, err := Retrieval(context.Background(), g, search, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n1 := 3.5 / (3 + 1/math.Log2(3))
	// AP@10 for q1: hits at 1 and 3: (1 + 2/3) / 2 = 0.833333.
	checks := map[string][2]float64{
		"ndcg":   {float64(rep.Overall.NDCG), (n1 + 0.5) / 2},
		"r@1":    {float64(rep.Overall.Recall1), (0.5 + 0) / 2},
		"r@5":    {float64(rep.Overall.Recall5), 1},
		"map@10": {float64(rep.Overall.MAP), (5.0/6 + 1.0/3) / 2},
		"mrr":    {float64(rep.Overall.MRR), (1 + 1.0/3) / 2},
	}
	for name, c := range checks {
		if math.Abs(c[0]-c[1]) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, c[0], c[1])
		}
	}
	if rep.Overall.Items != 3 || rep.Overall.Scored != 2 {
		t.Errorf("items %d scored %d, want 3 and 2", rep.Overall.Items, rep.Overall.Scored)
	}
	fams := map[string]RetrievalSummary{}
	for _, f := range rep.Families {
		fams[f.Group] = f
	}
	if f := fams["ANIMALS"]; f.Items != 2 || f.Scored != 1 || math.Abs(float64(f.NDCG)-0.5) > 1e-9 {
		t.Errorf("ANIMALS family %+v", f)
	}
	if f := fams["DOORS"]; math.Abs(float64(f.NDCG)-n1) > 1e-9 {
		t.Errorf("DOORS family %+v", f)
	}
	// Undefined metrics are JSON null.
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"id":"q3","family":"ANIMALS","kind":"no_match","ndcg_at_k":null`) {
		t.Errorf("no_match item not null in JSON: %s", b)
	}
}

// answerJudge accepts the clips in accept, with confidence 0.8, and fails
// on the clips in fail.
type answerJudge struct{ accept, fail map[string]bool }

func (answerJudge) Name() string { return "answers" }
func (j answerJudge) Judge(_ context.Context, _ foley.SoundEvent, c foley.Candidate, level foley.VerifyLevel) (foley.Verdict, error) {
	if j.fail[c.Sound.ID] {
		return foley.Verdict{}, foley.Errorf(foley.Unavailable, "server down")
	}
	return foley.Verdict{Match: j.accept[c.Sound.ID], Confidence: 0.8, Reason: "r", Level: level, Judge: "answers"}, nil
}

func TestFitByHand(t *testing.T) {
	g := golden(t, tiny)
	search := fixedSearch(map[string][]string{
		"door slam":  {"a", "x", "b"},
		"dog bark":   {"x", "y", "c"},
		"whale song": {"c", "z"},
	}, map[string]float64{"a": 0.9, "x": 0.9, "b": 0.9, "y": 0.9, "c": 0.9, "z": 0.1})
	j := answerJudge{accept: map[string]bool{"a": true, "x": true, "c": true}, fail: map[string]bool{"y": true}}
	rep, err := Fit(context.Background(), g, search, Options{Level: foley.LevelListen, TauClap: 0.35, Judge: j})
	if err != nil {
		t.Fatal(err)
	}
	// q1: a accepted relevant (TP), x accepted wrong (FP), b rejected relevant (FN).
	// q2: x accepted wrong (FP), y error, c accepted relevant (TP).
	// q3: c accepted wrong (FP, no clip is relevant), z fails the clap gate: rejected wrong (TN).
	o := rep.Overall
	if o.TP != 2 || o.FP != 3 || o.FN != 1 || o.TN != 1 || o.Errors != 1 || o.Judged != 7 {
		t.Fatalf("overall %+v", o)
	}
	// precision 2/5, recall 2/3, F1 = 2*.4*.6667/1.0667 = 0.5, accept 5/7,
	// mean confidence: six verdicts of 0.8 and z's clap verdict of 0.1 over 7.
	for name, c := range map[string][2]float64{
		"precision": {float64(o.Precision), 0.4}, "recall": {float64(o.Recall), 2.0 / 3}, "f1": {float64(o.F1), 0.5},
		"accept": {float64(o.AcceptRate), 5.0 / 7}, "conf": {float64(o.MeanConfidence), (6*0.8 + 0.1) / 7},
	} {
		if math.Abs(c[0]-c[1]) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, c[0], c[1])
		}
	}
	if len(rep.Strata) != 2 || rep.Strata[0].Stratum != "ANIMALS/diegetic" || rep.Strata[1].Stratum != "DOORS/diegetic" {
		t.Errorf("strata %+v", rep.Strata)
	}
	if rep.Judge != "answers" || len(rep.FirstErrs) != 1 || !strings.Contains(rep.FirstErrs[0], "server down") {
		t.Errorf("judge %q errors %q", rep.Judge, rep.FirstErrs)
	}
	if rep.Usage.Calls != 0 {
		t.Errorf("a judge without model calls counted %d", rep.Usage.Calls)
	}
}

func TestFitDefaultJudgeIsDeterministic(t *testing.T) {
	g := golden(t, tiny)
	rep, err := Fit(context.Background(), g, fixedSearch(map[string][]string{"door slam": {"a"}}, map[string]float64{"a": 0.9}), Options{Level: foley.LevelJudge, TauClap: 0.35})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Judge != (verify.StringOverlapJudge{}).Name() {
		t.Errorf("judge %q", rep.Judge)
	}
}

func TestCalibrateByHand(t *testing.T) {
	g := golden(t, tiny)
	search := fixedSearch(map[string][]string{
		"door slam":  {"a", "x", "b"},
		"dog bark":   {"c", "y"},
		"whale song": {"c", "n"},
	}, map[string]float64{"a": 0.8, "x": 0.6, "b": 0.4, "c": 0.7, "y": 0.2})
	rep, err := Calibrate(context.Background(), g, search, Options{Target: 0.75, Step: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	// Pairs: a .8 rel, x .6, b .4 rel, c .7 rel, y .2, c .7 (q3: wrong), n (no score).
	if rep.Pairs != 7 || rep.Relevant != 3 || len(rep.Points) != 11 {
		t.Fatalf("pairs %d relevant %d points %d", rep.Pairs, rep.Relevant, len(rep.Points))
	}
	want := map[float64][3]float64{ // accepted, precision, recall
		0.0: {6, 0.5, 1},           // all scored pairs
		0.3: {5, 0.6, 1},           // drops y
		0.5: {4, 0.5, 2.0 / 3},     // drops b
		0.7: {3, 2.0 / 3, 2.0 / 3}, // drops x (c at exactly .7 stays)
		0.8: {1, 1, 1.0 / 3},       // only a
		0.9: {0, math.NaN(), 0},
	}
	for _, pt := range rep.Points {
		w, ok := want[pt.Threshold]
		if !ok {
			continue
		}
		if pt.Accepted != int(w[0]) || !near(float64(pt.Precision), w[1]) || !near(float64(pt.Recall), w[2]) {
			t.Errorf("at %v: accepted %d P %v R %v, want %v", pt.Threshold, pt.Accepted, pt.Precision, pt.Recall, w)
		}
	}
	if rep.Threshold == nil || rep.Threshold.Threshold != 0.8 {
		t.Errorf("threshold for precision 0.75: %+v, want 0.8", rep.Threshold)
	}
}

func TestParseGoldenErrors(t *testing.T) {
	for _, bad := range []struct{ js, want string }{
		{`{"name": "x", "items": []}`, "no items"},
		{`not json`, "invalid character"},
		{`{"name": "x", "items": [{"id": "", "event": {"query": "a"}}]}`, "no id"},
		{`{"name": "x", "items": [{"id": "a", "event": {"query": " "}}]}`, "no query"},
		{`{"name": "x", "items": [{"id": "a", "event": {"query": "q"}}, {"id": "a", "event": {"query": "q"}}]}`, "used twice"},
		{`{"name": "x", "items": [{"id": "a", "event": {"query": "q"}, "relevance": {"c": 4}}]}`, "grade 4"},
		{`{"name": "x", "items": [{"id": "a", "event": {"query": "q"}, "relevance": {"c": 2}, "hard_negatives": ["c"]}]}`, "both relevant"},
		{`{"name": "x", "items": [{"id": "a", "event": {"query": "q"}, "kind": "odd"}]}`, "kind"},
		{`{"name": "x", "items": [{"id": "a", "event": {"query": "q"}, "extra": 1}]}`, "unknown field"},
	} {
		if _, err := ParseGolden([]byte(bad.js), "t.json"); err == nil || !strings.Contains(err.Error(), bad.want) || foley.CodeOf(err) != foley.Invalid {
			t.Errorf("%s: %v, want an invalid error with %q", bad.js, err, bad.want)
		}
	}
}
