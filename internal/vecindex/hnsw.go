package vecindex

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// HNSW defaults.
const (
	DefaultM                    = 16
	DefaultEfConstruction       = 200
	DefaultEfSearch             = 64
	DefaultMaxTombstoneFraction = 0.1

	maxLevel = 31 // levels 0..maxLevel; M^-31 never happens in practice
	maxM     = 1024
	maxEf    = 1 << 20
)

// HNSWConfig sets the parameters of an HNSW graph. A zero field takes its
// default.
type HNSWConfig struct {
	// M is the number of neighbours a node keeps per level above 0
	// (2*M on level 0). Default 16.
	M int
	// EfConstruction is the candidate list length while inserting.
	// Default 200.
	EfConstruction int
	// EfSearch is the default candidate list length of a search (at
	// least k is used). Default 64.
	EfSearch int
	// Seed makes the level of each key deterministic: a key's level is a
	// hash of Seed and the key.
	Seed uint64
	// MaxTombstoneFraction triggers Compact when removed-but-linked nodes
	// exceed this fraction of the nodes. Default 0.1; negative: never
	// compact automatically.
	MaxTombstoneFraction float64
}

func (c HNSWConfig) withDefaults() (HNSWConfig, error) {
	if c.M == 0 {
		c.M = DefaultM
	}
	if c.EfConstruction == 0 {
		c.EfConstruction = DefaultEfConstruction
	}
	if c.EfSearch == 0 {
		c.EfSearch = DefaultEfSearch
	}
	if c.MaxTombstoneFraction == 0 {
		c.MaxTombstoneFraction = DefaultMaxTombstoneFraction
	}
	switch {
	case c.M < 2 || c.M > maxM:
		return c, fmt.Errorf("vecindex: M %d out of range 2..%d", c.M, maxM)
	case c.EfConstruction < 1 || c.EfConstruction > maxEf:
		return c, fmt.Errorf("vecindex: EfConstruction %d out of range 1..%d", c.EfConstruction, maxEf)
	case c.EfSearch < 1 || c.EfSearch > maxEf:
		return c, fmt.Errorf("vecindex: EfSearch %d out of range 1..%d", c.EfSearch, maxEf)
	case math.IsNaN(c.MaxTombstoneFraction):
		return c, errors.New("vecindex: MaxTombstoneFraction is NaN")
	}
	return c, nil
}

// graphPage holds the links of pageSize slots, parallel to a storePage.
type graphPage struct {
	// l0 holds, per slot, a count then up to m0 neighbour ids.
	l0 []uint32
	// up holds, per slot with a level above 0, for each level 1..level a
	// count then up to m neighbour ids.
	up     [pageSize][]uint32
	level  [pageSize]uint8
	linked [pageSize]bool
	mu     [pageSize]sync.Mutex
}

const entryNone = ^uint64(0)

// HNSW is approximate search over a Store with a hierarchical navigable
// small world graph (Malkov & Yashunin, 2018). The graph holds no vectors:
// it links the slots of its Store.
//
// Searches run concurrently with each other and with Add (each insert locks
// only the neighbour lists it changes). Compact, WriteTo and ReadFrom
// exclude inserts but not searches.
type HNSW struct {
	s   *Store
	m   int
	m0  int
	efC int
	mL  float64

	seed         uint64
	efSearch     atomic.Int64
	maxTombstone float64

	// wmu orders structural work: inserts hold it shared, Compact,
	// WriteTo and ReadFrom exclusively. Always taken before s.mu.
	wmu sync.RWMutex

	pages []*graphPage // guarded by s.mu

	entryMu sync.Mutex
	entry   atomic.Uint64 // level<<32 | slot, or entryNone

	nodes atomic.Int64 // linked slots (live or dead)

	compacting atomic.Bool
	pool       sync.Pool // *scratch
}

