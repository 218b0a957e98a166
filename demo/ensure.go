package demo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/embed"
	"github.com/foley-audio/foley/sqlite"
)

// DemoVersion names the demo's recipes and records. Change it whenever a
// sound, a record or the layout changes, so that built demo libraries are
// built again.
const DemoVersion = "foley-demo-1"

// The layout of a demo directory.
const (
	LibraryFile = "library.db" // the library
	ClipsDir    = "clips"      // the sound files
	VersionFile = "VERSION"    // the stamp, written last
)

// stamp is what VersionFile holds when the directory is complete and
// current: the demo version, the clip count, the embedder and the library
// schema.
func stamp() string {
	return fmt.Sprintf("%s\nclips %d\nembedder %s\nschema %d\n", DemoVersion, len(catalogue), embed.NewHash(0).Model(), sqlite.SchemaVersion)
}

// DefaultDir is where foley keeps the demo library: foley/demo in the
// user's cache directory (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on
// Linux, ~/Library/Caches on macOS, %LocalAppData% on Windows).
func DefaultDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", foley.Errorf(foley.Invalid, "demo library: no cache directory: %w", err)
	}
	return filepath.Join(d, "foley", "demo"), nil
}

// Ensure makes sure dir holds the current demo library and returns the path
// of its library file. When dir is complete and current it only checks
// that, and changes nothing. Otherwise it builds the whole directory
// (clips/*.wav, library.db and VERSION) in a temporary directory beside it
// and renames that into place, so that no reader ever sees a half-built
// library; an outdated directory is replaced whole. Processes may call it at
// once: each builds, the first rename wins and the others use its result.
//
// dir belongs to the demo. Ensure refuses to replace a directory holding
// files that are not the demo's.
func Ensure(ctx context.Context, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", foley.Errorf(foley.Invalid, "demo library %s: %w", dir, err)
	}
	libPath := filepath.Join(abs, LibraryFile)
	if current(abs) {
		return libPath, nil
	}
	if err := checkOwned(abs); err != nil {
		return "", err
	}
	parent, base := filepath.Split(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", foley.Errorf(foley.Invalid, "demo library: %w", err)
	}
	removeStale(parent, base)
	tmp, err := os.MkdirTemp(parent, "."+base+".build-")
	if err != nil {
		return "", foley.Errorf(foley.Invalid, "demo library: %w", err)
	}
	defer os.RemoveAll(tmp) // nothing left once renamed
	if err := build(ctx, tmp, abs); err != nil {
		return "", err
	}
	for range 3 {
		if err = os.Rename(tmp, abs); err == nil || current(abs) {
			return libPath, nil // ours, or another process's that finished first
		}
		// abs is there, outdated: move it aside, then try again.
		if err := checkOwned(abs); err != nil {
			return "", err
		}
		old := filepath.Join(parent, fmt.Sprintf(".%s.old-%d-%d", base, os.Getpid(), time.Now().UnixNano()))
		if err := os.Rename(abs, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", foley.Errorf(foley.Invalid, "demo library: replacing %s: %w", abs, err)
		}
		defer os.RemoveAll(old)
	}
	return "", foley.Errorf(foley.Internal, "demo library: could not move the new library to %s: %w", abs, err)
}

// current reports whether dir holds the complete, current demo: the stamp,
// the library and every clip.
func current(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, VersionFile))
	if err != nil || string(b) != stamp() {
		return false
	}
	if st, err := os.Stat(filepath.Join(dir, LibraryFile)); err != nil || !st.Mode().IsRegular() {
		return false
	}
	for _, d := range catalogue {
		if st, err := os.Stat(filepath.Join(dir, ClipsDir, d.id+".wav")); err != nil || st.Size() <= 44 {
			return false
		}
	}
	return true
}

// checkOwned fails when dir holds anything the demo would not have made.
func checkOwned(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // missing, or unreadable: the rename will tell
	}
	for _, e := range entries {
		n := e.Name()
		if n != VersionFile && n != ClipsDir && !strings.HasPrefix(n, LibraryFile) {
			return foley.Errorf(foley.Invalid, "demo library: %s holds %s, which the demo did not make; not replacing it (remove the directory, or choose another)", dir, n)
		}
	}
	return nil
}

// removeStale removes the build and old directories of processes that died
// more than an hour ago.
func removeStale(parent, base string) {
	for _, pattern := range []string{"." + base + ".build-*", "." + base + ".old-*"} {
		matches, _ := filepath.Glob(filepath.Join(parent, pattern))
		for _, m := range matches {
			if st, err := os.Stat(m); err == nil && time.Since(st.ModTime()) > time.Hour {
				os.RemoveAll(m)
			}
		}
	}
}

// build writes the demo into tmp, its records pointing at final, where tmp
// will be renamed to.
func build(ctx context.Context, tmp, final string) error {
	clips := Clips()
	if err := os.Mkdir(filepath.Join(tmp, ClipsDir), 0o755); err != nil {
		return foley.Errorf(foley.Invalid, "demo library: %w", err)
	}
	// Render in parallel: the clips are independent.
	errs := make([]error, len(clips))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				errs[i] = writeClip(&clips[i], tmp, final)
			}
		})
	}
	for i := range clips {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := errors.Join(errs...); err != nil {
		return foley.Errorf(foley.Internal, "demo library: %w", err)
	}

	lib, err := sqlite.Open(ctx, filepath.Join(tmp, LibraryFile), sqlite.Options{})
	if err != nil {
		return err
	}
	emb := embed.NewHash(0)
	entries := make([]sqlite.Entry, len(clips))
	for i, c := range clips {
		rec := c.Record
		vs, err := emb.EmbedText(ctx, []string{embed.RecordText(rec)})
		if err != nil {
			lib.Close()
			return err
		}
		rec.EmbeddingModel = emb.Model()
		st, err := os.Stat(filepath.Join(tmp, ClipsDir, c.FileName()))
		if err != nil {
			lib.Close()
			return foley.Errorf(foley.Internal, "demo library: %w", err)
		}
		entries[i] = sqlite.Entry{Record: rec, Vector: vs[0], File: &sqlite.FileState{
			ID: rec.ID, Path: rec.URI, Size: st.Size(), MtimeNS: st.ModTime().UnixNano(),
			SHA256: rec.ContentSHA256, MetaSHA256: DemoVersion,
		}}
	}
	if err := lib.Put(ctx, entries); err != nil {
		lib.Close()
		return err
	}
	if err := lib.Close(); err != nil {
		return foley.Errorf(foley.Internal, "demo library: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, VersionFile), []byte(stamp()), 0o644); err != nil {
		return foley.Errorf(foley.Invalid, "demo library: %w", err)
	}
	return nil
}

// writeClip renders c into tmp/clips and completes its record: the file's
// final path and hash.
func writeClip(c *Clip, tmp, final string) error {
	b := c.WAV()
	if err := os.WriteFile(filepath.Join(tmp, ClipsDir, c.FileName()), b, 0o644); err != nil {
		return err
	}
	sum := sha256.Sum256(b)
	c.Record.ContentSHA256 = hex.EncodeToString(sum[:])
	c.Record.URI = filepath.Join(final, ClipsDir, c.FileName())
	return nil
}
