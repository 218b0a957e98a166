package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/librarytest"
)

func openTemp(t *testing.T) *Library {
	t.Helper()
	l, err := Open(context.Background(), filepath.Join(t.TempDir(), "lib", "foley.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// unit and rec make test vectors and records, as the library contract
// does.
var (
	unit = librarytest.Unit
	rec  = librarytest.Rec
)

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func ids(cs []foley.Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Sound.ID)
	}
	return out
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

func TestStatsFailuresReset(t *testing.T) {
	ctx := context.Background()
	l := openTemp(t)
	a, b := rec("a", "x"), rec("b", "y")
	b.License = foley.License{LicenseID: "mystery"}
	b.Format = "flac"
	l.Upsert(ctx, []foley.SoundRecord{a, b}, [][]float32{unit(4, 0), nil})
	l.SetFailure(ctx, "/x/broken.wav", "wav: truncated")
	s, err := l.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Records != 2 || s.ByLicense["CC0-1.0"] != 1 || s.ByLicense["unknown"] != 1 || s.ByFormat["flac"] != 1 ||
		s.ByEmbedder["test/4"] != 1 || s.ByEmbedder[""] != 1 || s.Unlicensed != 1 || s.Failures != 1 {
		t.Errorf("stats %+v", s)
	}
	fs, _ := l.Failures(ctx)
	if len(fs) != 1 || fs[0].Reason != "wav: truncated" {
		t.Errorf("failures %+v", fs)
	}
	l.SetFailure(ctx, "/x/broken.wav", "")
	if fs, _ := l.Failures(ctx); len(fs) != 0 {
		t.Errorf("cleared failure still there: %+v", fs)
	}
	if err := l.ResetEmbeddings(ctx); err != nil {
		t.Fatal(err)
	}
	if m, _ := l.Embedding(); m != "" {
		t.Errorf("model after reset: %q", m)
	}
	c := rec("c", "z")
	c.EmbeddingModel = "clap/8"
	if err := l.Upsert(ctx, []foley.SoundRecord{c}, [][]float32{unit(8, 0)}); err != nil {
		t.Errorf("a new model after reset: %v", err)
	}
}

func TestReopenAndMigrations(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "foley.db")
	l, _ := Open(ctx, path, Options{})
	l.Upsert(ctx, []foley.SoundRecord{rec("a", "bell")}, [][]float32{unit(4, 0)})
	l.Close()
	l, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	res, err := l.Search(ctx, foley.SearchQuery{Text: "bell", Vector: unit(4, 0), Model: "test/4"})
	if err != nil || len(res) != 1 {
		t.Fatalf("after reopening: %v %v", ids(res), err)
	}
	var v int
	l.db.QueryRow("PRAGMA user_version").Scan(&v)
	if v != SchemaVersion {
		t.Errorf("user_version %d", v)
	}
	// A file from a newer foley is refused with a clear message.
	l.db.Exec("PRAGMA user_version = 99")
	l.Close()
	if _, err := Open(ctx, path, Options{}); err == nil || !contains(err.Error(), "newer") {
		t.Errorf("newer schema: %v", err)
	}
	if _, err := Open(ctx, t.TempDir(), Options{}); foley.CodeOf(err) != foley.Invalid {
		t.Errorf("a directory as the library: %v", err)
	}
	if _, err := Open(ctx, path, Options{Index: "faiss"}); err == nil {
		t.Error("unknown index accepted")
	}
}

func TestSplitWords(t *testing.T) {
	for in, want := range map[string]string{
		"DOORWood_Heavy Slam-01":   "DOOR Wood Heavy Slam 01",
		"footstepsGravelRun.take2": "footsteps Gravel Run take2",
		"AMBForst_Birds (dawn)":    "AMB Forst Birds dawn",
		"":                         "",
	} {
		if got := joinWords(SplitWords(in)); got != want {
			t.Errorf("SplitWords(%q) = %q, want %q", in, got, want)
		}
	}
}

func joinWords(w []string) string { return strings.Join(w, " ") }

func dotf(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// TestHNSWIndex saves a graph at the auto threshold, reloads it in another
// handle and checks that graph search agrees with the exact scan.
func TestHNSWIndex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "big.db")
	w, err := Open(ctx, path, Options{HNSWThreshold: 50})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var recs []foley.SoundRecord
	var vecs [][]float32
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 200 {
		recs = append(recs, rec(fmt.Sprintf("r%03d", i), "clip"))
		v := make([]float32, 16)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		var n float32
		for _, x := range v {
			n += x * x
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(float64(n)))
		}
		vecs = append(vecs, v)
	}
	for i := range recs {
		recs[i].EmbeddingModel = "test/16"
	}
	if err := w.Upsert(ctx, recs, vecs); err != nil {
		t.Fatal(err)
	}
	saved, err := w.SaveIndex(ctx)
	if err != nil || len(saved) != 1 || saved[0] != path+".hnsw" {
		t.Fatalf("SaveIndex: %v %v", saved, err)
	}
	exact, _ := Open(ctx, path, Options{Index: "exact"})
	defer exact.Close()
	graph, _ := Open(ctx, path, Options{HNSWThreshold: 50})
	defer graph.Close()
	agree := 0
	for i := 0; i < 200; i += 10 {
		q := foley.SearchQuery{Vector: vecs[i], Model: "test/16", K: 5}
		a, err1 := exact.Search(ctx, q)
		b, err2 := graph.Search(ctx, q)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if a[0].Sound.ID == recs[i].ID && b[0].Sound.ID == recs[i].ID {
			agree++
		}
	}
	if graph.IndexKind() != "hnsw" || exact.IndexKind() != "exact" || agree < 20 {
		t.Errorf("kinds %s/%s, %d of 20 nearest agree", graph.IndexKind(), exact.IndexKind(), agree)
	}
	// A change after the graph was saved is seen by the graph's reader.
	w.Delete(ctx, recs[0].ID)
	res, _ := graph.Search(ctx, foley.SearchQuery{Vector: vecs[0], Model: "test/16", K: 3})
	for _, c := range res {
		if c.Sound.ID == recs[0].ID {
			t.Error("a deleted record came back from the graph")
		}
	}
	// Below the threshold, auto stays exact and saves nothing.
	small, _ := Open(ctx, filepath.Join(t.TempDir(), "small.db"), Options{})
	defer small.Close()
	small.Upsert(ctx, recs[:10], vecs[:10])
	if saved, err := small.SaveIndex(ctx); len(saved) != 0 || err != nil {
		t.Errorf("small library saved a graph: %v", err)
	}
	if err := w.ResetEmbeddings(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".hnsw"); !os.IsNotExist(err) {
		t.Errorf("graph file kept after reset: %v", err)
	}
}