// NewHNSW attaches a graph to s and links every vector s already holds,
// in parallel. A Store has at most one HNSW.
func NewHNSW(s *Store, cfg HNSWConfig) (*HNSW, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	h := newHNSW(s, cfg)
	s.mu.Lock()
	if s.g != nil {
		s.mu.Unlock()
		return nil, errors.New("vecindex: store already has an HNSW")
	}
	s.g = h
	h.growPages(len(s.pages))
	var link []uint32
	for slot := uint32(0); slot < s.used; slot++ {
		if s.state(slot) == slotLive {
			h.prepare(slot, s.key(slot))
			link = append(link, slot)
		}
	}
	s.mu.Unlock()
	h.linkSlots(link, runtime.GOMAXPROCS(0))
	return h, nil
}

func newHNSW(s *Store, cfg HNSWConfig) *HNSW {
	h := &HNSW{
		s:            s,
		m:            cfg.M,
		m0:           2 * cfg.M,
		efC:          cfg.EfConstruction,
		mL:           1 / math.Log(float64(cfg.M)),
		seed:         cfg.Seed,
		maxTombstone: cfg.MaxTombstoneFraction,
	}
	h.efSearch.Store(int64(cfg.EfSearch))
	h.entry.Store(entryNone)
	return h
}

// Config returns the graph's parameters.
func (h *HNSW) Config() HNSWConfig {
	h.s.mu.RLock()
	defer h.s.mu.RUnlock()
	return HNSWConfig{M: h.m, EfConstruction: h.efC, EfSearch: int(h.efSearch.Load()), Seed: h.seed, MaxTombstoneFraction: h.maxTombstone}
}

// SetEfSearch sets the default candidate list length of Search.
func (h *HNSW) SetEfSearch(ef int) {
	h.efSearch.Store(int64(min(max(ef, 1), maxEf)))
}

// Store is the vector storage the graph links.
func (h *HNSW) Store() *Store { return h.s }

// Dim is the length of every vector.
func (h *HNSW) Dim() int { return h.s.dim }

// Len is the number of keys stored.
func (h *HNSW) Len() int { return h.s.Len() }

// Add stores v under key and links it (Store.Add).
func (h *HNSW) Add(key int64, v []float32) error { return h.s.Add(key, v) }

// Build stores and links many vectors in parallel on GOMAXPROCS
// goroutines (Store.AddBatch).
func (h *HNSW) Build(keys []int64, vecs [][]float32) error { return h.s.AddBatch(keys, vecs) }

// Remove deletes key (Store.Remove): its node becomes a tombstone, which
// searches go through but never return, until Compact.
func (h *HNSW) Remove(key int64) bool { return h.s.Remove(key) }

// Tombstones is the number of removed nodes still linked in the graph.
func (h *HNSW) Tombstones() int {
	h.s.mu.RLock()
	defer h.s.mu.RUnlock()
	return h.s.dead
}

// MemoryBytes estimates the memory of the graph alone (not the vectors).
func (h *HNSW) MemoryBytes() int64 {
	h.s.mu.RLock()
	defer h.s.mu.RUnlock()
	var b int64
	for _, p := range h.pages {
		b += int64(unsafe.Sizeof(*p)) + int64(cap(p.l0))*4 + 8
		for _, u := range p.up {
			b += int64(cap(u)) * 4
		}
	}
	return b
}

// growPages makes room for n pages of links; s.mu held for writing.
func (h *HNSW) growPages(n int) {
	for len(h.pages) < n {
		h.pages = append(h.pages, &graphPage{l0: make([]uint32, pageSize*(1+h.m0))})
	}
}

