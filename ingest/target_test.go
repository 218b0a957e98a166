package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/embed"
	"github.com/foley-audio/foley/sqlite"
)

var _ Target = (*sqlite.Library)(nil)

// refusing is a library that checks each record on its own, as Weaviate
// does: it stores the records refuse passes and reports the others in a
// *foley.PartialError.
type refusing struct {
	*sqlite.Library
	refuse func(foley.Entry) string // why a record is refused; "" stores it
	puts   int
}

func (r *refusing) Put(ctx context.Context, entries []foley.Entry) error {
	r.puts++
	var keep []foley.Entry
	var pe foley.PartialError
	for i, e := range entries {
		if why := r.refuse(e); why != "" {
			pe.Failed = append(pe.Failed, foley.RecordError{Index: i, ID: e.Record.ID, Reason: why})
			continue
		}
		keep = append(keep, e)
	}
	if err := r.Library.Put(ctx, keep); err != nil {
		return err
	}
	if len(pe.Failed) > 0 {
		pe.Total = len(entries)
		return &pe
	}
	return nil
}

func refuseFile(name string) func(foley.Entry) string {
	return func(e foley.Entry) string {
		if filepath.Base(e.File.Path) == name {
			return "vector dimensions do not match"
		}
		return ""
	}
}

func TestIngestPartialWrite(t *testing.T) {
	ctx := context.Background()
	root := corpus(t)
	lib := &refusing{Library: newLib(t), refuse: refuseFile("r1.wav")}
	emb := embed.NewHash(0)
	var progress []Progress
	sum, err := Run(ctx, lib, emb, root, Options{Progress: func(p Progress) { progress = append(progress, p) }})
	if err != nil {
		t.Fatal(err)
	}
	// The refused record is a failure of its file; the others are stored.
	if sum.Added != 9 || sum.Failed != 1 || sum.Updated+sum.Unchanged+sum.Removed != 0 || len(progress) != 10 {
		t.Fatalf("summary %+v, %d progress reports", sum, len(progress))
	}
	if len(sum.Failures) != 1 || filepath.Base(sum.Failures[0].Path) != "r1.wav" || !strings.Contains(sum.Failures[0].Reason, "vector dimensions do not match") {
		t.Errorf("failures %+v", sum.Failures)
	}
	if fs, _ := lib.Failures(ctx); len(fs) != 1 || filepath.Base(fs[0].Path) != "r1.wav" {
		t.Errorf("recorded failures %+v", fs)
	}
	if n, _ := lib.Count(ctx); n != 9 {
		t.Errorf("count %d, want 9", n)
	}
	// The unusable count is of the stored records: r1 (a verified CC-BY)
	// was never one of them.
	if sum.Unusable != 7 {
		t.Errorf("unusable %d, want 7", sum.Unusable)
	}

	// Accepted the next time: added, and its failure cleared.
	lib.refuse = refuseFile("")
	sum, err = Run(ctx, lib, emb, root, Options{})
	if err != nil || sum.Added != 1 || sum.Unchanged != 9 || sum.Failed != 0 {
		t.Fatalf("second run: %+v %v", sum, err)
	}
	if fs, _ := lib.Failures(ctx); len(fs) != 0 {
		t.Errorf("failure not cleared: %+v", fs)
	}

	// A changed file whose new record is refused keeps its old record and
	// is not counted as updated.
	writeTone(t, filepath.Join(root, "animals", "d.wav"), 999)
	lib.refuse = refuseFile("d.wav")
	sum, err = Run(ctx, lib, emb, root, Options{})
	if err != nil || sum.Updated != 0 || sum.Failed != 1 || sum.Unchanged != 9 {
		t.Fatalf("third run: %+v %v", sum, err)
	}
	files, _ := lib.Files(ctx)
	var id string
	for path, f := range files {
		if filepath.Base(path) == "d.wav" {
			id = f.ID
		}
	}
	if r, err := lib.Get(ctx, id); err != nil || r.Caption != "A dog barks twice" {
		t.Errorf("old record of d.wav: %+v %v", r, err)
	}
}

// failing is a library whose writes fail outright.
type failing struct{ *sqlite.Library }

func (failing) Put(context.Context, []foley.Entry) error {
	return foley.Errorf(foley.Unavailable, "the library is down")
}

func TestIngestStopsOnWriteError(t *testing.T) {
	sum, err := Run(context.Background(), failing{newLib(t)}, embed.NewHash(0), corpus(t), Options{})
	if foley.CodeOf(err) != foley.Unavailable || sum.Added != 0 || sum.Failed != 0 {
		t.Errorf("summary %+v, error %v", sum, err)
	}
	var pe *foley.PartialError
	if errors.As(err, &pe) {
		t.Errorf("a plain error became partial: %v", err)
	}
}

// TestIngestMovedFileKeepsID moves a file whose sidecar gives its id: the
// record follows it rather than being removed with the old path.
func TestIngestMovedFileKeepsID(t *testing.T) {
	ctx := context.Background()
	root := corpus(t)
	l := newLib(t)
	emb := embed.NewHash(0)
	if _, err := Run(ctx, l, emb, root, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "doors"), filepath.Join(root, "doors2")); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(ctx, l, emb, root, Options{})
	if err != nil || sum.Added != 1 || sum.Removed != 0 || sum.Unchanged != 9 {
		t.Fatalf("after the move: %+v %v", sum, err)
	}
	r, err := l.Get(ctx, "door-slam-07")
	if err != nil || !strings.Contains(r.URI, "doors2") {
		t.Errorf("moved record: %+v %v", r, err)
	}
	if n, _ := l.Count(ctx); n != 10 {
		t.Errorf("count %d, want 10", n)
	}
}
