// Package sqlite is foley's embedded sound library: one SQLite file (through
// the pure-Go modernc.org/sqlite driver, no cgo) in WAL mode, holding the
// records, a BM25 full-text index (FTS5) over captions, tags, file names and
// categories, and the records' embeddings. Searches fuse the full-text list
// and the vector list by reciprocal rank.
//
// Many readers may search while one writer ingests, from this process or
// others: each search first catches up with the changes other connections
// committed.
package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/license"
	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// RRFK is the k of reciprocal rank fusion: a result's fused score is the sum
// of 1/(RRFK + rank) over the lists it appears in.
const RRFK = foley.RRFK

// Library is an embedded sound library in one SQLite file.
type Library struct {
	db   *sql.DB
	path string

	mu      sync.Mutex // guards the fields below
	model   string     // the embedding model of the stored vectors; "" before the first
	dim     int
	vectors *vectorState // nil until the first vector search

	cacheMu  sync.Mutex
	recCache map[int64]cachedRecord // decoded records, by key (see records)
	stmts    map[string]*sql.Stmt   // prepared reads, by SQL (see query)
}

// Options tune Open.
type Options struct {
	// Index chooses the vector index: "exact", "hnsw" or "" (auto: exact
	// below HNSWThreshold vectors, HNSW from there).
	Index string
	// HNSWThreshold is where auto switches to HNSW (default 100000):
	// from that size, ingest saves an HNSW graph beside the library and
	// searches use it.
	HNSWThreshold int
}

// maxIdleConns is how many idle database connections a library keeps.
const maxIdleConns = 32

// Open opens the library file at path, creating it (and its directory) when
// it does not exist, and migrating an older schema.
func Open(ctx context.Context, path string, opts Options) (*Library, error) {
	if path == "" {
		return nil, foley.Errorf(foley.Invalid, "library: no path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, foley.Errorf(foley.Invalid, "library %s: %w", path, err)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, foley.Errorf(foley.Invalid, "library %s: is a directory, want a file", path)
	}
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "synchronous(NORMAL)", "foreign_keys(1)", "busy_timeout(30000)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, foley.Errorf(foley.Internal, "library %s: %w", path, err)
	}
	// Keep connections open for concurrent readers: database/sql keeps
	// two idle by default, and under a server's load every other read
	// then opened a connection (running the pragmas) and prepared its
	// statements again.
	db.SetMaxIdleConns(maxIdleConns)
	l := &Library{db: db, path: path}
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, foley.Errorf(foley.Invalid, "library %s: %w", path, err)
	}
	if err := l.loadMeta(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if opts.Index != "" && opts.Index != "exact" && opts.Index != "hnsw" {
		db.Close()
		return nil, foley.Errorf(foley.Invalid, "library: index %q (valid: exact, hnsw)", opts.Index)
	}
	l.vectors = newVectorState(opts, path)
	return l, nil
}

// Path is the library file.
func (l *Library) Path() string { return l.path }

// Close closes the library.
func (l *Library) Close() error {
	l.cacheMu.Lock()
	for _, st := range l.stmts {
		st.Close()
	}
	l.stmts = nil
	l.cacheMu.Unlock()
	return l.db.Close()
}

func (l *Library) loadMeta(ctx context.Context) error {
	rows, err := l.db.QueryContext(ctx, "SELECT key, value FROM meta WHERE key IN ('embedding_model', 'embedding_dim')")
	if err != nil {
		return foley.Errorf(foley.Internal, "library %s: %w", l.path, err)
	}
	defer rows.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		switch k {
		case "embedding_model":
			l.model = v
		case "embedding_dim":
			l.dim, _ = strconv.Atoi(v)
		}
	}
	return rows.Err()
}

// Embedding returns the model and dimension of the library's vectors; ""
// and 0 before any vector is stored.
func (l *Library) Embedding() (model string, dim int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.model, l.dim
}

// FileState is what ingest remembers of a file to notice changes.
type FileState = foley.FileState

// Entry is a record to store, with its embedding and, for ingested files,
// the file's state.
type Entry = foley.Entry