// TestMigratesVersion1 opens a file written at schema version 1 and checks
// that it is brought up to date and searches.
func TestMigratesVersion1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v1.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(migrations[0] + "; PRAGMA user_version = 1"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	l, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var v int
	l.db.QueryRow("PRAGMA user_version").Scan(&v)
	if v != SchemaVersion || SchemaVersion < 2 {
		t.Fatalf("user_version %d after opening, want %d", v, SchemaVersion)
	}
	l.Upsert(ctx, []foley.SoundRecord{rec("a", "door slam"), rec("b", "door")}, nil)
	res, err := l.Search(ctx, foley.SearchQuery{Text: "door slam"})
	if err != nil || len(res) != 2 || res[0].Sound.ID != "a" {
		t.Errorf("search after migrating: %v %v", ids(res), err)
	}
}

// TestVectorSnapshot saves a snapshot, changes the library after it, and
// checks that a new handle starting from the snapshot (or from a damaged
// one) sees exactly what the database holds.
func TestVectorSnapshot(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "snap.db")
	w, _ := Open(ctx, path, Options{Index: "exact"})
	defer w.Close()
	rng := rand.New(rand.NewPCG(1, 1))
	n := snapshotMin + 100
	recs := make([]foley.SoundRecord, n)
	vecs := make([][]float32, n)
	for i := range recs {
		recs[i] = rec(fmt.Sprintf("r%05d", i), "clip")
		recs[i].EmbeddingModel = "test/8"
		if i%3 == 0 {
			recs[i].License.LicenseID = "CC-BY-NC-4.0"
		}
		v := make([]float32, 8)
		var norm float64
		for j := range v {
			v[j] = float32(rng.NormFloat64())
			norm += float64(v[j]) * float64(v[j])
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(norm))
		}
		vecs[i] = v
	}
	if err := w.Upsert(ctx, recs, vecs); err != nil {
		t.Fatal(err)
	}
	saved, err := w.SaveIndex(ctx)
	if err != nil || len(saved) != 1 || saved[0] != path+".vectors" {
		t.Fatalf("SaveIndex: %v %v", saved, err)
	}
	// After the snapshot: one record deleted, one changed, one added.
	w.Delete(ctx, recs[1].ID)
	w.Upsert(ctx, []foley.SoundRecord{recs[2]}, [][]float32{vecs[5]})
	extra := rec("extra", "clip")
	extra.EmbeddingModel = "test/8"
	w.Upsert(ctx, []foley.SoundRecord{extra}, [][]float32{vecs[1]})
	check := func(name string, fromSnapshot bool) {
		r, _ := Open(ctx, path, Options{Index: "exact"})
		defer r.Close()
		res, err := r.Search(ctx, foley.SearchQuery{Vector: vecs[1], Model: "test/8", K: 1})
		if r.vectors.fromSnapshot != fromSnapshot {
			t.Errorf("%s: loaded from the snapshot: %v", name, r.vectors.fromSnapshot)
		}
		if err != nil || res[0].Sound.ID != "extra" {
			t.Errorf("%s: nearest to a deleted record's vector is %v (%v), want extra", name, ids(res), err)
		}
		res, _ = r.Search(ctx, foley.SearchQuery{Vector: vecs[5], Model: "test/8", K: 2})
		if !sameSet(ids(res), []string{recs[2].ID, recs[5].ID}) {
			t.Errorf("%s: a changed vector: %v", name, ids(res))
		}
		res, _ = r.Search(ctx, foley.SearchQuery{Vector: vecs[3], Model: "test/8", K: 3, Filter: foley.Filter{CommercialOnly: true}})
		for _, c := range res {
			if c.Sound.License.LicenseID == "CC-BY-NC-4.0" {
				t.Errorf("%s: the commercial filter let %s through", name, c.Sound.ID)
			}
		}
	}
	check("from the snapshot", true)
	data, _ := os.ReadFile(path + ".vectors")
	data[len(data)/2] ^= 0xFF
	os.WriteFile(path+".vectors", data, 0o644)
	check("from a damaged snapshot", false)
	os.WriteFile(path+".vectors", data[:100], 0o644)
	check("from a truncated snapshot", false)
}

