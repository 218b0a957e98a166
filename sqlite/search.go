package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/foley-audio/foley"
)

// MaxK bounds the results of one search.
const MaxK = foley.MaxK

// ftsQuery turns free text into an FTS5 query: its query words, quoted,
// OR-ed, so that BM25 ranks by how many and how rare the matching words
// are.
func ftsQuery(text string) string {
	words := foley.QueryWords(text)
	for i, w := range words {
		words[i] = `"` + w + `"`
	}
	return strings.Join(words, " OR ")
}

// Search implements foley.Library: the BM25 list and the vector list, each
// up to max(5k, 50) long and filtered, fused by reciprocal rank.
func (l *Library) Search(ctx context.Context, q foley.SearchQuery) ([]foley.Candidate, error) {
	q, err := q.Check()
	if err != nil {
		return nil, err
	}
	k, f := q.K, q.Filter
	depth := max(5*k, 50)
	fts := ftsQuery(q.Text)

	var textHits, vecHits []hit
	if fts != "" {
		if textHits, err = l.textSearch(ctx, fts, depth, f); err != nil {
			return nil, err
		}
	}
	if q.Vector != nil {
		model, dim := l.Embedding()
		if err := foley.CheckEmbedder("search", model, dim, q.Model, q.Vector); err != nil {
			return nil, err
		}
		if model != "" { // else no vectors yet: the text list alone
			if err := l.vectors.sync(ctx, l.db, model, dim); err != nil {
				return nil, l.dbError(err)
			}
			vecHits = l.vectors.search(q.Vector, depth, f)
		}
	}
	fused := fuse(textHits, vecHits)
	if len(fused) > k {
		fused = fused[:k]
	}
	return l.candidates(ctx, fused, q)
}

func (l *Library) textSearch(ctx context.Context, fts string, depth int, f foley.Filter) ([]hit, error) {
	// rank is bm25(1.0, 0.75, 0.5, 0.5) (set up by the schema); ORDER BY
	// rank lets FTS5 rank inside the virtual table. Records are joined only
	// when a filter needs them.
	where, args := filterSQL(f)
	query := `SELECT f.rowid, -f.rank FROM records_fts f WHERE records_fts MATCH ? ORDER BY f.rank LIMIT ?`
	if where != "" {
		query = `SELECT r.key, -f.rank FROM records_fts f JOIN records r ON r.key = f.rowid
		WHERE records_fts MATCH ?` + where + ` ORDER BY f.rank LIMIT ?`
	}
	rows, err := l.query(ctx, query, append(append([]any{fts}, args...), depth)...)
	if err != nil {
		return nil, l.dbError(fmt.Errorf("full-text search: %w", err))
	}
	defer rows.Close()
	var out []hit
	for rows.Next() {
		var h hit
		var s float64
		if err := rows.Scan(&h.Key, &s); err != nil {
			return nil, l.dbError(err)
		}
		h.Score = float32(s)
		out = append(out, h)
	}
	return out, l.dbError(rows.Err())
}

// filterSQL is a filter as an SQL condition on records r.
func filterSQL(f foley.Filter) (string, []any) {
	var conds []string
	var args []any
	if len(f.LicenseIDs) > 0 {
		conds = append(conds, "r.license_id COLLATE NOCASE IN ("+strings.TrimSuffix(strings.Repeat("?,", len(f.LicenseIDs)), ",")+")")
		for _, id := range f.LicenseIDs {
			args = append(args, id)
		}
	}
	if f.CommercialOnly {
		conds = append(conds, "r.commercial_ok = 1")
	}
	if f.MinDurationS > 0 {
		conds, args = append(conds, "r.duration_s >= ?"), append(args, f.MinDurationS)
	}
	if f.MaxDurationS > 0 {
		conds, args = append(conds, "r.duration_s <= ?"), append(args, f.MaxDurationS)
	}
	if f.UCSCategory != "" {
		conds, args = append(conds, "substr(r.ucs_category, 1, ?) = ? COLLATE NOCASE"), append(args, len(f.UCSCategory), f.UCSCategory)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " AND " + strings.Join(conds, " AND "), args
}

// fused is a result of reciprocal rank fusion.
type fused struct {
	key       int64
	rrf       float64
	bm25      *float64
	cos       *float64
	firstRank int
}

// fuse combines ranked lists: each key scores the sum of 1/(RRFK + rank)
// over the lists it is in (ranks from 1). Ties go to the better single rank,
// then the smaller key.
func fuse(text, vec []hit) []fused {
	by := map[int64]*fused{}
	add := func(list []hit, isText bool) {
		for i, h := range list {
			f := by[h.Key]
			if f == nil {
				f = &fused{key: h.Key, firstRank: i}
				by[h.Key] = f
			}
			f.rrf += 1 / float64(RRFK+i+1)
			f.firstRank = min(f.firstRank, i)
			s := float64(h.Score)
			if isText {
				f.bm25 = &s
			} else {
				f.cos = &s
			}
		}
	}
	add(text, true)
	add(vec, false)
	out := make([]fused, 0, len(by))
	for _, f := range by {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.rrf != b.rrf:
			return a.rrf > b.rrf
		case a.firstRank != b.firstRank:
			return a.firstRank < b.firstRank
		}
		return a.key < b.key
	})
	return out
}