// Upsert implements foley.Library.
func (l *Library) Upsert(ctx context.Context, recs []foley.SoundRecord, vectors [][]float32) error {
	entries, err := foley.Entries(recs, vectors)
	if err != nil {
		return err
	}
	return l.Put(ctx, entries)
}

// Put stores entries in one transaction: all or none.
func (l *Library) Put(ctx context.Context, entries []Entry) error {
	for i := range entries {
		if err := checkEntry(&entries[i]); err != nil {
			return err
		}
	}
	var model string
	var dim int
	err := l.change(ctx, func(tx *sql.Tx, seq int64) error {
		m, d, err := l.embeddingInTx(ctx, tx)
		if err != nil {
			return err
		}
		model, dim, err = l.putTx(ctx, tx, seq, entries, m, d)
		return err
	})
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.model, l.dim = model, dim
	l.mu.Unlock()
	return nil
}

// putTx writes entries in a transaction. The library's embedding model is
// model (dim), or, when model is "", becomes the first vector's; it returns
// the model after the writes.
func (l *Library) putTx(ctx context.Context, tx *sql.Tx, seq int64, entries []Entry, model string, dim int) (string, int, error) {
	stmts, err := preparePut(ctx, tx)
	if err != nil {
		return "", 0, l.dbError(err)
	}
	for _, e := range entries {
		if e.Vector != nil {
			switch {
			case model == "":
				model, dim = e.Record.EmbeddingModel, len(e.Vector)
				if _, err := tx.ExecContext(ctx, "INSERT OR REPLACE INTO meta(key, value) VALUES ('embedding_model', ?), ('embedding_dim', ?)", model, strconv.Itoa(dim)); err != nil {
					return "", 0, l.dbError(err)
				}
			case e.Record.EmbeddingModel != model || len(e.Vector) != dim:
				return "", 0, foley.Errorf(foley.Invalid, "library %s holds vectors of %s (%d dimensions); record %q has one of %s (%d): %s",
					l.path, model, dim, e.Record.ID, e.Record.EmbeddingModel, len(e.Vector), foley.ReindexHint)
			}
		}
		if err := stmts.put(ctx, e, seq); err != nil {
			return "", 0, l.dbError(fmt.Errorf("record %q: %w", e.Record.ID, err))
		}
	}
	if err := stmts.flushFTS(ctx); err != nil {
		return "", 0, l.dbError(fmt.Errorf("full-text index: %w", err))
	}
	return model, dim, nil
}

// change runs fn in a write transaction under a new change number, and
// commits when fn succeeds.
func (l *Library) change(ctx context.Context, fn func(tx *sql.Tx, seq int64) error) error {
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return l.dbError(err)
	}
	defer tx.Rollback()
	seq, err := nextSeq(ctx, tx)
	if err != nil {
		return l.dbError(err)
	}
	if err := fn(tx, seq); err != nil {
		return err
	}
	return l.dbError(tx.Commit())
}

func checkEntry(e *Entry) error {
	return foley.CheckUpsert(&e.Record, e.Vector)
}

func (l *Library) embeddingInTx(ctx context.Context, tx *sql.Tx) (string, int, error) {
	var model, dim string
	err := tx.QueryRowContext(ctx, "SELECT (SELECT value FROM meta WHERE key = 'embedding_model'), (SELECT value FROM meta WHERE key = 'embedding_dim')").Scan(&nullString{&model}, &nullString{&dim})
	if err != nil {
		return "", 0, l.dbError(err)
	}
	d, _ := strconv.Atoi(dim)
	return model, d, nil
}

// nullString scans a NULL as "".
type nullString struct{ s *string }

func (n *nullString) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		*n.s = ""
	case string:
		*n.s = x
	case []byte:
		*n.s = string(x)
	default:
		*n.s = fmt.Sprint(x)
	}
	return nil
}

func nextSeq(ctx context.Context, tx *sql.Tx) (int64, error) {
	var seq int64
	err := tx.QueryRowContext(ctx, "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'seq' RETURNING CAST(value AS INTEGER)").Scan(&seq)
	return seq, err
}

// putStmts are the statements of Put, prepared once per transaction.
type putStmts struct {
	record, ftsIns, vecDel, vecPut, undelete *sql.Stmt
	fts                                      []ftsRow // written last, together
}

type ftsRow struct {
	key int64
	r   foley.SoundRecord
}

