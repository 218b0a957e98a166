package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/foley-audio/foley"
)

const example = "../../examples/shortlist.json"

// foleyRun runs the command line in-process.
func foleyRun(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestVerifyExampleTable(t *testing.T) {
	code, out, errs := foleyRun(t, "", "verify", "a heavy wooden door slams shut", "--candidates", example)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 9 {
		t.Fatalf("want a header and 8 rows, got:\n%s", out)
	}
	for i, want := range []string{
		"#  ID", // header
		"fs-417362 ok CC0-1.0 match",
		"fs-256113 ok CC-BY-4.0 no match",
		"fs-320455 dropped CC-BY-NC-4.0 - - - - CC-BY-NC-4.0 forbids commercial use",
		"bbc-07070121 dropped BBC-RemArc",
		"user-creak-02 ok user-owned no match 0.291 clap clap clap_score=0.291 vs tau=0.35",
		"gen-el-9f3a ok ElevenLabs-SFX match 0.750 listen string-overlap",
		"web-88121 dropped CC0-1.0 - - - - rights not verified",
		"fs-119284 dropped unknown",
	} {
		if got := strings.Join(strings.Fields(lines[i]), " "); !strings.Contains(got, strings.Join(strings.Fields(want), " ")) {
			t.Errorf("line %d = %q, want it to contain %q", i, got, want)
		}
	}
	if !strings.Contains(errs, "no audio was heard") {
		t.Errorf("stderr does not say the audio was not heard: %q", errs)
	}
}

type row struct {
	Index         int            `json:"index"`
	ID            string         `json:"id"`
	LicenseOK     *bool          `json:"license_ok"`
	LicenseReason string         `json:"license_reason"`
	Verdict       *foley.Verdict `json:"verdict"`
	Judge         *string        `json:"judge"`
}

func decodeRows(t *testing.T, out string) []row {
	t.Helper()
	var rows []row
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("stdout is not a JSON array of rows: %v\n%s", err, out)
	}
	return rows
}

func TestVerifyJSON(t *testing.T) {
	data, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	// From standard input, at the judge level.
	code, out, errs := foleyRun(t, string(data), "verify", "a heavy wooden door slams shut", "-c", "-", "--level", "judge", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows := decodeRows(t, out)
	if len(rows) != 8 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, r := range rows {
		if r.Index != i || r.LicenseOK == nil || r.LicenseReason == "" {
			t.Errorf("row %d: %+v", i, r)
		}
		if *r.LicenseOK != (r.Verdict != nil) || *r.LicenseOK != (r.Judge != nil) {
			t.Errorf("row %d: license_ok %v but verdict %v judge %v", i, *r.LicenseOK, r.Verdict, r.Judge)
		}
		if r.Verdict != nil && *r.Judge != r.Verdict.Judge {
			t.Errorf("row %d: judge %q but the verdict says %q", i, *r.Judge, r.Verdict.Judge)
		}
	}
	if v := rows[0].Verdict; v.Level != foley.LevelJudge || *rows[0].Judge != "string-overlap" || !v.Match {
		t.Errorf("first row verdict %+v", v)
	}
	if v := rows[4].Verdict; v.Level != foley.LevelClap || *rows[4].Judge != "clap" {
		t.Errorf("clap failure at judge level: %+v", v)
	}
	// The use decides the gate: with no commercial use the NC clip is kept,
	// and BBC's RemArc clip too, as both permit non-commercial publication.
	_, out, _ = foleyRun(t, "", "verify", "door slam", "-c", example, "--use", "publish,attribute", "--level", "clap", "--json")
	rows = decodeRows(t, out)
	if !*rows[2].LicenseOK || !*rows[3].LicenseOK || *rows[6].LicenseOK {
		t.Errorf("non-commercial use: %+v", rows)
	}
	for _, r := range rows {
		if r.Verdict != nil && (r.Verdict.Level != foley.LevelClap || r.Verdict.Judge != "clap") {
			t.Errorf("level clap produced %+v", r.Verdict)
		}
	}
}

func TestVerifyNoteOnlyForTextJudge(t *testing.T) {
	_, _, errs := foleyRun(t, "", "verify", "door", "-c", example, "--level", "clap")
	if strings.Contains(errs, "string-overlap") {
		t.Errorf("clap level printed the text-judge note: %q", errs)
	}
}

func TestVerifyBadInput(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.json")
	os.WriteFile(broken, []byte("[\n{\"sound\": {\"id\": \"a\"}},\n{\"sound\": \n"), 0o644)
	badLevel := filepath.Join(dir, "level.json")
	os.WriteFile(badLevel, []byte(`[{"sound":{"id":"a"},"verdict":{"match":true,"confidence":1,"reason":"","level":"listn"}}]`), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"missing file", []string{"verify", "door", "-c", filepath.Join(dir, "nope.json")}, []string{"--candidates", "nope.json", "no such file"}},
		{"invalid JSON", []string{"verify", "door", "-c", broken}, []string{"broken.json", "invalid JSON"}},
		{"bad enum in file", []string{"verify", "door", "-c", badLevel}, []string{"level.json", "verdict.level", "listn", "clap, listen, judge"}},
		{"unknown level", []string{"verify", "door", "-c", example, "--level", "listn"}, []string{"--level", "listn", "clap, listen, judge"}},
		{"negative tau", []string{"verify", "door", "-c", example, "--tau-clap", "-0.1"}, []string{"--tau-clap", "-0.1"}},
		{"tau above 1", []string{"verify", "door", "-c", example, "--tau-clap", "35"}, []string{"--tau-clap", "between 0 and 1"}},
		{"tau not a number", []string{"verify", "door", "-c", example, "--tau-clap", "high"}, []string{"tau-clap", "high"}},
		{"bad use", []string{"verify", "door", "-c", example, "--use", "commercial,sell"}, []string{"--use", "sell"}},
		{"no event", []string{"verify", "-c", example}, []string{"EVENT"}},
		{"two events", []string{"verify", "door", "slam", "-c", example}, []string{"EVENT"}},
		{"no candidates flag", []string{"verify", "door"}, []string{"--candidates is required"}},
		{"unknown flag", []string{"verify", "door", "-c", example, "--levle", "clap"}, []string{"levle"}},
		{"unknown command", []string{"verfy", "door"}, []string{"unknown command"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := foleyRun(t, "", tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2; stderr %q", code, errs)
			}
			if out != "" {
				t.Errorf("stdout on bad input: %q", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q lacks %q", errs, w)
				}
			}
		})
	}
}