func TestFTSQuery(t *testing.T) {
	for in, want := range map[string]string{
		"a heavy door slams on the floor": `"heavy" OR "door" OR "slams" OR "floor"`,
		"the":                             `"the"`,
		`door" OR NEAR(x`:                 `"door" OR "near" OR "x"`,
		"  ,,, ":                          "",
	} {
		if got := ftsQuery(in); got != want {
			t.Errorf("ftsQuery(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestPrefixNonASCII: path prefixes are compared byte for byte, so a
// folder with accented letters (len counts bytes, SQLite's substr
// characters) still matches.
func TestPrefixNonASCII(t *testing.T) {
	ctx := context.Background()
	l := openTemp(t)
	r := rec("a", "x")
	r.License = foley.License{LicenseID: "unknown"}
	if err := l.Put(ctx, []Entry{{Record: r, File: &FileState{Path: "/home/josé/sfx/a.wav"}}}); err != nil {
		t.Fatal(err)
	}
	if n, err := l.CountUnusable(ctx, "/home/josé/sfx/"); n != 1 || err != nil {
		t.Errorf("unusable under a non-ASCII folder: %d %v", n, err)
	}
	l.SetFailure(ctx, "/home/josé/sfx/b.wav", "broken")
	if err := l.ClearFailuresUnder(ctx, "/home/josé/sfx/"); err != nil {
		t.Fatal(err)
	}
	if fs, _ := l.Failures(ctx); len(fs) != 0 {
		t.Errorf("failures left: %v", fs)
	}
}
