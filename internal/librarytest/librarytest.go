// Package librarytest is the behavioural contract of a foley library
// backend, written once and run against each backend (the embedded SQLite
// library and Weaviate) by that backend's tests.
package librarytest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/verify"
)

// Backend makes libraries for the contract.
type Backend struct {
	// New returns a new, empty library; the backend closes it when t
	// ends.
	New func(t *testing.T) foley.Store
	// Reopen opens a second handle on the library s, as another process
	// would.
	Reopen func(t *testing.T, s foley.Store) foley.Store
	// Verdicts returns the verdict store that goes with the library s.
	Verdicts func(t *testing.T, s foley.Store) verify.VerdictStore
}

// Run runs every part of the contract as a subtest.
func Run(t *testing.T, b Backend) {
	t.Run("CRUD", func(t *testing.T) { testCRUD(t, b) })
	t.Run("Rejects", func(t *testing.T) { testRejects(t, b) })
	t.Run("HybridSearch", func(t *testing.T) { testHybrid(t, b) })
	t.Run("Filters", func(t *testing.T) { testFilters(t, b) })
	t.Run("Errors", func(t *testing.T) { testErrors(t, b) })
	t.Run("Export", func(t *testing.T) { testExport(t, b) })
	t.Run("TwoHandles", func(t *testing.T) { testTwoHandles(t, b) })
	t.Run("Verdicts", func(t *testing.T) { testVerdicts(t, b) })
}

// Unit returns a normalised vector pointing mostly along axis i, with mix
// added on the next axes.
func Unit(dim, i int, mix ...float32) []float32 {
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

// Rec is a test record with a CC0 licence and the model test/4.
func Rec(id, caption string, tags ...string) foley.SoundRecord {
	return foley.SoundRecord{ID: id, URI: "/sounds/" + id + ".wav", Caption: caption, Tags: tags, DurationS: 2, Format: "wav",
		License: foley.License{LicenseID: "CC0-1.0", RightsVerified: true}, EmbeddingModel: "test/4"}
}

// IDs are the ids of candidates, in order.
func IDs(cs []foley.Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Sound.ID)
	}
	return out
}

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func testCRUD(t *testing.T, b Backend) {
	ctx := context.Background()
	l := b.New(t)
	if n, err := l.Count(ctx); n != 0 || err != nil {
		t.Fatalf("new library has %d records (%v)", n, err)
	}
	if m, d := l.Embedding(); m != "" || d != 0 {
		t.Errorf("new library's embedding %q/%d", m, d)
	}
	a, c := Rec("a", "door slam"), Rec("b", "rain on a roof")
	c.License = foley.License{LicenseID: "https://creativecommons.org/licenses/by-nc/4.0/", RightsVerified: true}
	c.Tags = nil
	if err := l.Upsert(ctx, []foley.SoundRecord{a, c}, [][]float32{Unit(4, 0), Unit(4, 1)}); err != nil {
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
	if got.Caption != c.Caption || got.URI != c.URI || got.DurationS != 2 || got.EmbeddingModel != "test/4" {
		t.Errorf("stored record %+v", got)
	}
	if _, err := l.Get(ctx, "zzz"); foley.CodeOf(err) != foley.NotFound {
		t.Errorf("missing id: %v", err)
	}
	a.Caption = "door slam, heavy"
	if err := l.Upsert(ctx, []foley.SoundRecord{a}, [][]float32{Unit(4, 2)}); err != nil {
		t.Fatal(err)
	}
	if n, _ := l.Count(ctx); n != 2 {
		t.Errorf("after replacing: %d records", n)
	}
	var all []string
	for r, err := range l.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, r.ID+":"+r.Caption)
	}
	if !sameSet(all, []string{"a:door slam, heavy", "b:rain on a roof"}) {
		t.Errorf("all: %v", all)
	}
	// A record without a vector is stored, and found by its words only.
	if err := l.Upsert(ctx, []foley.SoundRecord{Rec("plain", "a plain bell")}, nil); err != nil {
		t.Fatal(err)
	}
	if r, err := l.Get(ctx, "plain"); err != nil || r.EmbeddingModel != "" {
		t.Errorf("record without a vector: %+v %v", r, err)
	}
	if err := l.Delete(ctx, "a", "nope", "plain"); err != nil {
		t.Fatal(err)
	}
	if n, _ := l.Count(ctx); n != 1 {
		t.Errorf("after delete: %d", n)
	}
	if _, err := l.Get(ctx, "a"); foley.CodeOf(err) != foley.NotFound {
		t.Errorf("deleted record: %v", err)
	}
	if m, d := l.Embedding(); m != "test/4" || d != 4 {
		t.Errorf("embedding %s/%d", m, d)
	}
}