func TestLicenses(t *testing.T) {
	code, out, _ := foleyRun(t, "", "licenses")
	if code != 0 || !strings.Contains(out, "Stability-Community") || !strings.Contains(out, "USD 1000000") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	code, out, _ = foleyRun(t, "", "licenses", "--json", "http://creativecommons.org/publicdomain/zero/1.0/", "Attribution NonCommercial", "https://creativecommons.org/licenses/by-nd/4.0/")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var rows []struct {
		Input      string `json:"input"`
		ID         string `json:"license_id"`
		Known      bool   `json:"known"`
		Commercial bool   `json:"commercial_ok"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	want := []string{"CC0-1.0", "CC-BY-NC-4.0", "unknown"}
	for i, r := range rows {
		if r.ID != want[i] || r.Known != (want[i] != "unknown") {
			t.Errorf("row %d: %+v, want %s", i, r, want[i])
		}
	}
	if rows[1].Commercial || !rows[0].Commercial {
		t.Errorf("flags wrong: %+v", rows)
	}
}

func TestHelpHasExamples(t *testing.T) {
	for _, cmd := range [][]string{{"--help"}, {"verify", "--help"}, {"licenses", "--help"}, {"probe", "--help"}, {"index", "--help"}, {"search", "--help"}, {"show", "--help"}, {"stats", "--help"}} {
		code, out, _ := foleyRun(t, "", cmd...)
		if code != 0 || !strings.Contains(out, "Examples:") {
			t.Errorf("%v: exit %d, no examples:\n%s", cmd, code, out)
		}
	}
	_, out, _ := foleyRun(t, "", "verify", "--help")
	for _, flag := range []string{"--candidates", "--level", "--tau-clap", "--use", "--json"} {
		if !strings.Contains(out, flag) {
			t.Errorf("verify --help lacks %s", flag)
		}
	}
}

// TestBinary builds foley and checks that exit statuses reach the shell.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "foley")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"verify", "a heavy wooden door slams shut", "--candidates", example}, 0},
		{[]string{"verify", "door", "--candidates", example, "--level", "listn"}, 2},
	} {
		cmd := exec.Command(bin, tc.args...)
		err := cmd.Run()
		if got := cmd.ProcessState.ExitCode(); got != tc.code {
			t.Errorf("foley %v: exit %d (%v), want %d", tc.args, got, err, tc.code)
		}
	}
}

// TestREADMEShowsRealOutput keeps the README's example output true.
// TestREADMEShowsRealFindOutput keeps the README's first example, foley
// find on the demo library, in step with what foley prints.
func TestREADMEShowsRealFindOutput(t *testing.T) {
	cache := useDemoCache(t)
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(readme, []byte("library ~/.cache/foley/demo"))
	end := bytes.Index(readme[max(start, 0):], []byte("\n```"))
	if start < 0 || end < 0 {
		t.Fatal("README lacks the find example output block")
	}
	_, out, _ := foleyRun(t, "", "find", "a heavy wooden door slams shut")
	got := strings.TrimSpace(strings.ReplaceAll(out, cache, "~/.cache"))
	if want := strings.TrimSpace(string(readme[start : start+end])); got != want {
		t.Errorf("README find output is stale; foley prints:\n%s", got)
	}
}

func TestREADMEShowsRealOutput(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(readme, []byte("#  ID"))
	end := bytes.Index(readme, []byte("\nnote: "))
	if start < 0 || end < start {
		t.Fatal("README lacks the example output block")
	}
	_, out, _ := foleyRun(t, "", "verify", "a heavy wooden door slams shut", "--candidates", example)
	if got, want := strings.TrimSpace(out), strings.TrimSpace(string(readme[start:end])); got != want {
		t.Errorf("README example output is stale; foley prints:\n%s", got)
	}
}

func TestProbe(t *testing.T) {
	wav := "../../audio/testdata/wav_meta.wav"
	code, out, errs := foleyRun(t, "", "probe", wav)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"wav/pcm_s16le", "48000 Hz", "0.100 s", "-3.0 dBFS", "BEXT:Description = A heavy wooden door slams shut", "INFO:INAM = Door slam, heavy wood"} {
		if !strings.Contains(out, want) {
			t.Errorf("probe output lacks %q:\n%s", want, out)
		}
	}
	// One bad file among good ones: all are reported, exit 1.
	dir := t.TempDir()
	bad := filepath.Join(dir, "notes.txt")
	os.WriteFile(bad, []byte("<html>not audio</html>"), 0o644)
	code, out, errs = foleyRun(t, "", "probe", "--json", "--peaks", "8", wav, bad, filepath.Join(dir, "missing.wav"))
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	var reports []struct {
		Path  string `json:"path"`
		Error string `json:"error"`
		Info  struct {
			Format   string `json:"format"`
			Channels int    `json:"channels"`
			BitDepth int    `json:"bit_depth"`
		} `json:"info"`
		Facts struct {
			Duration float64           `json:"duration_s"`
			PeakDBFS *float64          `json:"peak_dbfs"`
			Peaks    []json.RawMessage `json:"peaks"`
			QC       []struct{ Code string }
			PCM      string `json:"pcm_sha256"`
		} `json:"facts"`
		FileSHA256 string `json:"file_sha256"`
		Metadata   struct {
			Title string `json:"title"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(out), &reports); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(reports) != 3 || reports[0].Error != "" || reports[0].Info.Format != "wav" || reports[0].Info.BitDepth != 16 ||
		len(reports[0].Facts.Peaks) != 8 || len(reports[0].FileSHA256) != 64 || len(reports[0].Facts.PCM) != 64 ||
		reports[0].Metadata.Title != "Door slam, heavy wood" {
		t.Errorf("good file: %+v", reports[0])
	}
	if !strings.Contains(reports[1].Error, "unknown audio format") || !strings.Contains(reports[2].Error, "no such file") {
		t.Errorf("bad files: %q, %q", reports[1].Error, reports[2].Error)
	}
	if !strings.Contains(errs, "notes.txt") || !strings.Contains(errs, "2 of 3 files") {
		t.Errorf("stderr: %s", errs)
	}
	if code, _, errs := foleyRun(t, "", "probe"); code != 2 || !strings.Contains(errs, "FILE") {
		t.Errorf("no files: exit %d, %s", code, errs)
	}
	if code, _, _ := foleyRun(t, "", "probe", "--peaks", "-1", wav); code != 2 {
		t.Errorf("--peaks -1: exit %d", code)
	}
}

func TestIndexSearchShowStats(t *testing.T) {
	dir := t.TempDir()
	sfx := filepath.Join(dir, "sfx")
	os.MkdirAll(filepath.Join(sfx, "doors"), 0o755)
	for name, from := range map[string]string{"doors/heavy_slam.wav": "wav_meta.wav", "rain.flac": "flac_s16.flac", "dog.mp3": "mp3_id3.mp3", "wind.ogg": "ogg_vorbis.ogg"} {
		data, err := os.ReadFile("../../audio/testdata/" + from)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(sfx, name), data, 0o644)
	}
	os.WriteFile(filepath.Join(sfx, "notes.txt"), []byte("not audio"), 0o644)
	lib := filepath.Join(dir, "lib.db")
	t.Setenv("FOLEY_CLAP_URL", "")
	code, out, errs := foleyRun(t, "", "index", sfx, "--library", lib, "--license", "user-owned")
	if code != 0 || !strings.Contains(out, "ADDED") || !strings.Contains(strings.Join(strings.Fields(out), " "), "4 0 0 0 0 0") {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = foleyRun(t, "", "index", sfx, "--library", lib, "--license", "user-owned", "--json")
	var sum struct{ Added, Unchanged int }
	if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil || sum.Unchanged != 4 {
		t.Errorf("second index: exit %d %+v %v", code, sum, err)
	}
	// FOLEY_LIBRARY stands in for --library.
	t.Setenv("FOLEY_LIBRARY", lib)
	code, out, _ = foleyRun(t, "", "search", "heavy wooden door slams shut", "-k", "2")
	if code != 0 || !strings.Contains(strings.Split(out, "\n")[1], "heavy_slam.wav") {
		t.Errorf("search: exit %d\n%s", code, out)
	}
	if code, out, _ := foleyRun(t, "", "search", "heavy wooden door slams shut", "-k", "1", "--index", "hnsw"); code != 0 || !strings.Contains(out, "heavy_slam.wav") {
		t.Errorf("search --index hnsw: exit %d\n%s", code, out)
	}
	code, out, _ = foleyRun(t, "", "search", "dog", "--json", "--commercial")
	var cands []foley.Candidate
	if err := json.Unmarshal([]byte(out), &cands); code != 0 || err != nil || len(cands) == 0 || cands[0].RRFScore == nil || cands[0].ClapScore == nil {
		t.Fatalf("search --json: exit %d %v\n%s", code, err, out)
	}
	code, out, _ = foleyRun(t, "", "show", cands[0].Sound.ID)
	if code != 0 || !strings.Contains(out, "user-owned") || !strings.Contains(out, "dog.mp3") {
		t.Errorf("show: exit %d\n%s", code, out)
	}
	if code, _, errs := foleyRun(t, "", "show", "no-such-id"); code != 1 || !strings.Contains(errs, "no sound with id") {
		t.Errorf("show missing: exit %d %s", code, errs)
	}
	code, out, _ = foleyRun(t, "", "stats", "--json")
	var st struct {
		Records   int            `json:"records"`
		ByFormat  map[string]int `json:"by_format"`
		ByLicense map[string]int `json:"by_license"`
	}
	if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil || st.Records != 4 || st.ByFormat["mp3"] != 1 || st.ByLicense["user-owned"] != 1 {
		t.Errorf("stats: exit %d %+v %v\n%s", code, st, err, out)
	}
	for _, bad := range [][]string{
		{"index"}, {"index", filepath.Join(dir, "nope")}, {"index", sfx, "--license", "my licence"},
		{"search"}, {"search", "door", "-k", "0"}, {"search", "door", "--min-duration", "5", "--max-duration", "1"},
		{"stats", "extra"}, {"search", "door", "--index", "faiss"}, {"search", "door", "--library", filepath.Join(dir, "typo.db")},
		{"stats", "--library", filepath.Join(dir, "typo.db")},
	} {
		if code, _, errs := foleyRun(t, "", bad...); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", bad, code, errs)
		}
	}
}

// TestIndexSurvivesSIGKILL kills a running `foley index` and checks that
// the library still opens and searches, and that running the same command
// again completes it.
func TestIndexSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and indexes 1500 files")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "foley")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	src, err := os.ReadFile("../../audio/testdata/wav_s16.wav")
	if err != nil {
		t.Fatal(err)
	}
	sfx := filepath.Join(dir, "sfx")
	os.MkdirAll(sfx, 0o755)
	const n = 1500
	for i := range n {
		// Each file differs by a byte so that each is its own record.
		data := append([]byte(nil), src...)
		data[len(data)-1] = byte(i)
		data[len(data)-3] = byte(i >> 8)
		os.WriteFile(filepath.Join(sfx, fmt.Sprintf("door_slam_%03d.wav", i)), data, 0o644)
	}
	lib := filepath.Join(dir, "lib.db")
	env := append(os.Environ(), "FOLEY_CLAP_URL=")
	cmd := exec.Command(bin, "index", sfx, "--library", lib, "--license", "CC0-1.0", "--workers", "1")
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it soon after it starts writing.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(lib + "-wal"); err == nil {
			break
		}
	}
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	search := exec.Command(bin, "search", "door slam", "--library", lib, "--json")
	search.Env = env
	out, err := search.Output()
	if err != nil {
		t.Fatalf("search after SIGKILL: %v\n%s", err, out)
	}
	again := exec.Command(bin, "index", sfx, "--library", lib, "--license", "CC0-1.0", "--json")
	again.Env = env
	out, err = again.Output()
	var sum struct{ Added, Unchanged, Failed int }
	if err != nil || json.Unmarshal(out, &sum) != nil || sum.Added+sum.Unchanged != n || sum.Failed != 0 {
		t.Fatalf("second run: %v %+v\n%s", err, sum, out)
	}
	t.Logf("the killed run stored %d of %d files", sum.Unchanged, n)
}
