package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foley-audio/foley/internal/fakeaudiolm"
)

func TestEvalRetrieval(t *testing.T) {
	code, out, errs := foleyRun(t, "", "eval", "retrieval")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"foley-golden-v1", "NDCG@10", "kind paraphrase", "DOORS", "text only"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	plot := filepath.Join(t.TempDir(), "fam.svg")
	code, out, errs = foleyRun(t, "", "eval", "retrieval", "--json", "--items", "--plot", plot)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Overall struct {
			NDCG *float64 `json:"ndcg_at_k"`
		} `json:"overall"`
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Overall.NDCG == nil || len(rep.Items) < 150 {
		t.Fatalf("JSON: %v %+v", err, rep.Overall)
	}
	if b, err := os.ReadFile(plot); err != nil || !strings.Contains(string(b), "<svg") {
		t.Errorf("no SVG plot written: %v", err)
	}
}

func TestEvalFitAndCalibrate(t *testing.T) {
	clearJudgeEnv(t)
	code, out, errs := foleyRun(t, "", "eval", "fit", "--level", "judge")
	if code != 0 || !strings.Contains(out, "judge string-overlap") || !strings.Contains(out, "model calls 0") {
		t.Fatalf("fit: exit %d\n%s\n%s", code, out, errs)
	}
	plot := filepath.Join(t.TempDir(), "pr.png")
	code, out, errs = foleyRun(t, "", "eval", "calibrate", "--target", "0.8", "--plot", plot)
	if code != 0 || !strings.Contains(out, "reaches precision") {
		t.Fatalf("calibrate: exit %d\n%s\n%s", code, out, errs)
	}
	if b, err := os.ReadFile(plot); err != nil || string(b[1:4]) != "PNG" {
		t.Errorf("no PNG plot written: %v", err)
	}
	// --with-models at listen needs audio, which the shipped corpus lacks.
	t.Setenv("FOLEY_AUDIOLM_URL", "http://127.0.0.1:9/v1")
	if code, _, errs := foleyRun(t, "", "eval", "fit", "--with-models"); code != 2 || !strings.Contains(errs, "needs clips with audio") {
		t.Errorf("--with-models without audio: exit %d %s", code, errs)
	}
}

// TestEvalFitWithAudioLM runs the fit evaluation over a library with audio
// against the fake audio LM, and counts its calls and tokens.
func TestEvalFitWithAudioLM(t *testing.T) {
	clearJudgeEnv(t)
	dir := t.TempDir()
	clips := filepath.Join(dir, "clips")
	os.MkdirAll(clips, 0o755)
	names := map[string]string{"door-1": "heavy door slam", "door-2": "door knock", "dog-1": "dog barking"}
	for id, caption := range names {
		writeTone(t, filepath.Join(clips, id+".wav"), 48000, 1, 0.3+0.1*float64(len(id)))
		side, _ := json.Marshal(map[string]any{"id": id, "caption": caption, "tags": strings.Fields(caption), "license": map[string]any{"license_id": "CC0-1.0"}})
		os.WriteFile(filepath.Join(clips, id+".wav.json"), side, 0o644)
	}
	lib := filepath.Join(dir, "lib.db")
	if code, _, errs := foleyRun(t, "", "index", clips, "--library", lib); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	golden := filepath.Join(dir, "golden.json")
	os.WriteFile(golden, []byte(`{"name": "mine", "items": [
		{"id": "slam", "event": {"query": "door slam", "ucs_catid": "DOORWood"}, "relevance": {"door-1": 3}, "hard_negatives": ["door-2"]},
		{"id": "bark", "event": {"query": "dog barking", "ucs_catid": "ANMLDog"}, "relevance": {"dog-1": 3}}]}`), 0o644)
	fake := fakeaudiolm.New(t, qwen, func(q string, _ int) float64 { return 0.9 })
	t.Setenv("FOLEY_AUDIOLM_URL", fake.BaseURL())
	code, out, errs := foleyRun(t, "", "eval", "fit", "--with-models", "--library", lib, "--golden", golden, "--tau-clap", "0", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Judge   string `json:"judge"`
		Overall struct {
			Judged int `json:"judged"`
			TP     int `json:"accepted_relevant"`
			FP     int `json:"accepted_wrong"`
		} `json:"overall"`
		Usage struct {
			Calls       int64 `json:"calls"`
			InputTokens int64 `json:"input_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err, out)
	}
	// Every shortlisted clip that passes the clap gate (a hashed-text
	// cosine may be below 0) is heard and accepted, as the fake says yes
	// to all: 2 items x 3 clips, 2 of them relevant.
	calls := fake.Calls()
	if rep.Judge != "audiolm:"+qwen || rep.Overall.Judged != 6 || rep.Overall.TP != 2 || int64(rep.Overall.TP+rep.Overall.FP) != calls {
		t.Errorf("report %+v, fake calls %d", rep, calls)
	}
	if rep.Usage.Calls != calls || rep.Usage.InputTokens == 0 || calls < 4 {
		t.Errorf("usage %+v, fake calls %d", rep.Usage, calls)
	}
	// Again: the verdicts are cached beside the library.
	if code, out, _ := foleyRun(t, "", "eval", "fit", "--with-models", "--library", lib, "--golden", golden, "--tau-clap", "0"); code != 0 || !strings.Contains(out, "model calls 0") || fake.Calls() != calls {
		t.Errorf("second run: exit %d, fake calls %d\n%s", code, fake.Calls(), out)
	}
}

func TestEvalBadInput(t *testing.T) {
	dir := t.TempDir()
	missingIDs := filepath.Join(dir, "g.json")
	os.WriteFile(missingIDs, []byte(`{"name": "g", "items": [{"id": "a", "event": {"query": "q"}, "relevance": {"no-such-clip": 3}}]}`), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval"}, "retrieval, fit or calibrate"},
		{[]string{"eval", "retrieval", "--golden", filepath.Join(dir, "nope.json")}, "nope.json"},
		{[]string{"eval", "retrieval", "--golden", missingIDs}, "no-such-clip"},
		{[]string{"eval", "retrieval", "-k", "0"}, "-k"},
		{[]string{"eval", "retrieval", "--plot", "x.jpg"}, ".svg or .png"},
		{[]string{"eval", "retrieval", "--min-grade", "4"}, "--min-grade"},
		{[]string{"eval", "retrieval", "--corpus", "a.json", "--library", "b.db"}, "not both"},
		{[]string{"eval", "retrieval", "--library", filepath.Join(dir, "none.db")}, "no library"},
		{[]string{"eval", "fit", "--level", "loud"}, "--level"},
		{[]string{"eval", "calibrate", "--target", "1.5"}, "--target"},
	} {
		code, _, errs := foleyRun(t, "", tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}