// flushFTS writes the full-text rows of the transaction. They go after the
// other writes, one after another: FTS5 flushes its pending index to disk
// whenever another statement opens a savepoint, so interleaving them with
// the record writes made every record a flush.
func (p *putStmts) flushFTS(ctx context.Context) error {
	for _, f := range p.fts {
		caption, tags, filename, category := ftsFields(f.r)
		if _, err := p.ftsIns.ExecContext(ctx, f.key, caption, tags, filename, category); err != nil {
			return err
		}
	}
	p.fts = p.fts[:0]
	return nil
}

func preparePut(ctx context.Context, tx *sql.Tx) (*putStmts, error) {
	var p putStmts
	for _, s := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&p.record, `
INSERT INTO records(id, record, license_id, commercial_ok, duration_s, ucs_category, format, path, size, mtime_ns, content_sha256, meta_sha256, seq)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT(id) DO UPDATE SET record = excluded.record, license_id = excluded.license_id,
	commercial_ok = excluded.commercial_ok, duration_s = excluded.duration_s, ucs_category = excluded.ucs_category,
	format = excluded.format, path = coalesce(excluded.path, records.path), size = coalesce(excluded.size, records.size),
	mtime_ns = coalesce(excluded.mtime_ns, records.mtime_ns), content_sha256 = excluded.content_sha256,
	meta_sha256 = coalesce(excluded.meta_sha256, records.meta_sha256), seq = excluded.seq
RETURNING key`},
		{&p.ftsIns, "INSERT OR REPLACE INTO records_fts(rowid, caption, tags, filename, category) VALUES (?, ?, ?, ?, ?)"},
		{&p.vecDel, "DELETE FROM vectors WHERE key = ?"},
		{&p.vecPut, "INSERT OR REPLACE INTO vectors(key, model, dim, vec) VALUES (?, ?, ?, ?)"},
		{&p.undelete, "DELETE FROM deleted WHERE key = ?"},
	} {
		st, err := tx.PrepareContext(ctx, s.sql)
		if err != nil {
			return nil, err
		}
		*s.dst = st
	}
	return &p, nil
}

func (p *putStmts) put(ctx context.Context, e Entry, seq int64) error {
	r := e.Record
	r.License = license.Normalize(r.License)
	doc, err := json.Marshal(r)
	if err != nil {
		return err
	}
	var path, size, mtime, metaSHA any
	sha := any(nil)
	if r.ContentSHA256 != "" {
		sha = r.ContentSHA256
	}
	if e.File != nil {
		path, size, mtime, metaSHA = e.File.Path, e.File.Size, e.File.MtimeNS, e.File.MetaSHA256
		if e.File.SHA256 != "" {
			sha = e.File.SHA256
		}
	}
	var key int64
	err = p.record.QueryRowContext(ctx, r.ID, string(doc), r.License.LicenseID, r.License.CommercialOK && r.License.RightsVerified,
		r.DurationS, r.UCSCategory, r.Format, path, size, mtime, sha, metaSHA, seq).Scan(&key)
	if err != nil {
		return err
	}
	p.fts = append(p.fts, ftsRow{key, r})
	if e.Vector == nil {
		_, err = p.vecDel.ExecContext(ctx, key)
	} else {
		_, err = p.vecPut.ExecContext(ctx, key, r.EmbeddingModel, len(e.Vector), encodeVector(e.Vector))
	}
	if err != nil {
		return err
	}
	_, err = p.undelete.ExecContext(ctx, key)
	return err
}

// ftsFields is what the full-text index holds of a record.
func ftsFields(r foley.SoundRecord) (caption, tags, filename, category string) {
	return foley.SearchFields(r)
}

// SplitWords splits a file stem or identifier into words; see
// foley.SplitWords.
func SplitWords(s string) []string { return foley.SplitWords(s) }

