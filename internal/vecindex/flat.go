package vecindex

import (
	"math"
	"runtime"
	"sync"
)

// Flat is exact search over a Store: every stored vector is scored.
type Flat struct {
	s *Store
}

// NewFlat returns exact search over s. Several indexes may share one Store.
func NewFlat(s *Store) *Flat { return &Flat{s: s} }

// Store is the vector storage searched.
func (f *Flat) Store() *Store { return f.s }

// Dim is the length of every vector.
func (f *Flat) Dim() int { return f.s.dim }

// Len is the number of keys stored.
func (f *Flat) Len() int { return f.s.Len() }

// Add stores v under key (Store.Add).
func (f *Flat) Add(key int64, v []float32) error { return f.s.Add(key, v) }

// Remove deletes key (Store.Remove).
func (f *Flat) Remove(key int64) bool { return f.s.Remove(key) }

// minParallelFloats is the work (vectors × dimension) per goroutine below
// which a search does not split further: starting a goroutine costs more
// than it saves. (A variable so that tests can split small stores.)
var minParallelFloats = 1 << 18

// scoreBlock is how many vectors are scored at once before their scores
// are ranked.
const scoreBlock = 64

// Search returns the k keys whose vectors have the highest inner product
// with q, best first; ties go to the smaller key. Only keys for which
// accept returns true are returned (nil accepts all). accept is called
// from several goroutines at once, only for keys that would rank, and must
// not change the index. Fewer than k hits come back when fewer keys are
// accepted; none when k <= 0, len(q) != Dim() or q has a non-finite value.
func (f *Flat) Search(q []float32, k int, accept func(key int64) bool) []Hit {
	s := f.s
	if k <= 0 || len(q) != s.dim || !finite(q) {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.live == 0 {
		return nil
	}
	k = min(k, s.live)
	n := int(s.used)
	workers := runtime.GOMAXPROCS(0)
	if w := n * s.dim / minParallelFloats; w < workers {
		workers = max(w, 1)
	}
	if workers == 1 {
		t := topK{k: k, h: make([]Hit, 0, k)}
		s.scan(q, 0, n, &t, accept)
		if len(t.h) == 0 {
			return nil
		}
		sortHits(t.h)
		return t.h
	}
	tops := make([]topK, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := n*w/workers, n*(w+1)/workers
		tops[w] = topK{k: k, h: make([]Hit, 0, k)}
		wg.Add(1)
		go func(t *topK) {
			defer wg.Done()
			s.scan(q, lo, hi, t, accept)
		}(&tops[w])
	}
	wg.Wait()
	all := tops[0].h
	for _, t := range tops[1:] {
		all = append(all, t.h...)
	}
	if len(all) == 0 {
		return nil
	}
	sortHits(all)
	if len(all) > k {
		all = all[:k]
	}
	return all
}

// scan offers the live slots in [lo, hi) to t; s.mu held.
func (s *Store) scan(q []float32, lo, hi int, t *topK, accept func(int64) bool) {
	d := s.dim
	var scores [scoreBlock]float32
	for lo < hi {
		p := s.pages[lo>>pageShift]
		i := lo & pageMask
		end := min(pageSize, i+hi-lo, i+scoreBlock)
		out := scores[:end-i]
		dotMany(q, p.vecs[i*d:end*d], out)
		for j, sc := range out {
			if p.state[i+j] != slotLive {
				continue
			}
			if sc != sc {
				sc = float32(math.Inf(-1))
			}
			h := Hit{Key: p.keys[i+j], Score: sc}
			if !t.beats(h) {
				continue
			}
			if accept != nil && !accept(h.Key) {
				continue
			}
			t.offer(h)
		}
		lo += end - i
	}
}

func finite(v []float32) bool {
	for _, x := range v {
		if x-x != 0 { // NaN or ±Inf
			return false
		}
	}
	return true
}
