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
	"sync"
	"testing"

	"github.com/foley-audio/foley"
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

// unit returns a normalised vector pointing mostly along axis i.
func unit(dim, i int, mix ...float32) []float32 {
	v := make([]float32, dim)
	v[i] = 1
	for j, m := range mix {
		v[(i+j+1)%dim] = m
	}
	var n float32
	for _, x := range v {
		n += x * x
	}
	for j := range v {
		v[j] /= float32(math.Sqrt(float64(n)))
	}
	return v
}

func rec(id, caption string, tags ...string) foley.SoundRecord {
	return foley.SoundRecord{ID: id, URI: "/sounds/" + id + ".wav", Caption: caption, Tags: tags, DurationS: 2, Format: "wav",
		License: foley.License{LicenseID: "CC0-1.0", RightsVerified: true}, EmbeddingModel: "test/4"}
}

func TestCRUD(t *testing.T) {
	ctx := context.Background()
	l := openTemp(t)
	if n, _ := l.Count(ctx); n != 0 {
		t.Fatalf("new library has %d records", n)
	}
	a, b := rec("a", "door slam"), rec("b", "rain on a roof")
	b.License = foley.License{LicenseID: "https://creativecommons.org/licenses/by-nc/4.0/", RightsVerified: true}
	if err := l.Upsert(ctx, []foley.SoundRecord{a, b}, [][]float32{unit(4, 0), unit(4, 1)}); err != nil {
		t.Fatal(err)
	}
	got, err := l.Get(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	// Stored licences are normalised: the URL became the table id, and
	// the flags come from the table.
	if got.License.LicenseID != "CC-BY-NC-4.0" || got.License.LicenseURL == "" || got.License.CommercialOK || !got.License.AttributionRequired {
		t.Errorf("stored licence %+v", got.License)
	}
	if _, err := l.Get(ctx, "zzz"); foley.CodeOf(err) != foley.NotFound {
		t.Errorf("missing id: %v", err)
	}
	a.Caption = "door slam, heavy"
	if err := l.Upsert(ctx, []foley.SoundRecord{a}, [][]float32{unit(4, 2)}); err != nil {
		t.Fatal(err)
	}
	if n, _ := l.Count(ctx); n != 2 {
		t.Errorf("after replacing: %d records", n)
	}
	var ids []string
	for r, err := range l.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID+":"+r.Caption)
	}
	if len(ids) != 2 || ids[0] != "a:door slam, heavy" {
		t.Errorf("all: %v", ids)
	}
	if err := l.Delete(ctx, "a", "nope"); err != nil {
		t.Fatal(err)
	}
	if n, _ := l.Count(ctx); n != 1 {
		t.Errorf("after delete: %d", n)
	}
	if m, d := l.Embedding(); m != "test/4" || d != 4 {
		t.Errorf("embedding %s/%d", m, d)
	}
}

