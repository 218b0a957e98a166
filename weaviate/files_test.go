package weaviate_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/audio"
	"github.com/foley-audio/foley/embed"
	"github.com/foley-audio/foley/ingest"
	"github.com/foley-audio/foley/internal/librarytest"
	"github.com/foley-audio/foley/internal/weaviatetest"
	"github.com/foley-audio/foley/sqlite"
	"github.com/foley-audio/foley/weaviate"
	wv "github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate/entities/models"
)

var (
	_ ingest.Target = (*weaviate.Library)(nil)
	_ ingest.Target = (*sqlite.Library)(nil)
)

func openSQLite(t *testing.T) *sqlite.Library {
	t.Helper()
	l, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "foley.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// fileEntry is a record of the file at path, with a vector of model test/4.
func fileEntry(id, path string, licence string, verified bool, format string, size, mtime int64) foley.Entry {
	r := librarytest.Rec(id, "sound "+id)
	r.URI, r.Format = path, format
	r.License = foley.License{LicenseID: licence, RightsVerified: verified}
	return foley.Entry{Record: r, Vector: librarytest.Unit(4, len(id)%4, 0.2),
		File: &foley.FileState{ID: id, Path: path, Size: size, MtimeNS: mtime, SHA256: strings.Repeat("a", 63) + id[:1], MetaSHA256: "meta-" + id}}
}

// fileEntries hold paths with Weaviate's wildcards ('*', '?'), spaces and
// other letters, sizes and times beyond 2^53, and licences the gate keeps
// or drops.
func fileEntries() []foley.Entry {
	const big = 1_712_345_678_901_234_567 // a time in ns, not a float64
	return []foley.Entry{
		fileEntry("a1", "/lib/a*b/one.wav", "CC0-1.0", true, "wav", 5_000_000_123, big),
		fileEntry("a2", "/lib/a*b/two.wav", "mystery", true, "wav", 10, big+1),
		fileEntry("b1", "/lib/aXb/three.wav", "CC-BY-4.0", false, "flac", 11, big+2),
		fileEntry("b2", "/lib/a?b/four.wav", "CC-BY-NC-4.0", true, "flac", 12, big+3),
		fileEntry("c1", "/lib/ünï cödé/Fünf (take 2).wav", "user-owned", false, "wav", 13, big+4),
		fileEntry("c2", "/lib2/six.wav", "unknown", false, "mp3", 14, big+5),
		fileEntry("d1", " lead/seven.wav", "CC0-1.0", false, "wav", 15, -1),
	}
}

// TestFiles checks each method ingest uses against the embedded library's
// answers for the same calls.
func TestFiles(t *testing.T) {
	ctx := context.Background()
	node := weaviatetest.Shared(t)
	wl := open(t, node.Location(newClass("Files")))
	sl := openSQLite(t)
	entries := fileEntries()
	// A record without a file has no file state.
	loose := librarytest.Rec("loose", "no file")
	for _, lib := range []ingest.Target{wl, sl} {
		if err := lib.Put(ctx, entries); err != nil {
			t.Fatal(err)
		}
		if err := lib.Put(ctx, []foley.Entry{{Record: loose, Vector: librarytest.Unit(4, 0)}}); err != nil {
			t.Fatal(err)
		}
	}
	if wl.Location() != node.Location(wl.Class()) {
		t.Errorf("location %q", wl.Location())
	}

	// Files: the state of each file, exactly (times beyond 2^53).
	want := map[string]foley.FileState{}
	for _, e := range entries {
		want[e.File.Path] = *e.File
	}
	files := func(lib ingest.Target) map[string]foley.FileState {
		t.Helper()
		fs, err := lib.Files(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return fs
	}
	if got := files(wl); !reflect.DeepEqual(got, want) {
		t.Errorf("weaviate files:\n got %+v\nwant %+v", got, want)
	}
	if got := files(sl); !reflect.DeepEqual(got, want) {
		t.Errorf("sqlite files:\n got %+v\nwant %+v", got, want)
	}

	// TouchFile changes the size and time only, and keeps the vector.
	for _, lib := range []ingest.Target{wl, sl} {
		if err := lib.TouchFile(ctx, "/lib/a*b/one.wav", 77, 1_812_345_678_901_234_569); err != nil {
			t.Fatal(err)
		}
		if err := lib.TouchFile(ctx, "/lib/a*b/none.wav", 1, 1); err != nil {
			t.Errorf("touching a file not in the library: %v", err)
		}
		if err := lib.TouchFile(ctx, "/lib/a*b/one.wav ", 1, 1); err != nil { // another path
			t.Fatal(err)
		}
	}
	f := want["/lib/a*b/one.wav"]
	f.Size, f.MtimeNS = 77, 1_812_345_678_901_234_569
	want[f.Path] = f
	if got := files(wl); !reflect.DeepEqual(got, want) {
		t.Errorf("weaviate files after touch:\n got %+v\nwant %+v", got, want)
	}
	if got := files(sl); !reflect.DeepEqual(got, want) {
		t.Errorf("sqlite files after touch:\n got %+v\nwant %+v", got, want)
	}
	cos, err := wl.Cosines(ctx, []string{"a1"}, entries[0].Vector, "test/4")
	if err != nil || math.Abs(cos["a1"]-1) > 1e-6 {
		t.Errorf("the vector after a touch: %v %v", cos, err)
	}
	if r, err := wl.Get(ctx, "a1"); err != nil || r.Caption != "sound a1" {
		t.Errorf("the record after a touch: %+v %v", r, err)
	}

	// Failures: set, replaced, cleared, listed by path.
	paths := []string{"/lib/a*b/bad.wav", "/lib/aXb/bad.wav", "/lib/a?b/bad.wav", "/lib2/bad.wav", "/lib/a*b/worse.wav"}
	before := time.Now().Add(-time.Second).Truncate(time.Second)
	for _, lib := range []ingest.Target{wl, sl} {
		for _, p := range paths {
			if err := lib.SetFailure(ctx, p, "first reason"); err != nil {
				t.Fatal(err)
			}
		}
		if err := lib.SetFailure(ctx, "/lib2/bad.wav", "wav: truncated"); err != nil {
			t.Fatal(err)
		}
		if err := lib.SetFailure(ctx, "/lib/a*b/worse.wav", ""); err != nil {
			t.Fatal(err)
		}
		if err := lib.SetFailure(ctx, "/never/failed.wav", ""); err != nil {
			t.Errorf("clearing a failure never recorded: %v", err)
		}
	}
	failures := func(lib interface {
		Failures(context.Context) ([]foley.Failure, error)
	}) []string {
		t.Helper()
		fs, err := lib.Failures(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range fs {
			if f.At.Before(before) || f.At.After(time.Now()) || f.At.Location() != time.UTC {
				t.Errorf("failure of %s at %v", f.Path, f.At)
			}
			out = append(out, f.Path+": "+f.Reason)
		}
		return out
	}
	wantFailures := []string{"/lib/a*b/bad.wav: first reason", "/lib/a?b/bad.wav: first reason", "/lib/aXb/bad.wav: first reason", "/lib2/bad.wav: wav: truncated"}
	if got := failures(wl); !reflect.DeepEqual(got, wantFailures) {
		t.Errorf("weaviate failures %q", got)
	}
	if got := failures(sl); !reflect.DeepEqual(got, wantFailures) {
		t.Errorf("sqlite failures %q", got)
	}
	// ClearFailuresUnder: '*' is a letter of the prefix, not a wildcard.
	for _, lib := range []ingest.Target{wl, sl} {
		for _, p := range []string{"/lib/a*b/", "/nothing/"} {
			if err := lib.ClearFailuresUnder(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	wantFailures = wantFailures[1:]
	if got := failures(wl); !reflect.DeepEqual(got, wantFailures) {
		t.Errorf("weaviate failures after clearing /lib/a*b/: %q", got)
	}
	if got := failures(sl); !reflect.DeepEqual(got, wantFailures) {
		t.Errorf("sqlite failures after clearing /lib/a*b/: %q", got)
	}
	for _, lib := range []ingest.Target{wl, sl} {
		if err := lib.ClearFailuresUnder(ctx, "/lib"); err != nil {
			t.Fatal(err)
		}
	}
	if got := failures(wl); len(got) != 0 {
		t.Errorf("weaviate failures after clearing /lib: %q", got)
	}

	// CountUnusable, the same on both; Like reads '*' and '?' as
	// wildcards, so those prefixes are tested another way.
	for prefix, n := range map[string]int{"/lib/": 3, "/lib": 4, "/lib/a*b/": 1, "/lib/a?b/": 0, "/lib/a": 2, "": 5,
		" lead/": 1, "/nothing/": 0, "/LIB/": 0, "/lib/a*": 1, "/lib/a?": 0, "/lib/aXb/three.wav": 1} {
		w, err := wl.CountUnusable(ctx, prefix)
		if err != nil {
			t.Fatal(err)
		}
		s, err := sl.CountUnusable(ctx, prefix)
		if err != nil {
			t.Fatal(err)
		}
		if w != n || s != n {
			t.Errorf("unusable under %q: weaviate %d, sqlite %d, want %d", prefix, w, s, n)
		}
	}

	// A prefix of other letters is a byte prefix. (The embedded library
	// compares characters with bytes here: SQLite's substr counts
	// characters.)
	if n, err := wl.CountUnusable(ctx, "/lib/ü"); err != nil || n != 1 {
		t.Errorf("unusable under /lib/ü: %d %v", n, err)
	}

	// Delete removes records and so their files.
	for _, lib := range []ingest.Target{wl, sl} {
		if err := lib.Delete(ctx, "c2", "missing"); err != nil {
			t.Fatal(err)
		}
	}
	delete(want, "/lib2/six.wav")
	if got := files(wl); !reflect.DeepEqual(got, want) {
		t.Errorf("weaviate files after delete:\n got %+v\nwant %+v", got, want)
	}

	// Stats agree, and count what they should.
	ws, err := wl.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := sl.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ws.Path != wl.Location() || ss.Path != sl.Location() {
		t.Errorf("stats paths %q %q", ws.Path, ss.Path)
	}
	ws.Path, ss.Path = "", ""
	want2 := foley.Stats{Records: 7, ByLicense: map[string]int{"CC0-1.0": 3, "unknown": 1, "CC-BY-4.0": 1, "CC-BY-NC-4.0": 1, "user-owned": 1},
		ByFormat: map[string]int{"wav": 5, "flac": 2}, ByEmbedder: map[string]int{"test/4": 7}, Unlicensed: 4, Failures: 0}
	want2.Schema = weaviate.SchemaVersion
	if !reflect.DeepEqual(ws, want2) {
		t.Errorf("weaviate stats %+v, want %+v", ws, want2)
	}
	want2.Schema = sqlite.SchemaVersion
	if !reflect.DeepEqual(ss, want2) {
		t.Errorf("sqlite stats %+v, want %+v", ss, want2)
	}
}

// TestResetEmbeddingsPartial forgets the embedder, then stores vectors of
// another dimension: Weaviate keeps the first dimension of a class, and
// refuses those objects one by one while storing the rest of the batch.
func TestResetEmbeddingsPartial(t *testing.T) {
	ctx := context.Background()
	node := weaviatetest.Shared(t)
	l := open(t, node.Location(newClass("Reset")))
	entries := fileEntries()[:3]
	if err := l.Put(ctx, entries); err != nil {
		t.Fatal(err)
	}
	if err := l.ResetEmbeddings(ctx); err != nil {
		t.Fatal(err)
	}
	if m, d := l.Embedding(); m != "" || d != 0 {
		t.Errorf("embedding after reset: %q %d", m, d)
	}
	if m, _ := open(t, l.Location()).Embedding(); m != "" {
		t.Errorf("another handle sees the embedder %q after reset", m)
	}
	// Reset twice is fine.
	if err := l.ResetEmbeddings(ctx); err != nil {
		t.Fatal(err)
	}

	// A batch of records without vectors and one with a vector of 8.
	batch := []foley.Entry{
		{Record: librarytest.Rec("n1", "no vector one"), File: &foley.FileState{ID: "n1", Path: "/n/1.wav", Size: 1, MtimeNS: 1}},
		{Record: librarytest.Rec("v8", "eight dimensions"), Vector: librarytest.Unit(8, 0), File: &foley.FileState{ID: "v8", Path: "/n/2.wav", Size: 2, MtimeNS: 2}},
		{Record: librarytest.Rec("n2", "no vector two"), File: &foley.FileState{ID: "n2", Path: "/n/3.wav", Size: 3, MtimeNS: 3}},
	}
	batch[1].Record.EmbeddingModel = "test/8"
	err := l.Put(ctx, batch)
	var pe *foley.PartialError
	if !errors.As(err, &pe) {
		t.Fatalf("put of another dimension: %v", err)
	}
	if pe.Total != 3 || len(pe.Failed) != 1 || pe.Failed[0].Index != 1 || pe.Failed[0].ID != "v8" ||
		!strings.Contains(pe.Failed[0].Reason, "length 8") || !strings.Contains(pe.Failed[0].Reason, "new class") {
		t.Errorf("partial error %+v", pe)
	}
	if foley.CodeOf(err) != foley.Invalid {
		t.Errorf("code %s", foley.CodeOf(err))
	}
	for _, id := range []string{"n1", "n2", "a1"} {
		if _, err := l.Get(ctx, id); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	if _, err := l.Get(ctx, "v8"); foley.CodeOf(err) != foley.NotFound {
		t.Errorf("the refused record: %v", err)
	}
}

// writeTone writes half a second of a sine as a 16-bit WAV.
func writeTone(t *testing.T, path string, freq float64) {
	t.Helper()
	c := &audio.Clip{SampleRate: 16000, Channels: 1, Samples: make([]float32, 8000)}
	for i := range c.Samples {
		c.Samples[i] = float32(0.5 * math.Sin(2*math.Pi*freq*float64(i)/16000))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
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

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// counts is what a summary says, without times and places.
func counts(s ingest.Summary) string {
	var failed []string
	for _, f := range s.Failures {
		failed = append(failed, filepath.Base(f.Path))
	}
	return fmt.Sprintf("added %d updated %d unchanged %d removed %d failed %d %v unusable %d interrupted %v",
		s.Added, s.Updated, s.Unchanged, s.Removed, s.Failed, failed, s.Unusable, s.Interrupted)
}

// TestIngest indexes a folder of WAV files into a Weaviate library and,
// alongside, into an embedded one: the summaries, the files and the stats
// agree run after run.
func TestIngest(t *testing.T) {
	ctx := context.Background()
	node := weaviatetest.Shared(t)
	wl := open(t, node.Location(newClass("Ingest")))
	sl := openSQLite(t)
	root := filepath.Join(t.TempDir(), "sfx*?")
	writeTone(t, filepath.Join(root, "doors", "take_07.wav"), 220)
	writeFile(t, filepath.Join(root, "doors", "take_07.json"), `{"id": "door-slam-07", "caption": "Heavy wooden door slams shut", "license": {"license_id": "CC0-1.0"}}`)
	writeTone(t, filepath.Join(root, "weather", "rain on roof.wav"), 300)
	writeTone(t, filepath.Join(root, "FEETGrav_Boots Walking Gravel_JD_LIB.wav"), 400)
	writeTone(t, filepath.Join(root, "kitchen", "glassBreak-01.wav"), 500)
	writeFile(t, filepath.Join(root, "kitchen", "broken.wav"), "RIFF\x24\x00\x00\x00WAVEfmt nothing more")
	writeFile(t, filepath.Join(root, "README.txt"), "not audio")
	emb := embed.NewHash(0)

	run := func(want string, opts ingest.Options, e foley.Embedder) {
		t.Helper()
		if e == nil {
			e = emb
		}
		for _, lib := range []ingest.Target{wl, sl} {
			sum, err := ingest.Run(ctx, lib, e, root, opts)
			if err != nil {
				t.Fatalf("%s: %v", lib.Location(), err)
			}
			if got := counts(sum); got != want {
				t.Errorf("%s:\n got %s\nwant %s", lib.Location(), got, want)
			}
			if sum.Library != lib.Location() || sum.Embedder != e.Model() {
				t.Errorf("summary %+v", sum)
			}
		}
	}
	// same checks that both libraries hold the same files and stats.
	same := func() {
		t.Helper()
		wf, err := wl.Files(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sf, err := sl.Files(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(wf, sf) {
			t.Errorf("files differ:\nweaviate %+v\n  sqlite %+v", wf, sf)
		}
		for path, f := range wf {
			st, err := os.Stat(path)
			if err != nil || st.Size() != f.Size || st.ModTime().UnixNano() != f.MtimeNS {
				t.Errorf("%s: %+v, on disk %v %v", path, f, st, err)
			}
		}
		ws, err := wl.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ss, err := sl.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ws.Path, ss.Path, ws.Schema, ss.Schema = "", "", 0, 0
		if !reflect.DeepEqual(ws, ss) {
			t.Errorf("stats differ:\nweaviate %+v\n  sqlite %+v", ws, ss)
		}
		wfs, _ := wl.Failures(ctx)
		sfs, _ := sl.Failures(ctx)
		if len(wfs) != len(sfs) {
			t.Errorf("failures differ:\nweaviate %+v\n  sqlite %+v", wfs, sfs)
		}
		for i := range min(len(wfs), len(sfs)) {
			if wfs[i].Path != sfs[i].Path || wfs[i].Reason != sfs[i].Reason {
				t.Errorf("failure %d: weaviate %+v, sqlite %+v", i, wfs[i], sfs[i])
			}
		}
	}

	run("added 4 updated 0 unchanged 0 removed 0 failed 1 [broken.wav] unusable 3 interrupted false", ingest.Options{}, nil)
	same()
	if s, _ := wl.Stats(ctx); s.Records != 4 || s.ByLicense["CC0-1.0"] != 1 || s.ByLicense["unknown"] != 3 || s.Failures != 1 || s.ByFormat["wav"] != 4 {
		t.Errorf("stats %+v", s)
	}
	res, err := wl.Search(ctx, foley.SearchQuery{Text: "door slams", K: 2})
	if err != nil || len(res) == 0 || res[0].Sound.ID != "door-slam-07" {
		t.Errorf("search after ingest: %v %v", librarytest.IDs(res), err)
	}

	// Nothing changed.
	run("added 0 updated 0 unchanged 4 removed 0 failed 1 [broken.wav] unusable 3 interrupted false", ingest.Options{}, nil)
	same()

	// A touched file stays unchanged, with its new time recorded to the
	// nanosecond; a changed one is updated, a removed one removed, a
	// mended one added, and a folder licence makes the rest usable.
	later := time.Unix(1_900_000_000, 123_456_789)
	if err := os.Chtimes(filepath.Join(root, "kitchen", "glassBreak-01.wav"), later, later); err != nil {
		t.Fatal(err)
	}
	writeTone(t, filepath.Join(root, "weather", "rain on roof.wav"), 999)
	if err := os.Remove(filepath.Join(root, "FEETGrav_Boots Walking Gravel_JD_LIB.wav")); err != nil {
		t.Fatal(err)
	}
	writeTone(t, filepath.Join(root, "kitchen", "broken.wav"), 600)
	run("added 1 updated 1 unchanged 2 removed 1 failed 0 [] unusable 3 interrupted false", ingest.Options{}, nil)
	same()
	if fs, _ := wl.Failures(ctx); len(fs) != 0 {
		t.Errorf("failures after mending: %+v", fs)
	}
	run("added 0 updated 4 unchanged 0 removed 0 failed 0 [] unusable 0 interrupted false", ingest.Options{License: "user-owned"}, nil)
	same()
	run("added 0 updated 0 unchanged 4 removed 0 failed 0 [] unusable 0 interrupted false", ingest.Options{License: "user-owned"}, nil)

	// Embedding again with a model of another dimension: the embedded
	// library takes it; Weaviate refuses every record, file by file, and
	// the run goes on.
	other := embed.NewHash(64)
	sum, err := ingest.Run(ctx, sl, other, root, ingest.Options{License: "user-owned", Reembed: true})
	if err != nil || counts(sum) != "added 0 updated 4 unchanged 0 removed 0 failed 0 [] unusable 0 interrupted false" {
		t.Errorf("sqlite reembed: %s %v", counts(sum), err)
	}
	sum, err = ingest.Run(ctx, wl, other, root, ingest.Options{License: "user-owned", Reembed: true})
	if err != nil || sum.Failed != 4 || sum.Updated != 0 || len(sum.Failures) != 4 {
		t.Fatalf("weaviate reembed: %s %v", counts(sum), err)
	}
	for _, f := range sum.Failures {
		if !strings.Contains(f.Reason, "refused its record") || !strings.Contains(f.Reason, "length 64") || !strings.Contains(f.Reason, "new class") {
			t.Errorf("failure %+v", f)
		}
	}
	if fs, _ := wl.Failures(ctx); len(fs) != 4 {
		t.Errorf("recorded failures %+v", fs)
	}
	if n, _ := wl.Count(ctx); n != 4 {
		t.Errorf("count after a refused reembed: %d", n)
	}
}

// TestStatsManyGroups counts more formats than the 100 groups Weaviate
// returns by default.
func TestStatsManyGroups(t *testing.T) {
	ctx := context.Background()
	node := weaviatetest.Shared(t)
	l := open(t, node.Location(newClass("Groups")))
	var recs []foley.SoundRecord
	for i := range 150 {
		r := librarytest.Rec(fmt.Sprintf("r%03d", i), "x")
		r.Format = fmt.Sprintf("fmt%03d", i)
		if i == 0 {
			r.Format = ""
		}
		recs = append(recs, r)
	}
	if err := l.Upsert(ctx, recs, nil); err != nil {
		t.Fatal(err)
	}
	s, err := l.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Records != 150 || len(s.ByFormat) != 150 || s.ByFormat[""] != 1 || s.ByFormat["fmt149"] != 1 || s.ByEmbedder[""] != 150 || s.Unlicensed != 0 {
		t.Errorf("stats: %d records, %d formats, %v embedders, %d unlicensed", s.Records, len(s.ByFormat), s.ByEmbedder, s.Unlicensed)
	}
}

// TestOlderClass refuses a class made by another build of foley rather
// than writing records it cannot read back.
func TestOlderClass(t *testing.T) {
	ctx := context.Background()
	node := weaviatetest.Shared(t)
	class := newClass("Older")
	c, err := wv.NewClient(wv.Config{Host: node.Host, Scheme: "http"})
	if err != nil {
		t.Fatal(err)
	}
	err = c.Schema().ClassCreator().WithClass(&models.Class{Class: class, Description: "foley sound library", Vectorizer: "none",
		Properties: []*models.Property{{Name: "record_id", DataType: []string{"text"}}, {Name: "mtime_ns", DataType: []string{"int"}}}}).Do(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = weaviate.Open(ctx, node.Location(class), weaviate.Options{})
	if foley.CodeOf(err) != foley.Invalid || !strings.Contains(err.Error(), "another version of foley") {
		t.Errorf("open of an older class: %v", err)
	}
}

// TestFilesPages reads the files of more records than one page holds.
func TestFilesPages(t *testing.T) {
	ctx := context.Background()
	node := weaviatetest.Shared(t)
	l := open(t, node.Location(newClass("Pages")))
	var entries []foley.Entry
	for i := range 1234 {
		id := fmt.Sprintf("r%04d", i)
		entries = append(entries, foley.Entry{Record: librarytest.Rec(id, "x"), File: &foley.FileState{ID: id, Path: "/p/" + id + ".wav", Size: int64(i), MtimeNS: int64(i) << 40}})
		if i >= 600 {
			continue // enough for two pages
		}
		if err := l.SetFailure(ctx, "/p/f"+id, "bad"); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Put(ctx, entries); err != nil {
		t.Fatal(err)
	}
	files, err := l.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(entries) {
		t.Fatalf("%d files, want %d", len(files), len(entries))
	}
	for _, e := range entries {
		if f := files[e.File.Path]; f.Size != e.File.Size || f.MtimeNS != e.File.MtimeNS || f.ID != e.Record.ID {
			t.Fatalf("%s: %+v", e.File.Path, f)
		}
	}
	if fs, err := l.Failures(ctx); err != nil || len(fs) != 600 {
		t.Fatalf("%d failures, %v", len(fs), err)
	}
	if err := l.ClearFailuresUnder(ctx, "/p/"); err != nil {
		t.Fatal(err)
	}
	if fs, err := l.Failures(ctx); err != nil || len(fs) != 0 {
		t.Errorf("%d failures after clearing, %v", len(fs), err)
	}
}