func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVector(b []byte, dim int) ([]float32, error) {
	if len(b) != 4*dim {
		return nil, fmt.Errorf("a stored vector has %d bytes, want %d", len(b), 4*dim)
	}
	v := make([]float32, dim)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// Get implements foley.Library.
func (l *Library) Get(ctx context.Context, id string) (foley.SoundRecord, error) {
	var doc string
	err := l.db.QueryRowContext(ctx, "SELECT record FROM records WHERE id = ?", id).Scan(&doc)
	if errors.Is(err, sql.ErrNoRows) {
		return foley.SoundRecord{}, foley.Errorf(foley.NotFound, "no sound with id %q in %s", id, l.path)
	}
	if err != nil {
		return foley.SoundRecord{}, l.dbError(err)
	}
	return decodeRecord(doc)
}

func decodeRecord(doc string) (foley.SoundRecord, error) {
	var r foley.SoundRecord
	if err := json.Unmarshal([]byte(doc), &r); err != nil {
		return r, foley.Errorf(foley.Internal, "library: a stored record does not decode: %w", err)
	}
	return r, nil
}

// Delete implements foley.Library.
func (l *Library) Delete(ctx context.Context, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	return l.change(ctx, func(tx *sql.Tx, seq int64) error {
		for _, id := range ids {
			var key int64
			err := tx.QueryRowContext(ctx, "DELETE FROM records WHERE id = ? RETURNING key", id).Scan(&key)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return l.dbError(err)
			}
			if _, err := tx.ExecContext(ctx, "DELETE FROM records_fts WHERE rowid = ?", key); err != nil {
				return l.dbError(err)
			}
			if _, err := tx.ExecContext(ctx, "INSERT OR REPLACE INTO deleted(key, seq) VALUES (?, ?)", key, seq); err != nil {
				return l.dbError(err)
			}
		}
		return nil
	})
}

// Count implements foley.Library.
func (l *Library) Count(ctx context.Context) (int, error) {
	var n int
	err := l.db.QueryRowContext(ctx, "SELECT count(*) FROM records").Scan(&n)
	return n, l.dbError(err)
}

// All implements foley.Library.
func (l *Library) All(ctx context.Context) iter.Seq2[foley.SoundRecord, error] {
	return func(yield func(foley.SoundRecord, error) bool) {
		rows, err := l.db.QueryContext(ctx, "SELECT record FROM records ORDER BY id")
		if err != nil {
			yield(foley.SoundRecord{}, l.dbError(err))
			return
		}
		defer rows.Close()
		for rows.Next() {
			var doc string
			if err := rows.Scan(&doc); err != nil {
				yield(foley.SoundRecord{}, l.dbError(err))
				return
			}
			r, err := decodeRecord(doc)
			if !yield(r, err) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(foley.SoundRecord{}, l.dbError(err))
		}
	}
}

// Files returns the state of every ingested file, by path.
func (l *Library) Files(ctx context.Context) (map[string]FileState, error) {
	rows, err := l.db.QueryContext(ctx, "SELECT id, path, coalesce(size, -1), coalesce(mtime_ns, 0), coalesce(content_sha256, ''), coalesce(meta_sha256, '') FROM records WHERE path IS NOT NULL")
	if err != nil {
		return nil, l.dbError(err)
	}
	defer rows.Close()
	out := map[string]FileState{}
	for rows.Next() {
		var f FileState
		if err := rows.Scan(&f.ID, &f.Path, &f.Size, &f.MtimeNS, &f.SHA256, &f.MetaSHA256); err != nil {
			return nil, l.dbError(err)
		}
		out[f.Path] = f
	}
	return out, l.dbError(rows.Err())
}

// Failure is a file ingest could not read, and why.
type Failure = foley.Failure

// SetFailure records (reason != "") or clears (reason == "") the failure of
// a file.
func (l *Library) SetFailure(ctx context.Context, path, reason string) error {
	var err error
	if reason == "" {
		_, err = l.db.ExecContext(ctx, "DELETE FROM ingest_failures WHERE path = ?", path)
	} else {
		_, err = l.db.ExecContext(ctx, "INSERT OR REPLACE INTO ingest_failures(path, reason, at) VALUES (?, ?, ?)", path, reason, time.Now().Unix())
	}
	return l.dbError(err)
}

