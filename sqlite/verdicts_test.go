package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/sqlite"
	"github.com/foley-audio/foley/verify"
)

func TestVerdictsPersist(t *testing.T) {
	ctx := context.Background()
	path := sqlite.VerdictsPath(filepath.Join(t.TempDir(), "sub", "library.db"))
	c, err := sqlite.OpenVerdicts(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	key := verify.CacheKey{Event: "door slam", ContentSHA256: "ab", Description: "d", Level: foley.LevelListen, Judge: "audiolm|m|prompt=v1|tau=0.5"}
	if _, ok, err := c.GetVerdict(ctx, key); ok || err != nil {
		t.Fatalf("empty cache: ok=%v err=%v", ok, err)
	}
	want := foley.Verdict{Match: true, Confidence: 0.91, Reason: "P(yes)=0.91", Level: foley.LevelListen, Judge: "audiolm:m", Cached: true}
	if err := c.PutVerdict(ctx, key, want); err != nil {
		t.Fatal(err)
	}
	// (Concurrent use is in the library contract, internal/librarytest.)
	for i := range 16 {
		k := key
		k.ContentSHA256 = string(rune('c' + i))
		if err := c.PutVerdict(ctx, k, want); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()

	c, err = sqlite.OpenVerdicts(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, ok, err := c.GetVerdict(ctx, key)
	want.Cached = false // stored as given; the cache wrapper marks reads
	if err != nil || !ok || got != want {
		t.Fatalf("after reopening: %+v ok=%v err=%v, want %+v", got, ok, err, want)
	}
	if n, _ := c.Count(ctx); n != 17 {
		t.Errorf("count %d, want 17", n)
	}
	if n, err := c.Clear(ctx); n != 17 || err != nil {
		t.Errorf("clear: %d %v", n, err)
	}
}

func TestVerdictsBadFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := sqlite.OpenVerdicts(ctx, dir); foley.CodeOf(err) != foley.Invalid {
		t.Errorf("a directory: %v", err)
	}
	junk := filepath.Join(dir, "junk.verdicts")
	if err := os.WriteFile(junk, []byte("this is not a database, it is a text file long enough to have a header........"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlite.OpenVerdicts(ctx, junk); foley.CodeOf(err) != foley.Invalid {
		t.Errorf("a text file: %v", err)
	}
	if b, _ := os.ReadFile(junk); len(b) == 0 {
		t.Error("the text file was emptied")
	}
}
