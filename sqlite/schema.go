package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations bring a library file from one schema version to the next;
// migrations[i] takes version i to i+1. PRAGMA user_version records where a
// file stands. A migration runs in the same transaction as its version bump,
// so a crash leaves the file at the old version or the new one.
var migrations = []string{
	// 1: records, full text, vectors, ingest bookkeeping.
	`
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT;
INSERT INTO meta(key, value) VALUES ('seq', '0');

-- key is the stable integer the vector index uses; AUTOINCREMENT keeps it
-- from being reused after a delete.
CREATE TABLE records (
	key            INTEGER PRIMARY KEY AUTOINCREMENT,
	id             TEXT NOT NULL UNIQUE,
	record         TEXT NOT NULL,            -- the SoundRecord as JSON
	license_id     TEXT NOT NULL,
	commercial_ok  INTEGER NOT NULL,
	duration_s     REAL NOT NULL,
	ucs_category   TEXT NOT NULL,
	format         TEXT NOT NULL,
	path           TEXT,                      -- the file on disk, for ingest
	size           INTEGER,
	mtime_ns       INTEGER,
	content_sha256 TEXT,
	meta_sha256    TEXT,                      -- of the sidecar/manifest metadata it was built from
	seq            INTEGER NOT NULL           -- the change number that last wrote it
);
CREATE INDEX records_path ON records(path);
CREATE INDEX records_seq ON records(seq);

CREATE VIRTUAL TABLE records_fts USING fts5(
	caption, tags, filename, category,
	tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TABLE vectors (
	key   INTEGER PRIMARY KEY REFERENCES records(key) ON DELETE CASCADE,
	model TEXT NOT NULL,
	dim   INTEGER NOT NULL,
	vec   BLOB NOT NULL                      -- dim float32, little-endian
) STRICT;

-- Deleted keys, so that another process's in-memory index can catch up.
CREATE TABLE deleted (
	key INTEGER PRIMARY KEY,
	seq INTEGER NOT NULL
) STRICT;
CREATE INDEX deleted_seq ON deleted(seq);

CREATE TABLE ingest_failures (
	path   TEXT PRIMARY KEY,
	reason TEXT NOT NULL,
	at     INTEGER NOT NULL
) STRICT;
`,
	// 2: FTS5's rank is BM25 with the column weights search uses, so that
	// ORDER BY rank takes FTS5's own path instead of scoring every match
	// through a join.
	`INSERT INTO records_fts(records_fts, rank) VALUES ('rank', 'bm25(1.0, 0.75, 0.5, 0.5)');`,
}

// SchemaVersion is the version this build writes.
var SchemaVersion = len(migrations)

// migrate brings db to SchemaVersion. A file from a newer foley is an error.
func migrate(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	for {
		var v int
		if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
			return err
		}
		switch {
		case v == SchemaVersion:
			return nil
		case v > SchemaVersion:
			return fmt.Errorf("the library has schema version %d, newer than this foley reads (%d); upgrade foley", v, SchemaVersion)
		}
		if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
			return err
		}
		// Another process may have migrated while we waited for the lock.
		var now int
		if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&now); err != nil {
			conn.ExecContext(ctx, "ROLLBACK")
			return err
		}
		if now != v {
			conn.ExecContext(ctx, "ROLLBACK")
			continue
		}
		if _, err := conn.ExecContext(ctx, migrations[v]); err != nil {
			conn.ExecContext(ctx, "ROLLBACK")
			return fmt.Errorf("migrating the library to schema version %d: %w", v+1, err)
		}
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
			conn.ExecContext(ctx, "ROLLBACK")
			return err
		}
		if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
			return err
		}
	}
}
