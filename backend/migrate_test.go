package backend_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/backend"
	"github.com/foley-audio/foley/internal/librarytest"
	"github.com/foley-audio/foley/internal/weaviatetest"
	"github.com/foley-audio/foley/verify"
)

func TestMain(m *testing.M) { weaviatetest.Main(m) }

func open(t *testing.T, loc string) foley.Store {
	t.Helper()
	l, err := backend.Open(context.Background(), loc, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func verdicts(t *testing.T, loc string) verify.VerdictStore {
	t.Helper()
	v, err := backend.OpenVerdicts(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

// fill writes n records (every seventh without a vector, every fifth
// from a file) and two verdicts.
func fill(t *testing.T, l foley.Store, v verify.VerdictStore, n int) {
	ctx := context.Background()
	var entries []foley.Entry
	for i := range n {
		id := fmt.Sprintf("r%04d", i)
		e := foley.Entry{Record: librarytest.Rec(id, fmt.Sprintf("clip number %d", i))}
		if i%7 != 3 {
			e.Vector = librarytest.Unit(4, i%4, float32(i%5)/10)
		}
		if i%5 == 0 {
			e.File = &foley.FileState{ID: id, Path: fmt.Sprintf("/sfx/%d.wav", i), Size: int64(i) << 20, MtimeNS: int64(i) * 1e9, SHA256: "sha" + id, MetaSHA256: "meta"}
		}
		entries = append(entries, e)
	}
	if err := l.Put(ctx, entries); err != nil {
		t.Fatal(err)
	}
	for i, lvl := range []foley.VerifyLevel{foley.LevelListen, foley.LevelJudge} {
		key := verify.CacheKey{Event: "door", ContentSHA256: "ab", Description: "d", Level: lvl, Judge: "j"}
		if err := v.PutVerdict(ctx, key, foley.Verdict{Match: i == 0, Confidence: 0.5, Reason: "r", Level: lvl, Judge: "j"}); err != nil {
			t.Fatal(err)
		}
	}
}

// same checks that b holds a's records and vectors.
func same(t *testing.T, a, b foley.Store) {
	ctx := context.Background()
	want := map[string]foley.Exported{}
	for e, err := range a.Export(ctx, "") {
		if err != nil {
			t.Fatal(err)
		}
		want[e.Record.ID] = e
	}
	n := 0
	for e, err := range b.Export(ctx, "") {
		if err != nil {
			t.Fatal(err)
		}
		n++
		w, ok := want[e.Record.ID]
		if !ok {
			t.Fatalf("%s: not in the source", e.Record.ID)
		}
		if (w.Vector == nil) != (e.Vector == nil) || e.Record.Caption != w.Record.Caption || e.Record.License.LicenseID != w.Record.License.LicenseID {
			t.Fatalf("%s differs: %+v vs %+v", e.Record.ID, e, w)
		}
		if (w.File == nil) != (e.File == nil) || w.File != nil && *w.File != *e.File {
			t.Fatalf("%s: file state %+v, want %+v", e.Record.ID, e.File, w.File)
		}
		for i := range e.Vector {
			if math.Abs(float64(e.Vector[i]-w.Vector[i])) > 1e-6 {
				t.Fatalf("%s: vector %v, want %v", e.Record.ID, e.Vector, w.Vector)
			}
		}
	}
	if n != len(want) {
		t.Fatalf("%d records, want %d", n, len(want))
	}
}

// TestMigrateRoundTrip copies an embedded library to Weaviate and back,
// interrupting the first copy half way and resuming it.
func TestMigrateRoundTrip(t *testing.T) {
	ctx := context.Background()
	node := weaviatetest.Shared(t)
	path := filepath.Join(t.TempDir(), "src.db")
	src, srcV := open(t, path), verdicts(t, path)
	fill(t, src, srcV, 1000)

	remote := node.Location(weaviatetest.Class("Migrate"))
	dst, dstV := open(t, remote), verdicts(t, remote)
	stop := errors.New("stop")
	var cursor string
	sum, err := backend.Migrate(ctx, src, dst, backend.MigrateOptions{Batch: 150, Checkpoint: func(c string, copied int) error {
		cursor = c
		if copied >= 450 {
			return stop
		}
		return nil
	}})
	if !errors.Is(err, stop) || sum.Records != 450 {
		t.Fatalf("interrupted copy: %+v %v", sum, err)
	}
	if n, _ := dst.Count(ctx); n != 450 {
		t.Fatalf("after the interruption the destination has %d records", n)
	}
	sum, err = backend.Migrate(ctx, src, dst, backend.MigrateOptions{After: cursor, Batch: 150, FromVerdicts: srcV, ToVerdicts: dstV})
	if err != nil || sum.Records != 550 || sum.Verdicts != 2 || !sum.Resumed {
		t.Fatalf("resumed copy: %+v %v", sum, err)
	}
	same(t, src, dst)
	if m, d := dst.Embedding(); m != "test/4" || d != 4 {
		t.Errorf("destination embedder %s/%d", m, d)
	}
	// The copy searches as the source does. (Many records share a
	// vector here, so only the text decides the order.)
	q := foley.SearchQuery{Text: "clip number 17", K: 5}
	a, err1 := src.Search(ctx, q)
	b, err2 := dst.Search(ctx, q)
	if err1 != nil || err2 != nil || len(b) != 5 || a[0].Sound.ID != "r0017" || b[0].Sound.ID != "r0017" {
		t.Errorf("search: %v vs %v (%v %v)", librarytest.IDs(a), librarytest.IDs(b), err1, err2)
	}

	// And back into a new embedded library.
	back := filepath.Join(t.TempDir(), "back.db")
	bl, bv := open(t, back), verdicts(t, back)
	sum, err = backend.Migrate(ctx, dst, bl, backend.MigrateOptions{FromVerdicts: dstV, ToVerdicts: bv})
	if err != nil || sum.Records != 1000 || sum.Verdicts != 2 {
		t.Fatalf("copy back: %+v %v", sum, err)
	}
	same(t, src, bl)
	key := verify.CacheKey{Event: "door", ContentSHA256: "ab", Description: "d", Level: foley.LevelListen, Judge: "j"}
	if v, ok, err := bv.GetVerdict(ctx, key); !ok || err != nil || !v.Match {
		t.Errorf("copied verdict: %+v %v %v", v, ok, err)
	}
}

func TestMigrateRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, b := open(t, filepath.Join(dir, "a.db")), open(t, filepath.Join(dir, "b.db"))
	fill(t, a, verdicts(t, filepath.Join(dir, "a.db")), 3)
	other := librarytest.Rec("x", "other")
	other.EmbeddingModel = "clap/8"
	if err := b.Upsert(ctx, []foley.SoundRecord{other}, [][]float32{librarytest.Unit(8, 0)}); err != nil {
		t.Fatal(err)
	}
	if _, err := backend.Migrate(ctx, a, b, backend.MigrateOptions{}); foley.CodeOf(err) != foley.Invalid {
		t.Errorf("other embedder: %v", err)
	}
	if _, err := backend.Migrate(ctx, a, a, backend.MigrateOptions{}); foley.CodeOf(err) != foley.Invalid {
		t.Errorf("same library: %v", err)
	}
	if _, err := backend.Open(ctx, filepath.Join(dir, "missing.db"), backend.Options{Existing: true}); foley.CodeOf(err) != foley.Invalid {
		t.Errorf("missing library: %v", err)
	}
	for _, bad := range []string{"weaviate://localhost/Sounds", "weaviate://localhost:8080/sounds", "weaviate://localhost:8080/", "weaviate://localhost:8080/S?replicas=0", "weaviate://localhost:8080/S?x=1"} {
		if _, err := backend.Open(ctx, bad, backend.Options{}); foley.CodeOf(err) != foley.Invalid {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if _, err := backend.Open(ctx, "weaviate://127.0.0.1:1/Sounds", backend.Options{}); foley.CodeOf(err) != foley.Unavailable {
		t.Errorf("no server: %v", err)
	}
}