// Failures lists the files ingest could not read.
func (l *Library) Failures(ctx context.Context) ([]Failure, error) {
	rows, err := l.db.QueryContext(ctx, "SELECT path, reason, at FROM ingest_failures ORDER BY path")
	if err != nil {
		return nil, l.dbError(err)
	}
	defer rows.Close()
	var out []Failure
	for rows.Next() {
		var f Failure
		var at int64
		if err := rows.Scan(&f.Path, &f.Reason, &at); err != nil {
			return nil, l.dbError(err)
		}
		f.At = time.Unix(at, 0).UTC()
		out = append(out, f)
	}
	return out, l.dbError(rows.Err())
}

// Stats counts a library's records.
type Stats = foley.Stats

// Stats returns counts by licence, format and embedder.
func (l *Library) Stats(ctx context.Context) (Stats, error) {
	s := Stats{Path: l.path, ByLicense: map[string]int{}, ByFormat: map[string]int{}, ByEmbedder: map[string]int{}, Schema: SchemaVersion}
	group := func(query string, into map[string]int) error {
		rows, err := l.db.QueryContext(ctx, query)
		if err != nil {
			return l.dbError(err)
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			var n int
			if err := rows.Scan(&k, &n); err != nil {
				return l.dbError(err)
			}
			into[k] = n
		}
		return l.dbError(rows.Err())
	}
	if err := group("SELECT license_id, count(*) FROM records GROUP BY license_id", s.ByLicense); err != nil {
		return s, err
	}
	if err := group("SELECT format, count(*) FROM records GROUP BY format", s.ByFormat); err != nil {
		return s, err
	}
	if err := group("SELECT coalesce(v.model, ''), count(*) FROM records r LEFT JOIN vectors v ON v.key = r.key GROUP BY 1", s.ByEmbedder); err != nil {
		return s, err
	}
	err := l.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM records),
		(SELECT count(*) FROM records WHERE license_id = 'unknown' OR json_extract(record, '$.license.rights_verified') IS NOT 1),
		(SELECT count(*) FROM ingest_failures)`).Scan(&s.Records, &s.Unlicensed, &s.Failures)
	return s, l.dbError(err)
}

// ResetEmbeddings drops every vector and the library's embedding model, so
// that the records can be embedded again with another embedder.
func (l *Library) ResetEmbeddings(ctx context.Context) error {
	err := l.change(ctx, func(tx *sql.Tx, _ int64) error {
		for _, q := range []string{"DELETE FROM vectors", "DELETE FROM meta WHERE key IN ('embedding_model', 'embedding_dim')",
			"UPDATE records SET record = json_remove(record, '$.embedding_model')"} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return l.dbError(err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.model, l.dim = "", 0
	l.vectors.reset()
	l.mu.Unlock()
	return nil
}

// dbError gives a database error a code: a busy or locked database is
// Unavailable, anything else Internal.
func (l *Library) dbError(err error) error {
	if err == nil {
		return nil
	}
	var fe *foley.Error
	if errors.As(err, &fe) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	msg := err.Error()
	if strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked") {
		return foley.Errorf(foley.Unavailable, "library %s is busy: %w", l.path, err)
	}
	return foley.Errorf(foley.Internal, "library %s: %w", l.path, err)
}

// SaveIndex brings the in-memory vector index up to date and saves, beside
// the library file, what makes the next process start fast: from
// 10,000 vectors a snapshot of them (PATH.vectors), and when the library
// uses an HNSW graph (asked for, or on auto from HNSWThreshold vectors) the
// graph (PATH.hnsw), built first if needed. It returns the files written.
func (l *Library) SaveIndex(ctx context.Context) ([]string, error) {
	model, dim := l.Embedding()
	if model == "" {
		return nil, nil
	}
	if err := l.vectors.sync(ctx, l.db, model, dim); err != nil {
		return nil, l.dbError(err)
	}
	var wrote []string
	n := l.vectors.len()
	if n >= snapshotMin {
		if err := l.vectors.saveSnapshot(); err != nil {
			return wrote, foley.Errorf(foley.Internal, "saving the vector snapshot of %s: %w", l.path, err)
		}
		wrote = append(wrote, l.vectors.snapPath)
	}
	if l.vectors.opts.Index == "exact" || (l.vectors.opts.Index == "" && n < l.vectors.opts.HNSWThreshold) {
		return wrote, nil
	}
	if err := l.vectors.saveHNSW(); err != nil {
		return wrote, foley.Errorf(foley.Internal, "saving the HNSW graph of %s: %w", l.path, err)
	}
	return append(wrote, l.vectors.hnswPath), nil
}

// IndexKind says which vector index searches use now: "hnsw", "exact", or
// "" before the first vector search.
func (l *Library) IndexKind() string {
	switch {
	case !l.vectors.isLoaded():
		return ""
	case l.vectors.usingHNSW():
		return "hnsw"
	}
	return "exact"
}

// TouchFile records a file's new size and modification time when its
// content did not change (same hash), so the next ingest skips it.
func (l *Library) TouchFile(ctx context.Context, path string, size, mtimeNS int64) error {
	_, err := l.db.ExecContext(ctx, "UPDATE records SET size = ?, mtime_ns = ? WHERE path = ?", size, mtimeNS, path)
	return l.dbError(err)
}

// CountUnusable counts the records of files under a path prefix that the
// licence gate would drop whatever the use: an unknown licence, or rights
// nobody verified.
func (l *Library) CountUnusable(ctx context.Context, pathPrefix string) (int, error) {
	var n int
	err := l.db.QueryRowContext(ctx, `SELECT count(*) FROM records WHERE substr(CAST(path AS BLOB), 1, ?) = CAST(? AS BLOB)
		AND (license_id = 'unknown' OR json_extract(record, '$.license.rights_verified') IS NOT 1)`, len(pathPrefix), pathPrefix).Scan(&n)
	return n, l.dbError(err)
}

// ClearFailuresUnder forgets the recorded failures of files under a path
// prefix, before an ingest of that folder records them again.
func (l *Library) ClearFailuresUnder(ctx context.Context, pathPrefix string) error {
	_, err := l.db.ExecContext(ctx, "DELETE FROM ingest_failures WHERE substr(CAST(path AS BLOB), 1, ?) = CAST(? AS BLOB)", len(pathPrefix), pathPrefix)
	return l.dbError(err)
}

// Location implements foley.Store: the library file.
func (l *Library) Location() string { return l.path }

// exportPage is how many records Export reads per query.
const exportPage = 500

// Export implements foley.Store: records in id order, with their vectors;
// a record's Cursor is its id.
func (l *Library) Export(ctx context.Context, after string) iter.Seq2[foley.Exported, error] {
	return func(yield func(foley.Exported, error) bool) {
		for {
			page, err := l.exportPage(ctx, after)
			if err != nil {
				yield(foley.Exported{}, err)
				return
			}
			for _, e := range page {
				if !yield(e, nil) {
					return
				}
			}
			if len(page) < exportPage {
				return
			}
			after = page[len(page)-1].Cursor
		}
	}
}

func (l *Library) exportPage(ctx context.Context, after string) ([]foley.Exported, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT r.id, r.record, v.dim, v.vec, r.path, coalesce(r.size, -1), coalesce(r.mtime_ns, 0),
		coalesce(r.content_sha256, ''), coalesce(r.meta_sha256, '')
		FROM records r LEFT JOIN vectors v ON v.key = r.key
		WHERE r.id > ? ORDER BY r.id LIMIT ?`, after, exportPage)
	if err != nil {
		return nil, l.dbError(err)
	}
	defer rows.Close()
	var out []foley.Exported
	for rows.Next() {
		var id, doc string
		var dim sql.NullInt64
		var blob []byte
		var path sql.NullString
		f := FileState{}
		if err := rows.Scan(&id, &doc, &dim, &blob, &path, &f.Size, &f.MtimeNS, &f.SHA256, &f.MetaSHA256); err != nil {
			return nil, l.dbError(err)
		}
		r, err := decodeRecord(doc)
		if err != nil {
			return nil, err
		}
		e := foley.Exported{Record: r, Cursor: id}
		if path.Valid {
			f.ID, f.Path = id, path.String
			e.File = &f
		}
		if dim.Valid {
			if e.Vector, err = decodeVector(blob, int(dim.Int64)); err != nil {
				return nil, foley.Errorf(foley.Internal, "library %s: record %q: %v", l.path, id, err)
			}
		}
		out = append(out, e)
	}
	return out, l.dbError(rows.Err())
}

var _ foley.Store = (*Library)(nil)