// levelOf is the deterministic level of key.
func (h *HNSW) levelOf(key int64) int {
	x := splitmix(h.seed ^ splitmix(uint64(key)))
	u := (float64(x>>11) + 1) / (1 << 53) // (0, 1]
	l := int(-math.Log(u) * h.mL)
	return min(l, maxLevel)
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// prepare readies slot for linking at the level of key; s.mu held for
// writing.
func (h *HNSW) prepare(slot uint32, key int64) {
	h.setLevel(slot, h.levelOf(key))
}

// setLevel clears slot's links and sizes them for level; s.mu held for
// writing.
func (h *HNSW) setLevel(slot uint32, level int) {
	p := h.pages[slot>>pageShift]
	i := slot & pageMask
	p.level[i] = uint8(level)
	p.linked[i] = false
	p.l0[int(i)*(1+h.m0)] = 0
	if level == 0 {
		p.up[i] = nil
		return
	}
	p.up[i] = make([]uint32, level*(1+h.m))
}

// links is the list (count, then ids) of slot at level, nil if slot has no
// such level; s.mu held. Its elements are read and written atomically.
func (h *HNSW) links(slot uint32, level int) []uint32 {
	p := h.pages[slot>>pageShift]
	i := slot & pageMask
	if level == 0 {
		o := int(i) * (1 + h.m0)
		return p.l0[o : o+1+h.m0 : o+1+h.m0]
	}
	u := p.up[i]
	o := (level - 1) * (1 + h.m)
	if o+1+h.m > len(u) {
		return nil
	}
	return u[o : o+1+h.m : o+1+h.m]
}

func (h *HNSW) maxLinks(level int) int {
	if level == 0 {
		return h.m0
	}
	return h.m
}

// scratch is the per-goroutine working memory of a search or insert.
type scratch struct {
	vis   []uint16
	tag   uint16
	cands maxHeap
	res   minHeap
	out   []cand   // searchLayer's result
	sel   []uint32 // the neighbours chosen for a new node
	tmp   []cand   // addLink's and compaction's candidates
	tsel  []uint32 // addLink's and compaction's selection
	ids   []uint32 // the unvisited neighbours of a node
}

func (h *HNSW) getScratch() *scratch {
	if sc, ok := h.pool.Get().(*scratch); ok {
		return sc
	}
	return &scratch{}
}

func (h *HNSW) putScratch(sc *scratch) { h.pool.Put(sc) }

// resetVisited starts a new visited set for n slots.
func (sc *scratch) resetVisited(n int) {
	if len(sc.vis) < n {
		sc.vis = make([]uint16, n+n/4)
		sc.tag = 0
	}
	sc.tag++
	if sc.tag == 0 {
		clear(sc.vis)
		sc.tag = 1
	}
}

func (h *HNSW) vec(slot uint32) []float32 { return h.s.vec(slot) }

// greedy walks level from cur towards q, one best neighbour at a time.
func (h *HNSW) greedy(q []float32, cur uint32, curSim float32, level int) (uint32, float32) {
	for changed := true; changed; {
		changed = false
		l := h.links(cur, level)
		if l == nil {
			break
		}
		n := min(int(atomic.LoadUint32(&l[0])), len(l)-1)
		for j := 1; j <= n; j++ {
			id := atomic.LoadUint32(&l[j])
			next := id
			if j < n {
				next = atomic.LoadUint32(&l[j+1])
			}
			if s := dotPf(q, h.vec(id), h.vec(next)); s > curSim {
				cur, curSim, changed = id, s, true
			}
		}
	}
	return cur, curSim
}

// searchLayer is the beam search of one level from ep, keeping the ef most
// similar nodes that pass: live, not self, and accepted (when accept is
// not nil). Other nodes are traversed but not kept. It returns sc.out,
// most similar first; s.mu held.
func (h *HNSW) searchLayer(sc *scratch, q []float32, ep uint32, epSim float32, ef, level int, self uint32, accept func(int64) bool) []cand {
	s := h.s
	sc.resetVisited(int(s.used))
	vis, tag := sc.vis, sc.tag
	cands, res := sc.cands[:0], sc.res[:0]
	pass := func(id uint32) bool {
		p := s.pages[id>>pageShift]
		i := id & pageMask
		return id != self && p.state[i] == slotLive && (accept == nil || accept(p.keys[i]))
	}
	if epSim != epSim {
		epSim = float32(math.Inf(-1))
	}
	vis[ep] = tag
	cands.push(cand{epSim, ep})
	if pass(ep) {
		res.push(cand{epSim, ep})
	}
	for len(cands) > 0 {
		c := cands[0]
		if len(res) >= ef && c.sim < res[0].sim {
			break
		}
		cands.pop()
		l := h.links(c.id, level)
		if l == nil {
			continue
		}
		n := min(int(atomic.LoadUint32(&l[0])), len(l)-1)
		ids := sc.ids[:0]
		for j := 1; j <= n; j++ {
			id := atomic.LoadUint32(&l[j])
			if vis[id] != tag {
				vis[id] = tag
				ids = append(ids, id)
			}
		}
		sc.ids = ids
		for j, id := range ids {
			next := id
			if j+1 < len(ids) {
				next = ids[j+1]
			}
			sim := dotPf(q, h.vec(id), h.vec(next))
			if sim != sim { // only from a huge query: rank it last
				sim = float32(math.Inf(-1))
			}
			if len(res) < ef || sim > res[0].sim {
				cands.push(cand{sim, id})
				if pass(id) {
					res.push(cand{sim, id})
					if len(res) > ef {
						res.pop()
					}
				}
			}
		}
	}
	out := sc.out[:0]
	for len(res) > 0 {
		out = append(out, res.pop())
	}
	slices.Reverse(out)
	sc.cands, sc.res, sc.out = cands, res, out
	return out
}

// Search returns up to k keys whose vectors have (approximately) the
// highest inner product with q, best first (ties go to the smaller key),
// with the default EfSearch. See SearchEf.
func (h *HNSW) Search(q []float32, k int, accept func(key int64) bool) []Hit {
	return h.SearchEf(q, k, int(h.efSearch.Load()), accept)
}

// SearchEf is Search with a candidate list of max(ef, k). Only keys for
// which accept returns true are returned (nil accepts all); the search
// goes on through rejected and removed nodes until it holds max(ef, k)
// accepted nodes or has nothing left to visit, so a selective filter
// costs more visits. accept is called on the searching goroutine and must
// not change the index. No hits come back when k <= 0, len(q) != Dim() or
// q has a non-finite value.
func (h *HNSW) SearchEf(q []float32, k, ef int, accept func(key int64) bool) []Hit {
	if k <= 0 || len(q) != h.s.dim || !finite(q) {
		return nil
	}
	ef = min(max(ef, k), maxEf)
	h.s.mu.RLock()
	defer h.s.mu.RUnlock()
	e := h.entry.Load()
	if e == entryNone {
		return nil
	}
	cur, top := uint32(e), int(e>>32)
	curSim := dot(q, h.vec(cur))
	for l := top; l > 0; l-- {
		cur, curSim = h.greedy(q, cur, curSim, l)
	}
	sc := h.getScratch()
	res := h.searchLayer(sc, q, cur, curSim, ef, 0, noSlot, accept)
	if len(res) == 0 {
		h.putScratch(sc)
		return nil
	}
	hits := make([]Hit, len(res))
	for i, c := range res {
		hits[i] = Hit{Key: h.s.key(c.id), Score: c.sim}
	}
	h.putScratch(sc)
	sortHits(hits)
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits
}

// linkSlots links slots into the graph on up to workers goroutines.
func (h *HNSW) linkSlots(slots []uint32, workers int) { h.linkEach(slots, workers, true) }

// linkLocked is linkSlots with h.wmu already held exclusively.
func (h *HNSW) linkLocked(slots []uint32, workers int) { h.linkEach(slots, workers, false) }

func (h *HNSW) linkEach(slots []uint32, workers int, takeW bool) {
	if len(slots) == 0 {
		return
	}
	workers = max(1, min(workers, len(slots)))
	var next atomic.Int64
	work := func() {
		sc := h.getScratch()
		defer h.putScratch(sc)
		for {
			i := int(next.Add(1) - 1)
			if i >= len(slots) {
				return
			}
			if takeW {
				h.wmu.RLock()
			}
			h.s.mu.RLock()
			h.link(sc, slots[i])
			h.s.mu.RUnlock()
			if takeW {
				h.wmu.RUnlock()
			}
		}
	}
	if workers == 1 {
		work()
		return
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	wg.Wait()
}

// link inserts slot into the graph (Malkov & Yashunin, algorithm 1 with
// the neighbour selection heuristic); h.wmu and s.mu held shared.
func (h *HNSW) link(sc *scratch, slot uint32) {
	p := h.pages[slot>>pageShift]
	i := slot & pageMask
	if h.s.state(slot) == slotFree || p.linked[i] {
		return // released, or already linked by ReadFrom
	}
	p.linked[i] = true
	h.nodes.Add(1)
	level := int(p.level[i])
	q := h.vec(slot)

	e := h.entry.Load()
	if e == entryNone {
		h.entryMu.Lock()
		e = h.entry.Load()
		if e == entryNone {
			h.entry.Store(uint64(level)<<32 | uint64(slot))
			h.entryMu.Unlock()
			return
		}
		h.entryMu.Unlock()
	}
	top := int(e >> 32)
	holding := false
	if level > top {
		// A new top node: hold the entry lock so no other insert
		// raises the top meanwhile.
		h.entryMu.Lock()
		holding = true
		e = h.entry.Load()
		top = int(e >> 32)
		if level <= top {
			h.entryMu.Unlock()
			holding = false
		}
	}
	cur := uint32(e)
	curSim := dot(q, h.vec(cur))
	for l := top; l > level; l-- {
		cur, curSim = h.greedy(q, cur, curSim, l)
	}
	for l := min(level, top); l >= 0; l-- {
		found := h.searchLayer(sc, q, cur, curSim, h.efC, l, slot, nil)
		sel := h.selectNeighbors(sc.sel[:0], found, h.m)
		sc.sel = sel
		own := h.links(slot, l)
		p.mu[i].Lock()
		for j, id := range sel {
			atomic.StoreUint32(&own[1+j], id)
		}
		atomic.StoreUint32(&own[0], uint32(len(sel)))
		p.mu[i].Unlock()
		if len(found) > 0 {
			cur, curSim = found[0].id, found[0].sim
		}
		for _, id := range sel {
			h.addLink(sc, id, slot, l)
		}
	}
	if holding {
		h.entry.Store(uint64(level)<<32 | uint64(slot))
		h.entryMu.Unlock()
	}
}

// selectNeighbors applies the heuristic (algorithm 4): walking the
// candidates from the most similar, keep one unless a kept node is more
// similar to it than the base is. cands is sorted most similar first.
// The result is appended to sel.
func (h *HNSW) selectNeighbors(sel []uint32, cands []cand, m int) []uint32 {
	for _, c := range cands {
		if len(sel) >= m {
			break
		}
		v := h.vec(c.id)
		good := true
		for _, r := range sel {
			if dot(v, h.vec(r)) > c.sim {
				good = false
				break
			}
		}
		if good {
			sel = append(sel, c.id)
		}
	}
	return sel
}

// addLink adds a link from node to nb at level, shrinking node's list with
// the heuristic when it is full.
func (h *HNSW) addLink(sc *scratch, node, nb uint32, level int) {
	p := h.pages[node>>pageShift]
	i := node & pageMask
	l := h.links(node, level)
	if l == nil {
		return
	}
	mx := len(l) - 1
	p.mu[i].Lock()
	defer p.mu[i].Unlock()
	n := int(l[0])
	for j := 1; j <= n; j++ {
		if l[j] == nb {
			return
		}
	}
	if n < mx {
		atomic.StoreUint32(&l[1+n], nb)
		atomic.StoreUint32(&l[0], uint32(n+1))
		return
	}
	base := h.vec(node)
	cs := sc.tmp[:0]
	cs = append(cs, cand{dot(base, h.vec(nb)), nb})
	for j := 1; j <= n; j++ {
		id, next := l[j], l[min(j+1, n)]
		cs = append(cs, cand{dotPf(base, h.vec(id), h.vec(next)), id})
	}
	sortCands(cs)
	sel := h.selectNeighbors(sc.tsel[:0], cs, mx)
	sc.tmp, sc.tsel = cs, sel
	for j, id := range sel {
		atomic.StoreUint32(&l[1+j], id)
	}
	atomic.StoreUint32(&l[0], uint32(len(sel)))
}

// sortCands orders candidates most similar first (then by id, for
// determinism).
func sortCands(cs []cand) {
	slices.SortFunc(cs, func(a, b cand) int {
		switch {
		case a.sim > b.sim:
			return -1
		case a.sim < b.sim:
			return 1
		case a.id < b.id:
			return -1
		case a.id > b.id:
			return 1
		}
		return 0
	})
}