func TestPutRejects(t *testing.T) {
	ctx := context.Background()
	l := openTemp(t)
	for name, e := range map[string]Entry{
		"no id":        {Record: foley.SoundRecord{}},
		"no model":     {Record: foley.SoundRecord{ID: "x"}, Vector: unit(4, 0)},
		"NaN":          {Record: rec("x", ""), Vector: []float32{float32(math.NaN()), 0, 0, 0}},
		"empty vector": {Record: rec("x", ""), Vector: []float32{}},
	} {
		if err := l.Put(ctx, []Entry{e}); foley.CodeOf(err) != foley.Invalid {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := l.Put(ctx, []Entry{{Record: rec("x", "a"), Vector: unit(4, 0)}}); err != nil {
		t.Fatal(err)
	}
	other := rec("y", "b")
	other.EmbeddingModel = "clap/512"
	err := l.Put(ctx, []Entry{{Record: other, Vector: unit(8, 0)}})
	if foley.CodeOf(err) != foley.Invalid || !contains(err.Error(), "test/4", "clap/512", "--reembed") {
		t.Errorf("second model: %v", err)
	}
	// All or none: a bad entry leaves nothing of its batch.
	if err := l.Put(ctx, []Entry{{Record: rec("z", "ok"), Vector: unit(4, 1)}, {Record: other, Vector: unit(8, 0)}}); err == nil {
		t.Error("mixed batch accepted")
	}
	if _, err := l.Get(ctx, "z"); foley.CodeOf(err) != foley.NotFound {
		t.Errorf("half a batch was stored: %v", err)
	}
}

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func TestHybridSearchRRF(t *testing.T) {
	ctx := context.Background()
	l := openTemp(t)
	recs := []foley.SoundRecord{
		rec("slam", "heavy wooden door slams shut", "door", "slam"),
		rec("knock", "knocking on a wooden door", "door", "knock"),
		rec("rain", "rain on a tin roof", "rain", "weather"),
		rec("creak", "old door creaks open", "door", "creak"),
	}
	vecs := [][]float32{unit(4, 0, 0.3), unit(4, 1), unit(4, 2), unit(4, 0, 0.9)}
	if err := l.Upsert(ctx, recs, vecs); err != nil {
		t.Fatal(err)
	}
	q := unit(4, 0)
	res, err := l.Search(ctx, foley.SearchQuery{Text: "door slam", Vector: q, Model: "test/4", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || res[0].Sound.ID != "slam" {
		t.Fatalf("results %v", ids(res))
	}
	// "slam" is first in both lists: 2/(60+1).
	if got := *res[0].RRFScore; math.Abs(got-2.0/61) > 1e-12 {
		t.Errorf("rrf of the top result %v, want %v", got, 2.0/61)
	}
	for _, c := range res {
		if c.ClapScore == nil || c.RRFScore == nil || c.Origin != foley.OriginRetrieved {
			t.Errorf("%s: scores %v %v", c.Sound.ID, c.ClapScore, c.RRFScore)
		}
	}
	if res[0].BM25Score == nil || *res[0].BM25Score <= 0 {
		t.Errorf("bm25 %v", res[0].BM25Score)
	}
	if math.Abs(*res[0].ClapScore-float64(dotf(vecs[0], q))) > 1e-6 {
		t.Errorf("clap score %v", *res[0].ClapScore)
	}
	// Text only and vector only.
	res, _ = l.Search(ctx, foley.SearchQuery{Text: "tin roof"})
	if len(res) != 1 || res[0].Sound.ID != "rain" || res[0].ClapScore != nil || *res[0].RRFScore != 1.0/61 {
		t.Errorf("text only: %v", ids(res))
	}
	res, _ = l.Search(ctx, foley.SearchQuery{Vector: unit(4, 2), Model: "test/4", K: 1})
	if len(res) != 1 || res[0].Sound.ID != "rain" || res[0].BM25Score != nil {
		t.Errorf("vector only: %v", ids(res))
	}
	// Stemming: "slamming" finds "slams".
	res, _ = l.Search(ctx, foley.SearchQuery{Text: "slamming"})
	if len(res) != 1 || res[0].Sound.ID != "slam" {
		t.Errorf("stemmed: %v", ids(res))
	}
}

func ids(cs []foley.Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Sound.ID)
	}
	return out
}

func TestSearchFiltersAndErrors(t *testing.T) {
	ctx := context.Background()
	l := openTemp(t)
	a, b, c := rec("a", "door slam"), rec("b", "door slam"), rec("c", "door slam")
	b.License.LicenseID = "CC-BY-NC-4.0"
	c.DurationS, c.UCSCategory = 9, "DOORWood"
	if err := l.Upsert(ctx, []foley.SoundRecord{a, b, c}, [][]float32{unit(4, 0), unit(4, 0, 0.1), unit(4, 0, 0.2)}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    foley.Filter
		want []string
	}{
		{"commercial", foley.Filter{CommercialOnly: true}, []string{"a", "c"}},
		{"licence", foley.Filter{LicenseIDs: []string{"cc-by-nc-4.0"}}, []string{"b"}},
		{"min duration", foley.Filter{MinDurationS: 5}, []string{"c"}},
		{"max duration", foley.Filter{MaxDurationS: 5}, []string{"a", "b"}},
		{"ucs prefix", foley.Filter{UCSCategory: "door"}, []string{"c"}},
	} {
		for _, mode := range []string{"text", "vector"} {
			q := foley.SearchQuery{Filter: tc.f}
			if mode == "text" {
				q.Text = "door"
			} else {
				q.Vector, q.Model = unit(4, 0), "test/4"
			}
			res, err := l.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			got := ids(res)
			if !sameSet(got, tc.want) {
				t.Errorf("%s (%s): %v, want %v", tc.name, mode, got, tc.want)
			}
		}
	}
	for name, q := range map[string]foley.SearchQuery{
		"model mismatch": {Vector: unit(8, 0), Model: "laion/larger_clap_general"},
		"no query":       {Text: "   ,,,"},
		"k too large":    {Text: "door", K: 5000},
		"bad range":      {Text: "door", Filter: foley.Filter{MinDurationS: 5, MaxDurationS: 2}},
	} {
		if _, err := l.Search(ctx, q); foley.CodeOf(err) != foley.Invalid {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, err := l.Search(ctx, foley.SearchQuery{Vector: unit(8, 0), Model: "laion/larger_clap_general"})
	if !contains(err.Error(), "test/4", "laion/larger_clap_general", "re-index") {
		t.Errorf("mismatch message: %v", err)
	}
	// FTS syntax in a query is just words.
	if _, err := l.Search(ctx, foley.SearchQuery{Text: `door" OR NEAR(x AND *`}); err != nil {
		t.Errorf("query syntax leaked into FTS: %v", err)
	}
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

// TestTwoHandles writes through one handle while another searches: the
// reader sees additions and deletions without reopening.
func TestTwoHandles(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	w, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.Upsert(ctx, []foley.SoundRecord{rec("a", "bell")}, [][]float32{unit(4, 0)})
	r.loadMeta(ctx)
	search := func() []string {
		res, err := r.Search(ctx, foley.SearchQuery{Vector: unit(4, 0), Model: "test/4"})
		if err != nil {
			t.Fatal(err)
		}
		return ids(res)
	}
	if got := search(); len(got) != 1 {
		t.Fatalf("reader sees %v", got)
	}
	w.Upsert(ctx, []foley.SoundRecord{rec("b", "bell two")}, [][]float32{unit(4, 0, 0.5)})
	w.Delete(ctx, "a")
	if got := search(); len(got) != 1 || got[0] != "b" {
		t.Errorf("after the writer's changes the reader sees %v", got)
	}
	// Concurrent readers while the writer keeps writing (run with -race).
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for range 20 {
				if _, err := r.Search(ctx, foley.SearchQuery{Text: "bell", Vector: unit(4, 0), Model: "test/4"}); err != nil {
					t.Error(err)
					return
				}
			}
		})
		wg.Go(func() {
			for j := range 5 {
				id := string(rune('c'+i)) + string(rune('0'+j))
				if err := w.Upsert(ctx, []foley.SoundRecord{rec(id, "bell")}, [][]float32{unit(4, 1)}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n, _ := r.Count(ctx); n != 21 {
		t.Errorf("count %d, want 21", n)
	}
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