// candidates loads the records of fused results, in order, with their
// scores. A text hit outside the vector list still gets its cosine.
func (l *Library) candidates(ctx context.Context, hits []fused, q foley.SearchQuery) ([]foley.Candidate, error) {
	if len(hits) == 0 {
		return []foley.Candidate{}, nil
	}
	args := make([]any, len(hits))
	for i, h := range hits {
		args[i] = h.key
	}
	recs, err := l.records(ctx, args)
	if err != nil {
		return nil, err
	}
	out := make([]foley.Candidate, 0, len(hits))
	for _, h := range hits {
		r, ok := recs[h.key]
		if !ok {
			continue // deleted between the two queries
		}
		c := foley.Candidate{Sound: r, Origin: foley.OriginRetrieved, BM25Score: h.bm25, ClapScore: h.cos, RRFScore: new(h.rrf)}
		if c.ClapScore == nil && q.Vector != nil {
			if s, ok := l.vectors.cosine(h.key, q.Vector); ok {
				c.ClapScore = new(float64(s))
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// Cosines returns the cosine of vector q (made by model) with the vector of
// each record in ids that has one, by id. A query from another model than
// the library's is an Invalid error, as for Search.
func (l *Library) Cosines(ctx context.Context, ids []string, q []float32, model string) (map[string]float64, error) {
	out := map[string]float64{}
	lm, dim := l.Embedding()
	if lm == "" || len(ids) == 0 {
		return out, nil
	}
	if err := foley.CheckEmbedder("", lm, dim, model, q); err != nil {
		return nil, err
	}
	if err := l.vectors.sync(ctx, l.db, lm, dim); err != nil {
		return nil, l.dbError(err)
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := l.db.QueryContext(ctx, "SELECT key, id FROM records WHERE id IN ("+strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")+")", args...)
	if err != nil {
		return nil, l.dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var key int64
		var id string
		if err := rows.Scan(&key, &id); err != nil {
			return nil, l.dbError(err)
		}
		if s, ok := l.vectors.cosine(key, q); ok {
			out[id] = float64(s)
		}
	}
	return out, l.dbError(rows.Err())
}

// recordCacheMax bounds the decoded records kept in memory.
const recordCacheMax = 20000

// cachedRecord is a decoded record and the change that wrote it.
type cachedRecord struct {
	seq int64
	rec foley.SoundRecord
}

// records returns the records with the given keys. Decoding a record's JSON
// is the dearest part of a search, so decoded records are kept in memory
// and reused while their row's seq (the change that last wrote it) is the
// same: a write through any handle changes the seq, and the row is decoded
// again.
func (l *Library) records(ctx context.Context, keys []any) (map[int64]foley.SoundRecord, error) {
	in := "(" + strings.TrimSuffix(strings.Repeat("?,", len(keys)), ",") + ")"
	rows, err := l.query(ctx, "SELECT key, seq FROM records WHERE key IN "+in, keys...)
	if err != nil {
		return nil, l.dbError(err)
	}
	recs := make(map[int64]foley.SoundRecord, len(keys))
	var miss []any
	l.cacheMu.Lock()
	for rows.Next() {
		var key, seq int64
		if err := rows.Scan(&key, &seq); err != nil {
			l.cacheMu.Unlock()
			rows.Close()
			return nil, l.dbError(err)
		}
		if c, ok := l.recCache[key]; ok && c.seq == seq {
			r := c.rec
			r.Tags = slices.Clone(r.Tags)
			recs[key] = r
		} else {
			miss = append(miss, key)
		}
	}
	l.cacheMu.Unlock()
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, l.dbError(err)
	}
	if len(miss) == 0 {
		return recs, nil
	}
	rows, err = l.db.QueryContext(ctx, "SELECT key, seq, record FROM records WHERE key IN ("+strings.TrimSuffix(strings.Repeat("?,", len(miss)), ",")+")", miss...)
	if err != nil {
		return nil, l.dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var key, seq int64
		var doc string
		if err := rows.Scan(&key, &seq, &doc); err != nil {
			return nil, l.dbError(err)
		}
		r, err := decodeRecord(doc)
		if err != nil {
			return nil, err
		}
		recs[key] = r
		l.cacheMu.Lock()
		if l.recCache == nil || len(l.recCache) >= recordCacheMax {
			l.recCache = map[int64]cachedRecord{}
		}
		l.recCache[key] = cachedRecord{seq: seq, rec: r}
		l.cacheMu.Unlock()
		r.Tags = slices.Clone(r.Tags)
		recs[key] = r
	}
	return recs, l.dbError(rows.Err())
}

// stmtCacheMax bounds the prepared statements kept per library.
const stmtCacheMax = 64

// query runs a read through a prepared statement kept for its SQL, so
// that the searches' queries are parsed once rather than on every call
// (parsing was a sixth of a search's time). Past stmtCacheMax distinct
// statements it queries unprepared.
func (l *Library) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	l.cacheMu.Lock()
	st, ok := l.stmts[query]
	if !ok && len(l.stmts) < stmtCacheMax {
		var err error
		if st, err = l.db.PrepareContext(ctx, query); err != nil {
			l.cacheMu.Unlock()
			return nil, err
		}
		if l.stmts == nil {
			l.stmts = map[string]*sql.Stmt{}
		}
		l.stmts[query] = st
	}
	l.cacheMu.Unlock()
	if st == nil {
		return l.db.QueryContext(ctx, query, args...)
	}
	return st.QueryContext(ctx, args...)
}
