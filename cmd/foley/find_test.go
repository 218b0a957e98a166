package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// useDemoCache points the user cache (where the demo library and the last
// run live) at a directory of the test's, and clears the judges and
// generators configured on the machine.
func useDemoCache(t *testing.T) string {
	t.Helper()
	clearJudgeEnv(t)
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	t.Setenv("HOME", dir)
	t.Setenv(EnvLibrary, "")
	t.Setenv("ELEVENLABS_API_KEY", "")
	return dir
}

func TestFindOnTheDemoLibrary(t *testing.T) {
	useDemoCache(t)
	code, out, errs := foleyRun(t, "", "find", "a heavy wooden door slams shut")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"use demo-door-slam-wood", "licence  CC0-1.0", "path     ", "listen string-overlap", "why ", "cost: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "demo library") || strings.Contains(out, "\x1b[") {
		t.Errorf("stderr %q; colour codes in a non-terminal output: %v", errs, strings.Contains(out, "\x1b["))
	}

	// Several events, JSON; a non-commercial door is dropped by the gate.
	code, out, errs = foleyRun(t, "", "find", "a heavy wooden door slams shut", "rain on a roof", "a whale sings", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var run findRun
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		t.Fatal(err)
	}
	if !run.Demo || len(run.Results) != 3 || run.Judge != "string-overlap" || run.Refiner != "synonyms" {
		t.Fatalf("run %+v", run)
	}
	door, rain, whale := run.Results[0], run.Results[1], run.Results[2]
	if door.Chosen == nil || door.Chosen.Sound.ID != "demo-door-slam-wood" || rain.Chosen == nil || !strings.Contains(rain.Chosen.Sound.Caption, "ain") {
		t.Errorf("door %+v\nrain %+v", door.Chosen, rain.Chosen)
	}
	if whale.Action.String() != "drop" || !strings.Contains(whale.Reason, "no generator is configured") || len(whale.Steps) < 2 {
		t.Errorf("whale: %v %s (%d steps)", whale.Action, whale.Reason, len(whale.Steps))
	}
	// The verdict trail says which judge answered each rung.
	for _, tr := range door.Steps[0].Trail {
		for _, v := range tr.Verdicts {
			if v.Judge == "" || v.Level == 0 {
				t.Errorf("%s: a verdict without a judge or level: %+v", tr.ID, v)
			}
		}
	}

	// Credits of that last run, in the three formats.
	code, out, _ = foleyRun(t, "", "credits")
	if code != 0 || !strings.Contains(out, "CC0 1.0 Universal") {
		t.Errorf("credits: exit %d\n%s", code, out)
	}
	code, out, _ = foleyRun(t, "", "credits", "--format", "csv")
	if code != 0 || !strings.HasPrefix(out, "clip_id,events,title,creator,license_id") {
		t.Errorf("credits csv: exit %d\n%s", code, out)
	}
	code, out, _ = foleyRun(t, "", "credits", "--format", "json")
	var credits []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &credits) != nil || len(credits) != 2 {
		t.Errorf("credits json: exit %d\n%s", code, out)
	}
}

func TestFindEventsFileAndBadInput(t *testing.T) {
	dir := useDemoCache(t)
	events := filepath.Join(dir, "scene.ndjson")
	os.WriteFile(events, []byte(`{"query": "a dog barks", "ucs_catid": "ANMLDog"}`+"\n"+`{"query": "a clock ticks", "scene": "a quiet study"}`+"\n"), 0o644)
	code, out, errs := foleyRun(t, "", "find", "--events", events, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var run findRun
	if err := json.Unmarshal([]byte(out), &run); err != nil || len(run.Results) != 2 || run.Results[1].Event.Scene != "a quiet study" {
		t.Fatalf("%v (%d results)", err, len(run.Results))
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"find"}, "at least one EVENT"},
		{[]string{"find", ""}, "empty"},
		{[]string{"find", "x", "--level", "loud"}, "--level"},
		{[]string{"find", "x", "-k", "0"}, "-k"},
		{[]string{"find", "x", "--tau-retrieve", "2"}, "--tau-retrieve"},
		{[]string{"find", "x", "--use", "sell"}, "--use"},
		{[]string{"find", "--events", filepath.Join(dir, "none.json")}, "none.json"},
		{[]string{"find", "x", "--library", filepath.Join(dir, "none.db")}, "no library"},
		{[]string{"find", "x", "--color", "pink"}, "--color"},
		{[]string{"credits", "--format", "pdf"}, "--format"},
		{[]string{"credits", events}, "not the output"},
	} {
		code, _, errs := foleyRun(t, "", tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestFindGeneratesWithElevenLabs runs the whole loop on an event the demo
// library has no clip for, with a fake ElevenLabs: the loop refines, then
// generates; the clip is stored beside the library, recorded as
// AI-generated, verified with no clap score, used, and credited.
func TestFindGeneratesWithElevenLabs(t *testing.T) {
	useDemoCache(t)
	mp3, err := os.ReadFile("../../internal/mp3/testdata/sox_44k_128.mp3")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if r.Method != http.MethodPost || r.URL.Path != "/v1/sound-generation" || r.Header.Get("xi-api-key") != "xi-test" ||
			json.NewDecoder(r.Body).Decode(&body) != nil || body["text"] == "" {
			http.Error(w, `{"detail": {"status": "invalid_request", "message": "bad request"}}`, http.StatusBadRequest)
			return
		}
		calls++
		w.Header().Set("Content-Type", "audio/mpeg")
		w.Write(mp3)
	}))
	defer fake.Close()
	t.Setenv("ELEVENLABS_API_KEY", "xi-test")
	t.Setenv("ELEVENLABS_BASE_URL", fake.URL)

	code, out, errs := foleyRun(t, "", "find", "a laser zap", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var run findRun
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		t.Fatal(err)
	}
	r := run.Results[0]
	if calls != 1 || r.Chosen == nil || r.Chosen.Origin.String() != "generated" || r.Cost.Generations != 1 {
		t.Fatalf("calls %d, result %+v", calls, r)
	}
	lic := r.Chosen.Sound.License
	if !lic.IsAIGenerated || lic.GenerationPrompt != "a laser zap" || lic.LicenseID != "ElevenLabs-SFX" || !strings.HasPrefix(lic.Generator, "elevenlabs/") {
		t.Errorf("generated licence %+v", lic)
	}
	if _, err := os.Stat(r.Chosen.Sound.URI); err != nil {
		t.Errorf("the generated clip is not stored: %v", err)
	}
	last := r.Steps[len(r.Steps)-1]
	if len(last.Trail) != 1 || last.Trail[0].ClapScore != nil || last.Trail[0].Verdicts[0].Level.String() != "listen" {
		t.Errorf("generated step %+v", last)
	}
	// The generated clip is now in the library: the next search finds it.
	code, out, _ = foleyRun(t, "", "search", "a laser zap", "--library", run.Library)
	if code != 0 || !strings.Contains(out, r.Chosen.Sound.ID) {
		t.Errorf("search does not find the stored clip:\n%s", out)
	}
	code, out, _ = foleyRun(t, "", "credits")
	if code != 0 || !strings.Contains(out, "generated with elevenlabs/") {
		t.Errorf("credits:\n%s", out)
	}
}