func testRejects(t *testing.T, b Backend) {
	ctx := context.Background()
	l := b.New(t)
	nan := Rec("x", "")
	for name, tc := range map[string]struct {
		r foley.SoundRecord
		v []float32
	}{
		"no id":        {foley.SoundRecord{}, nil},
		"no model":     {foley.SoundRecord{ID: "x"}, Unit(4, 0)},
		"NaN":          {nan, []float32{float32(math.NaN()), 0, 0, 0}},
		"empty vector": {nan, []float32{}},
	} {
		if err := l.Upsert(ctx, []foley.SoundRecord{tc.r}, [][]float32{tc.v}); foley.CodeOf(err) != foley.Invalid {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := l.Upsert(ctx, []foley.SoundRecord{Rec("x", "a")}, [][]float32{Unit(4, 0)}); err != nil {
		t.Fatal(err)
	}
	other := Rec("y", "b")
	other.EmbeddingModel = "clap/512"
	err := l.Upsert(ctx, []foley.SoundRecord{other}, [][]float32{Unit(8, 0)})
	if foley.CodeOf(err) != foley.Invalid || !contains(err.Error(), "test/4", "clap/512", "--reembed") {
		t.Errorf("second model: %v", err)
	}
	// A write with a record of another embedder is refused before
	// anything of it is stored.
	if err := l.Upsert(ctx, []foley.SoundRecord{Rec("z", "ok"), other}, [][]float32{Unit(4, 1), Unit(8, 0)}); err == nil {
		t.Error("mixed write accepted")
	}
	if _, err := l.Get(ctx, "z"); foley.CodeOf(err) != foley.NotFound {
		t.Errorf("part of a refused write was stored: %v", err)
	}
	if err := l.Upsert(ctx, []foley.SoundRecord{Rec("q", "x")}, [][]float32{Unit(4, 0), Unit(4, 1)}); foley.CodeOf(err) != foley.Invalid {
		t.Errorf("more vectors than records: %v", err)
	}
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func testHybrid(t *testing.T, b Backend) {
	ctx := context.Background()
	l := b.New(t)
	recs := []foley.SoundRecord{
		Rec("slam", "heavy wooden door slams shut", "door", "slam"),
		Rec("knock", "knocking on a wooden door", "door", "knock"),
		Rec("rain", "rain on a tin roof", "rain", "weather"),
		Rec("creak", "old door creaks open", "door", "creak"),
	}
	vecs := [][]float32{Unit(4, 0, 0.3), Unit(4, 1), Unit(4, 2), Unit(4, 0, 0.9)}
	if err := l.Upsert(ctx, recs, vecs); err != nil {
		t.Fatal(err)
	}
	q := Unit(4, 0)
	res, err := l.Search(ctx, foley.SearchQuery{Text: "door slams", Vector: q, Model: "test/4", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || res[0].Sound.ID != "slam" {
		t.Fatalf("results %v", IDs(res))
	}
	// "slam" is first in both lists: 2/(60 + its rank), the rank counted
	// from 1 in the embedded backend and from 0 in Weaviate's fusion.
	if got := *res[0].RRFScore; got < 2.0/61-1e-6 || got > 2.0/60+1e-6 {
		t.Errorf("rrf of the top result %v, want 2/(60+1) or 2/(60+0)", got)
	}
	for i, c := range res {
		if c.ClapScore == nil || c.RRFScore == nil || c.Origin != foley.OriginRetrieved {
			t.Errorf("%s: scores %v %v", c.Sound.ID, c.ClapScore, c.RRFScore)
		}
		if i > 0 && *c.RRFScore > *res[i-1].RRFScore {
			t.Errorf("not ranked by rrf: %v", IDs(res))
		}
	}
	if res[0].BM25Score == nil || *res[0].BM25Score <= 0 {
		t.Errorf("bm25 %v", res[0].BM25Score)
	}
	if math.Abs(*res[0].ClapScore-dot(vecs[0], q)) > 1e-5 {
		t.Errorf("clap score %v, want %v", *res[0].ClapScore, dot(vecs[0], q))
	}
	// Text only and vector only.
	res, err = l.Search(ctx, foley.SearchQuery{Text: "tin roof"})
	if err != nil || len(res) != 1 || res[0].Sound.ID != "rain" || res[0].ClapScore != nil || res[0].BM25Score == nil {
		t.Errorf("text only: %v %v", IDs(res), err)
	} else if got := *res[0].RRFScore; got < 1.0/61-1e-6 || got > 1.0/60+1e-6 {
		t.Errorf("text only rrf %v", got)
	}
	res, err = l.Search(ctx, foley.SearchQuery{Vector: Unit(4, 2), Model: "test/4", K: 1})
	if err != nil || len(res) != 1 || res[0].Sound.ID != "rain" || res[0].BM25Score != nil || res[0].ClapScore == nil {
		t.Errorf("vector only: %v %v", IDs(res), err)
	}
	// Words match by their stems: "slamming" finds "slams".
	res, err = l.Search(ctx, foley.SearchQuery{Text: "slamming"})
	if err != nil || len(res) != 1 || res[0].Sound.ID != "slam" {
		t.Errorf("stemmed: %v %v", IDs(res), err)
	}
	// Stopwords alone still search.
	if _, err := l.Search(ctx, foley.SearchQuery{Text: "on a"}); err != nil {
		t.Errorf("stopwords only: %v", err)
	}
	// Cosines of given records.
	cos, err := l.Cosines(ctx, []string{"slam", "rain", "nope"}, q, "test/4")
	if err != nil || len(cos) != 2 || math.Abs(cos["slam"]-dot(vecs[0], q)) > 1e-5 || math.Abs(cos["rain"]) > 1e-5 {
		t.Errorf("cosines %v %v", cos, err)
	}
	if _, err := l.Cosines(ctx, []string{"slam"}, Unit(8, 0), "other/8"); foley.CodeOf(err) != foley.Invalid {
		t.Errorf("cosines of another model: %v", err)
	}
}

func testFilters(t *testing.T, b Backend) {
	ctx := context.Background()
	l := b.New(t)
	a, bb, c := Rec("a", "door slam"), Rec("b", "door slam"), Rec("c", "door slam")
	bb.License.LicenseID = "CC-BY-NC-4.0"
	c.DurationS, c.UCSCategory = 9, "DOORWood"
	if err := l.Upsert(ctx, []foley.SoundRecord{a, bb, c}, [][]float32{Unit(4, 0), Unit(4, 0, 0.1), Unit(4, 0, 0.2)}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    foley.Filter
		want []string
	}{
		{"commercial", foley.Filter{CommercialOnly: true}, []string{"a", "c"}},
		{"licence", foley.Filter{LicenseIDs: []string{"cc-by-nc-4.0"}}, []string{"b"}},
		{"licences", foley.Filter{LicenseIDs: []string{"CC0-1.0", "CC-BY-NC-4.0"}}, []string{"a", "b", "c"}},
		{"min duration", foley.Filter{MinDurationS: 5}, []string{"c"}},
		{"max duration", foley.Filter{MaxDurationS: 5}, []string{"a", "b"}},
		{"ucs prefix", foley.Filter{UCSCategory: "door"}, []string{"c"}},
		{"ucs whole", foley.Filter{UCSCategory: "DOORWood"}, []string{"c"}},
		{"ucs other", foley.Filter{UCSCategory: "RAIN"}, nil},
		{"combined", foley.Filter{CommercialOnly: true, MaxDurationS: 5}, []string{"a"}},
	} {
		for _, mode := range []string{"text", "vector", "hybrid"} {
			q := foley.SearchQuery{Filter: tc.f}
			if mode != "vector" {
				q.Text = "door"
			}
			if mode != "text" {
				q.Vector, q.Model = Unit(4, 0), "test/4"
			}
			res, err := l.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if got := IDs(res); !sameSet(got, tc.want) {
				t.Errorf("%s (%s): %v, want %v", tc.name, mode, got, tc.want)
			}
		}
	}
}

func testErrors(t *testing.T, b Backend) {
	ctx := context.Background()
	l := b.New(t)
	if err := l.Upsert(ctx, []foley.SoundRecord{Rec("a", "door")}, [][]float32{Unit(4, 0)}); err != nil {
		t.Fatal(err)
	}
	for name, q := range map[string]foley.SearchQuery{
		"model mismatch": {Vector: Unit(8, 0), Model: "laion/larger_clap_general"},
		"no query":       {Text: "   ,,,"},
		"k too large":    {Text: "door", K: 5000},
		"negative k":     {Text: "door", K: -1},
		"bad range":      {Text: "door", Filter: foley.Filter{MinDurationS: 5, MaxDurationS: 2}},
	} {
		if _, err := l.Search(ctx, q); foley.CodeOf(err) != foley.Invalid {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, err := l.Search(ctx, foley.SearchQuery{Vector: Unit(8, 0), Model: "laion/larger_clap_general"})
	if err == nil || !contains(err.Error(), "test/4", "laion/larger_clap_general", "re-index") {
		t.Errorf("mismatch message: %v", err)
	}
	// Query syntax of any engine is just words.
	for _, text := range []string{`door" OR NEAR(x AND *`, `door } { query: "x"`, `door\`} {
		res, err := l.Search(ctx, foley.SearchQuery{Text: text})
		if err != nil || len(res) != 1 {
			t.Errorf("query %q: %v %v", text, IDs(res), err)
		}
	}
}

func testExport(t *testing.T, b Backend) {
	ctx := context.Background()
	l := b.New(t)
	var recs []foley.SoundRecord
	var vecs [][]float32
	for i := range 1203 {
		recs = append(recs, Rec(fmt.Sprintf("r%04d", i), fmt.Sprintf("clip %d", i)))
		vecs = append(vecs, Unit(4, i%4, float32(i%7)/10))
	}
	recs = append(recs, Rec("novec", "no vector"))
	vecs = append(vecs, nil)
	if err := l.Upsert(ctx, recs, vecs); err != nil {
		t.Fatal(err)
	}
	// A record ingested from a file exports with the file's state.
	file := foley.FileState{ID: "file", Path: "/sfx/Überraschung/door.wav", Size: 1 << 40, MtimeNS: 1764460800123456789, SHA256: "c0ffee", MetaSHA256: "meta"}
	recs = append(recs, Rec("file", "from a file"))
	if err := l.Put(ctx, []foley.Entry{{Record: recs[len(recs)-1], File: &file}}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var cursors []string
	for e, err := range l.Export(ctx, "") {
		if err != nil {
			t.Fatal(err)
		}
		if seen[e.Record.ID] {
			t.Fatalf("%s exported twice", e.Record.ID)
		}
		seen[e.Record.ID] = true
		cursors = append(cursors, e.Cursor)
		if e.Record.ID == "file" {
			if e.File == nil || *e.File != file {
				t.Errorf("file state %+v, want %+v", e.File, file)
			}
		} else if e.File != nil {
			t.Errorf("%s: file state %+v for a record stored without a file", e.Record.ID, e.File)
		}
		if e.Record.ID == "novec" || e.Record.ID == "file" {
			if e.Vector != nil {
				t.Errorf("%s has a vector", e.Record.ID)
			}
			continue
		}
		var i int
		fmt.Sscanf(e.Record.ID, "r%d", &i)
		if math.Abs(dot(e.Vector, vecs[i])-1) > 1e-5 {
			t.Errorf("%s: vector %v, want %v", e.Record.ID, e.Vector, vecs[i])
		}
	}
	if len(seen) != len(recs) {
		t.Fatalf("exported %d of %d", len(seen), len(recs))
	}
	// Resuming after the 700th record gives the rest, in the same order.
	var rest []string
	for e, err := range l.Export(ctx, cursors[699]) {
		if err != nil {
			t.Fatal(err)
		}
		rest = append(rest, e.Cursor)
	}
	if !slices.Equal(rest, cursors[700:]) {
		t.Errorf("resumed export: %d records, want %d", len(rest), len(cursors)-700)
	}
	n := 0
	for range l.All(ctx) {
		n++
	}
	if n != len(recs) {
		t.Errorf("all: %d of %d", n, len(recs))
	}
}

func testTwoHandles(t *testing.T, b Backend) {
	ctx := context.Background()
	w := b.New(t)
	if err := w.Upsert(ctx, []foley.SoundRecord{Rec("a", "bell")}, [][]float32{Unit(4, 0)}); err != nil {
		t.Fatal(err)
	}
	r := b.Reopen(t, w)
	search := func() []string {
		res, err := r.Search(ctx, foley.SearchQuery{Vector: Unit(4, 0), Model: "test/4"})
		if err != nil {
			t.Fatal(err)
		}
		return IDs(res)
	}
	if got := search(); len(got) != 1 {
		t.Fatalf("reader sees %v", got)
	}
	w.Upsert(ctx, []foley.SoundRecord{Rec("b", "bell two")}, [][]float32{Unit(4, 0, 0.5)})
	w.Delete(ctx, "a")
	if got := search(); len(got) != 1 || got[0] != "b" {
		t.Errorf("after the writer's changes the reader sees %v", got)
	}
	// Concurrent readers while writers keep writing (run with -race).
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for range 10 {
				if _, err := r.Search(ctx, foley.SearchQuery{Text: "bell", Vector: Unit(4, 0), Model: "test/4"}); err != nil {
					t.Error(err)
					return
				}
			}
		})
		wg.Go(func() {
			for j := range 5 {
				id := string(rune('c'+i)) + string(rune('0'+j))
				if err := w.Upsert(ctx, []foley.SoundRecord{Rec(id, "bell")}, [][]float32{Unit(4, 1)}); err != nil {
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

func testVerdicts(t *testing.T, b Backend) {
	ctx := context.Background()
	c := b.Verdicts(t, b.New(t))
	key := verify.CacheKey{Event: "door slam", ContentSHA256: "ab", Description: "d", Level: foley.LevelListen, Judge: "audiolm|m|prompt=v1|tau=0.5"}
	if _, ok, err := c.GetVerdict(ctx, key); ok || err != nil {
		t.Fatalf("empty cache: ok=%v err=%v", ok, err)
	}
	want := foley.Verdict{Match: true, Confidence: 0.91, Reason: "P(yes)=0.91", Level: foley.LevelListen, Judge: "audiolm:m", Cached: true}
	if err := c.PutVerdict(ctx, key, want); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			k := key
			k.ContentSHA256 = string(rune('c' + i))
			if err := c.PutVerdict(ctx, k, want); err != nil {
				t.Error(err)
			}
			if _, _, err := c.GetVerdict(ctx, key); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, ok, err := c.GetVerdict(ctx, key)
	want.Cached = false // stored as given; the cache wrapper marks reads
	if err != nil || !ok || got != want {
		t.Fatalf("read back: %+v ok=%v err=%v, want %+v", got, ok, err, want)
	}
	other := key
	other.Level = foley.LevelJudge
	if _, ok, _ := c.GetVerdict(ctx, other); ok {
		t.Error("a verdict of another rung was found")
	}
	n := 0
	for cv, err := range c.AllVerdicts(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if cv.Verdict != want || cv.Key.Event != key.Event || cv.Key.Level != foley.LevelListen || cv.Key.Judge != key.Judge {
			t.Errorf("listed %+v", cv)
		}
		n++
	}
	if n != 17 {
		t.Errorf("listed %d verdicts, want 17", n)
	}
}
