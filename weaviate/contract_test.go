package weaviate_test

import (
	"context"
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/librarytest"
	"github.com/foley-audio/foley/internal/weaviatetest"
	"github.com/foley-audio/foley/verify"
	"github.com/foley-audio/foley/weaviate"
)

func TestMain(m *testing.M) { weaviatetest.Main(m) }

// newClass is a class name no other test uses.
func newClass(prefix string) string { return weaviatetest.Class(prefix) }

func open(t *testing.T, location string) *weaviate.Library {
	t.Helper()
	l, err := weaviate.Open(context.Background(), location, weaviate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// TestContract runs the library contract that the embedded backend runs
// too, against a real Weaviate server.
func TestContract(t *testing.T) {
	node := weaviatetest.Shared(t)
	librarytest.Run(t, librarytest.Backend{
		New:    func(t *testing.T) foley.Store { return open(t, node.Location(newClass("Contract"))) },
		Reopen: func(t *testing.T, s foley.Store) foley.Store { return open(t, s.Location()) },
		Verdicts: func(t *testing.T, s foley.Store) verify.VerdictStore {
			return s.(*weaviate.Library).Verdicts()
		},
	})
}
