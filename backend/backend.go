// Package backend opens a foley library by its location, whatever the
// backend: a file path is the embedded SQLite library, a weaviate:// URL a
// class on a Weaviate server. It is the one place that knows both.
package backend

import (
	"context"
	"errors"
	"os"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/sqlite"
	"github.com/foley-audio/foley/verify"
	"github.com/foley-audio/foley/weaviate"
)

// Options tune Open.
type Options struct {
	// Index is the embedded library's vector index: "exact", "hnsw", or
	// "" (HNSW from sqlite.DefaultHNSWThreshold records). Weaviate keeps
	// its own HNSW index and ignores it.
	Index string
	// Existing says the library must already exist: a missing file is an
	// Invalid error rather than a new, empty library. (A Weaviate class is
	// created on first use either way; an empty one searches empty.)
	Existing bool
}

// IsRemote reports whether location names a library on a server rather
// than a file.
func IsRemote(location string) bool { return weaviate.IsLocation(location) }

// Open opens the library at location.
func Open(ctx context.Context, location string, o Options) (foley.Store, error) {
	if location == "" {
		return nil, foley.Errorf(foley.Invalid, "no library location given")
	}
	if IsRemote(location) {
		return weaviate.Open(ctx, location, weaviate.Options{})
	}
	if _, err := os.Stat(location); o.Existing && errors.Is(err, os.ErrNotExist) {
		return nil, foley.Errorf(foley.Invalid, "there is no library at %s; index a folder into it first: foley index DIR --library %s", location, location)
	}
	return sqlite.Open(ctx, location, sqlite.Options{Index: o.Index})
}

// OpenVerdicts opens the verdict cache that goes with the library at
// location: the file beside an embedded library (PATH.verdicts, created
// on first use, so that verifying never creates a library), or the
// Verdicts class beside a Weaviate library's class.
func OpenVerdicts(ctx context.Context, location string) (verify.VerdictStore, error) {
	if IsRemote(location) {
		l, err := weaviate.Open(ctx, location, weaviate.Options{})
		if err != nil {
			return nil, err
		}
		return l.Verdicts(), nil
	}
	return sqlite.OpenVerdicts(ctx, sqlite.VerdictsPath(location))
}
