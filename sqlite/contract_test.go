package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/librarytest"
	"github.com/foley-audio/foley/sqlite"
	"github.com/foley-audio/foley/verify"
)

// TestContract runs the library contract that the Weaviate backend runs
// too.
func TestContract(t *testing.T) {
	open := func(t *testing.T, path string) foley.Store {
		l, err := sqlite.Open(context.Background(), path, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	librarytest.Run(t, librarytest.Backend{
		New:    func(t *testing.T) foley.Store { return open(t, filepath.Join(t.TempDir(), "library.db")) },
		Reopen: func(t *testing.T, s foley.Store) foley.Store { return open(t, s.Location()) },
		Verdicts: func(t *testing.T, s foley.Store) verify.VerdictStore {
			v, err := sqlite.OpenVerdicts(context.Background(), sqlite.VerdictsPath(s.Location()))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { v.Close() })
			return v
		},
	})
}
