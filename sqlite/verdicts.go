package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"iter"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/verify"
)

// VerdictsPath is where the verdict cache of the library at libraryPath
// lives: beside it, as libraryPath + ".verdicts".
func VerdictsPath(libraryPath string) string { return libraryPath + ".verdicts" }

// Verdicts is the persistent verdict cache, a verify.VerdictCache in its own
// SQLite file (WAL mode, safe for concurrent readers and writers across
// processes). It keeps verdicts apart from the library so that a library
// can be re-indexed, copied or deleted without touching what was paid for,
// and so that verifying a shortlist never creates a library.
type Verdicts struct {
	db   *sql.DB
	path string
}

var _ verify.VerdictStore = (*Verdicts)(nil)

// verdictsSchema is version 1 of the cache's schema. The key's parts are
// kept beside its hash so that the cache can be inspected and pruned by
// judge or event.
const verdictsSchema = `
CREATE TABLE IF NOT EXISTS verdicts (
	key_sha256     TEXT PRIMARY KEY,
	event          TEXT NOT NULL,
	content_sha256 TEXT NOT NULL,
	description    TEXT NOT NULL,
	level          TEXT NOT NULL,
	judge          TEXT NOT NULL,
	verdict        TEXT NOT NULL, -- the verdict as JSON
	created_at     TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS verdicts_judge ON verdicts(judge);
PRAGMA user_version = 1;
`

// OpenVerdicts opens the verdict cache at path, creating it (and its
// directory) when it does not exist.
func OpenVerdicts(ctx context.Context, path string) (*Verdicts, error) {
	if path == "" {
		return nil, foley.Errorf(foley.Invalid, "verdict cache: no path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, foley.Errorf(foley.Invalid, "verdict cache %s: %w", path, err)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, foley.Errorf(foley.Invalid, "verdict cache %s: is a directory, want a file", path)
	}
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "synchronous(NORMAL)", "busy_timeout(30000)"} {
		q.Add("_pragma", p)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, foley.Errorf(foley.Internal, "verdict cache %s: %w", path, err)
	}
	db.SetMaxIdleConns(maxIdleConns)
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		db.Close()
		return nil, foley.Errorf(foley.Invalid, "verdict cache %s: not a readable SQLite file: %w", path, err)
	}
	if version > 1 {
		db.Close()
		return nil, foley.Errorf(foley.Invalid, "verdict cache %s: schema version %d is newer than this foley knows (1); upgrade foley or delete the file", path, version)
	}
	if version < 1 {
		if _, err := db.ExecContext(ctx, verdictsSchema); err != nil {
			db.Close()
			return nil, foley.Errorf(foley.Invalid, "verdict cache %s: creating the schema: %w", path, err)
		}
	}
	return &Verdicts{db: db, path: path}, nil
}

// Path is the cache file.
func (v *Verdicts) Path() string { return v.path }

// Close closes the cache.
func (v *Verdicts) Close() error { return v.db.Close() }

// GetVerdict implements verify.VerdictCache.
func (v *Verdicts) GetVerdict(ctx context.Context, key verify.CacheKey) (foley.Verdict, bool, error) {
	var raw string
	err := v.db.QueryRowContext(ctx, "SELECT verdict FROM verdicts WHERE key_sha256 = ?", key.Hash()).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return foley.Verdict{}, false, nil
	}
	if err != nil {
		return foley.Verdict{}, false, err
	}
	var out foley.Verdict
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		// A row that no longer decodes is a miss; the next verdict
		// replaces it.
		return foley.Verdict{}, false, nil
	}
	return out, true, nil
}

// PutVerdict implements verify.VerdictCache.
func (v *Verdicts) PutVerdict(ctx context.Context, key verify.CacheKey, verdict foley.Verdict) error {
	return v.PutVerdicts(ctx, []verify.CachedVerdict{{Key: key, Verdict: verdict}})
}

// PutVerdicts implements verify.VerdictStore: all in one transaction.
func (v *Verdicts) PutVerdicts(ctx context.Context, vs []verify.CachedVerdict) error {
	tx, err := v.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := time.Now().UTC().Format(time.RFC3339)
	for _, cv := range vs {
		verdict, key := cv.Verdict, cv.Key
		verdict.Cached = false
		raw, err := json.Marshal(verdict)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO verdicts(key_sha256, event, content_sha256, description, level, judge, verdict, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(key_sha256) DO UPDATE SET verdict = excluded.verdict, created_at = excluded.created_at`,
			key.Hash(), key.Event, key.ContentSHA256, key.Description, key.Level.String(), key.Judge, string(raw), now)
		if err != nil {
			return err
		}
	}
	return tx.Commit()
}

// AllVerdicts implements verify.VerdictStore, in key order. Rows that no
// longer decode are skipped, as GetVerdict treats them as misses.
func (v *Verdicts) AllVerdicts(ctx context.Context) iter.Seq2[verify.CachedVerdict, error] {
	return func(yield func(verify.CachedVerdict, error) bool) {
		rows, err := v.db.QueryContext(ctx, "SELECT event, content_sha256, description, level, judge, verdict FROM verdicts ORDER BY key_sha256")
		if err != nil {
			yield(verify.CachedVerdict{}, err)
			return
		}
		defer rows.Close()
		for rows.Next() {
			var cv verify.CachedVerdict
			var level, raw string
			k := &cv.Key
			if err := rows.Scan(&k.Event, &k.ContentSHA256, &k.Description, &level, &k.Judge, &raw); err != nil {
				yield(cv, err)
				return
			}
			l, err := foley.ParseVerifyLevel(level)
			if err != nil || json.Unmarshal([]byte(raw), &cv.Verdict) != nil {
				continue
			}
			k.Level = l
			if !yield(cv, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(verify.CachedVerdict{}, err)
		}
	}
}

// Count returns the number of cached verdicts.
func (v *Verdicts) Count(ctx context.Context) (int, error) {
	var n int
	err := v.db.QueryRowContext(ctx, "SELECT count(*) FROM verdicts").Scan(&n)
	return n, err
}

// Clear deletes every cached verdict and returns how many there were.
func (v *Verdicts) Clear(ctx context.Context) (int, error) {
	res, err := v.db.ExecContext(ctx, "DELETE FROM verdicts")
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
