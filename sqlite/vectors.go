package sqlite

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/vecindex"
)

// attrs are the fields a filtered vector search tests, kept in memory beside
// the vectors.
type attrs struct {
	license    string
	commercial bool
	duration   float32
	ucs        string
}

func (a attrs) pass(f foley.Filter) bool {
	if len(f.LicenseIDs) > 0 {
		ok := false
		for _, id := range f.LicenseIDs {
			if strings.EqualFold(id, a.license) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	switch {
	case f.CommercialOnly && !a.commercial:
		return false
	case f.MinDurationS > 0 && float64(a.duration) < f.MinDurationS:
		return false
	case f.MaxDurationS > 0 && float64(a.duration) > f.MaxDurationS:
		return false
	case f.UCSCategory != "" && !ucsMatch(f.UCSCategory, a.ucs):
		return false
	}
	return true
}

// ucsMatch reports whether a record's UCS category or CatID falls under the
// wanted one: equal ignoring case, or starting with it ("DOOR" takes
// "DOORWood").
func ucsMatch(want, have string) bool {
	return len(have) >= len(want) && strings.EqualFold(have[:len(want)], want)
}

// vectorState is the in-memory vector index of a library, brought up to date
// with the file before each vector search. The vectors live once, in a
// vecindex.Store; the exact index scans them, and an HNSW graph, when there
// is one, links them.
type vectorState struct {
	opts     Options
	hnswPath string // where the graph is kept between runs
	snapPath string // where the vector snapshot is kept

	mu     sync.RWMutex
	loaded bool
	seq    int64 // the change number the index reflects
	model  string
	dim    int
	store  *vecindex.Store
	flat   *vecindex.Flat
	hnsw   *vecindex.HNSW // nil: exact search only
	attrs  map[int64]attrs
	// fromSnapshot says the vectors were loaded from the snapshot file
	// (and brought up to date from the database), not from the database.
	fromSnapshot bool
}

func newVectorState(opts Options, path string) *vectorState {
	if opts.HNSWThreshold <= 0 {
		opts.HNSWThreshold = DefaultHNSWThreshold
	}
	return &vectorState{opts: opts, hnswPath: path + ".hnsw", snapPath: path + ".vectors"}
}

// DefaultHNSWThreshold is the library size from which the HNSW graph is
// built and used when the index is left on auto.
const DefaultHNSWThreshold = 100_000

func (s *vectorState) reset() {
	s.mu.Lock()
	s.loaded, s.seq, s.store, s.flat, s.hnsw, s.attrs = false, 0, nil, nil, nil, nil
	s.mu.Unlock()
	os.Remove(s.hnswPath)
	os.Remove(s.snapPath)
}

// wantHNSW reports whether searches should use the graph: asked for, or on
// auto with a library at least HNSWThreshold large whose graph was saved.
func (s *vectorState) wantHNSW(n int) bool {
	switch s.opts.Index {
	case "hnsw":
		return true
	case "exact":
		return false
	}
	if n < s.opts.HNSWThreshold {
		return false
	}
	_, err := os.Stat(s.hnswPath)
	return err == nil
}

// sync brings the index up to date: all of it on first use, and then the
// records changed or deleted since, by change number, whoever changed them.
func (s *vectorState) sync(ctx context.Context, db *sql.DB, model string, dim int) error {
	var seq int64
	if err := db.QueryRowContext(ctx, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'seq'").Scan(&seq); err != nil {
		return err
	}
	s.mu.RLock()
	fresh := s.loaded && s.seq == seq && s.model == model && s.dim == dim
	s.mu.RUnlock()
	if fresh {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.loaded || s.model != model || s.dim != dim {
		s.store, s.hnsw, s.attrs, s.seq, s.model, s.dim, s.loaded, s.fromSnapshot = vecindex.NewStore(dim), nil, map[int64]attrs{}, 0, model, dim, false, false
		// Start from the snapshot when there is a good one; the changes
		// after it come from the database below.
		if snapSeq, store, at, err := s.readSnapshot(model, dim, seq); err == nil {
			s.store, s.attrs, s.seq, s.loaded, s.fromSnapshot = store, at, snapSeq, true, true
			defer func() {
				if s.hnsw == nil && s.wantHNSW(s.store.Len()) {
					s.attachHNSW()
				}
			}()
		}
		s.flat = vecindex.NewFlat(s.store)
	}
	if s.loaded && s.seq >= seq {
		return nil
	}
	first := !s.loaded
	since := s.seq
	if !first {
		rows, err := db.QueryContext(ctx, "SELECT key FROM deleted WHERE seq > ?", since)
		if err != nil {
			return err
		}
		for rows.Next() {
			var k int64
			if err := rows.Scan(&k); err != nil {
				rows.Close()
				return err
			}
			s.store.Remove(k)
			delete(s.attrs, k)
		}
		rows.Close()
	}
	rows, err := db.QueryContext(ctx, `SELECT r.key, v.vec, r.license_id, r.commercial_ok, r.duration_s, r.ucs_category
		FROM records r LEFT JOIN vectors v ON v.key = r.key AND v.model = ? AND v.dim = ?
		WHERE r.seq > ? AND r.seq <= ?`, model, dim, since, seq)
	if err != nil {
		return err
	}
	defer rows.Close()
	var keys []int64
	var vecs [][]float32
	flush := func() error {
		err := s.store.AddBatch(keys, vecs)
		keys, vecs = keys[:0], vecs[:0]
		return err
	}
	for rows.Next() {
		var (
			key int64
			vec []byte
			a   attrs
			dur float64
		)
		if err := rows.Scan(&key, &vec, &a.license, &a.commercial, &dur, &a.ucs); err != nil {
			return err
		}
		a.duration = float32(dur)
		if vec == nil {
			s.store.Remove(key)
			delete(s.attrs, key)
			continue
		}
		v, err := decodeVector(vec, dim)
		if err != nil {
			return fmt.Errorf("record key %d: %w", key, err)
		}
		keys, vecs = append(keys, key), append(vecs, v)
		s.attrs[key] = a
		if len(keys) == 4096 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	if first && s.wantHNSW(s.store.Len()) {
		if err := s.attachHNSW(); err != nil {
			return err
		}
	}
	s.loaded, s.seq = true, seq
	return nil
}

// attachHNSW reads the saved graph, which reconciles itself with what the
// store holds (vectors added, changed or gone since it was saved), or
// builds one.
func (s *vectorState) attachHNSW() error {
	if f, err := os.Open(s.hnswPath); err == nil {
		h, err := vecindex.ReadHNSW(s.store, bufio.NewReader(f))
		f.Close()
		if err == nil {
			s.hnsw = h
			return nil
		}
		// A damaged graph is rebuilt, not trusted.
	}
	h, err := vecindex.NewHNSW(s.store, vecindex.HNSWConfig{})
	if err != nil {
		return err
	}
	s.hnsw = h
	return nil
}

// saveHNSW builds the graph if there is none and writes it beside the
// library, atomically.
func (s *vectorState) saveHNSW() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store == nil {
		return nil
	}
	return s.saveHNSWLocked()
}

func (s *vectorState) saveHNSWLocked() error {
	if s.hnsw == nil {
		if err := s.attachHNSW(); err != nil {
			return err
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.hnswPath), filepath.Base(s.hnswPath)+".*")
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(tmp, 1<<20)
	_, err = s.hnsw.WriteTo(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), s.hnswPath)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// search returns the n best keys for q that pass f, with their cosines: from
// the graph when there is one and no filter, else by an exact scan (a
// filtered graph search slows down as the filter narrows; the scan does not).
func (s *vectorState) search(q []float32, n int, f foley.Filter) []hit {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var hs []vecindex.Hit
	switch {
	case filterEmpty(f) && s.hnsw != nil:
		hs = s.hnsw.Search(q, n, nil)
	case filterEmpty(f):
		hs = s.flat.Search(q, n, nil)
	default:
		hs = s.flat.Search(q, n, func(k int64) bool { return s.attrs[k].pass(f) })
	}
	out := make([]hit, len(hs))
	for i, h := range hs {
		out[i] = hit{h.Key, h.Score}
	}
	return out
}

// usingHNSW reports whether searches go through the graph.
func (s *vectorState) usingHNSW() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.hnsw != nil
}

// cosine returns the stored vector's cosine with q, if the key has one.
func (s *vectorState) cosine(key int64, q []float32) (float32, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.store == nil {
		return 0, false
	}
	v, ok := s.store.Get(key)
	if !ok || len(v) != len(q) {
		return 0, false
	}
	var d float32
	for i := range v {
		d += v[i] * q[i]
	}
	return d, true
}

func filterEmpty(f foley.Filter) bool {
	return len(f.LicenseIDs) == 0 && !f.CommercialOnly && f.MinDurationS == 0 && f.MaxDurationS == 0 && f.UCSCategory == ""
}

// hit is a key and its score.
type hit struct {
	Key   int64
	Score float32
}

func (s *vectorState) len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.store == nil {
		return 0
	}
	return s.store.Len()
}

func (s *vectorState) isLoaded() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.loaded
}

func (s *vectorState) saveSnapshot() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store == nil {
		return nil
	}
	return s.writeSnapshot()
}
