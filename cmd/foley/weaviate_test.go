package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foley-audio/foley/backend"
	"github.com/foley-audio/foley/internal/weaviatetest"
)

func TestMain(m *testing.M) { weaviatetest.Main(m) }

// TestWeaviateCommands runs the library commands on a Weaviate library:
// index, search, show, stats, then migrate it to a file and back.
func TestWeaviateCommands(t *testing.T) {
	node := weaviatetest.Shared(t)
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	t.Setenv("FOLEY_CLAP_URL", "")
	sfx := filepath.Join(dir, "sfx")
	os.MkdirAll(filepath.Join(sfx, "doors"), 0o755)
	for name, from := range map[string]string{"doors/heavy_slam.wav": "wav_meta.wav", "rain.flac": "flac_s16.flac", "dog.mp3": "mp3_id3.mp3", "wind.ogg": "ogg_vorbis.ogg"} {
		data, err := os.ReadFile("../../audio/testdata/" + from)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(sfx, name), data, 0o644)
	}
	remote := node.Location(weaviatetest.Class("Cli"))
	code, out, errs := foleyRun(t, "", "index", sfx, "--library", remote, "--license", "user-owned", "--json")
	var sum struct{ Added, Unchanged, Failed int }
	if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil || sum.Added != 4 {
		t.Fatalf("index into Weaviate: exit %d %+v %v\n%s\n%s", code, sum, err, out, errs)
	}
	code, out, _ = foleyRun(t, "", "index", sfx, "--library", remote, "--license", "user-owned", "--json")
	if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil || sum.Unchanged != 4 {
		t.Errorf("second index: exit %d %+v %v", code, sum, err)
	}
	t.Setenv("FOLEY_LIBRARY", remote)
	code, out, _ = foleyRun(t, "", "search", "heavy wooden door slams shut", "-k", "2")
	if code != 0 || !strings.Contains(strings.Split(out, "\n")[1], "heavy_slam.wav") {
		t.Fatalf("search: exit %d\n%s", code, out)
	}
	code, out, _ = foleyRun(t, "", "stats", "--json")
	var st struct{ Records int }
	if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil || st.Records != 4 {
		t.Errorf("stats: exit %d %v\n%s", code, err, out)
	}

	// To a file and back into a new class.
	file := filepath.Join(dir, "copy.db")
	code, out, errs = foleyRun(t, "", "migrate", "--from", remote, "--to", file, "--json")
	var m backend.MigrateSummary
	if err := json.Unmarshal([]byte(out), &m); code != 0 || err != nil || m.Records != 4 || m.WithVectors != 4 {
		t.Fatalf("migrate to a file: exit %d %+v %v\n%s", code, m, err, errs)
	}
	code, out, _ = foleyRun(t, "", "search", "heavy wooden door slams shut", "-k", "1", "--library", file)
	if code != 0 || !strings.Contains(out, "heavy_slam.wav") {
		t.Errorf("search the copy: exit %d\n%s", code, out)
	}
	// The copy keeps the ingest bookkeeping: indexing the folder into it
	// finds every file unchanged.
	unchanged := func(lib string) {
		t.Helper()
		code, out, errs := foleyRun(t, "", "index", sfx, "--library", lib, "--license", "user-owned", "--json")
		sum = struct{ Added, Unchanged, Failed int }{}
		if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil || sum.Unchanged != 4 || sum.Added != 0 {
			t.Errorf("index into the copy %s: exit %d %+v %v\n%s", lib, code, sum, err, errs)
		}
	}
	unchanged(file)
	back := node.Location(weaviatetest.Class("CliBack"))
	code, out, _ = foleyRun(t, "", "migrate", "--from", file, "--to", back)
	if code != 0 || !strings.Contains(out, "RECORDS") {
		t.Errorf("migrate back: exit %d\n%s", code, out)
	}
	unchanged(back)
	code, out, _ = foleyRun(t, "", "show", "--library", back, "--json", firstID(t, file))
	if code != 0 || !strings.Contains(out, `"id"`) {
		t.Errorf("show from the copy back: exit %d\n%s", code, out)
	}

	for _, args := range [][]string{
		{"migrate", "--from", file},
		{"migrate", "--from", file, "--to", file},
		{"migrate", "--from", filepath.Join(dir, "missing.db"), "--to", back},
		{"migrate", "--from", file, "--to", "weaviate://127.0.0.1:8080/lower"},
		{"migrate", "--from", file, "--to", back, "--batch", "0"},
	} {
		if code, _, errs := foleyRun(t, "", args...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, errs)
		}
	}
}

// firstID is the id of a record of the library file.
func firstID(t *testing.T, file string) string {
	code, out, _ := foleyRun(t, "", "search", "dog", "--library", file, "--json")
	var cands []struct {
		Sound struct{ ID string } `json:"sound"`
	}
	if err := json.Unmarshal([]byte(out), &cands); code != 0 || err != nil || len(cands) == 0 {
		t.Fatalf("search: exit %d %v", code, err)
	}
	return cands[0].Sound.ID
}
