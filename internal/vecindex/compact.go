package vecindex

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// maybeCompact compacts when tombstones exceed the configured fraction of
// the graph's nodes.
func (h *HNSW) maybeCompact() {
	if h.maxTombstone < 0 {
		return
	}
	h.s.mu.RLock()
	dead := h.s.dead
	h.s.mu.RUnlock()
	if dead == 0 || float64(dead) <= h.maxTombstone*float64(h.nodes.Load()) {
		return
	}
	if !h.compacting.CompareAndSwap(false, true) {
		return // another goroutine is at it
	}
	defer h.compacting.Store(false)
	h.Compact()
}

// Compact takes the tombstones out of the graph: each node that links to a
// removed node is relinked, with the selection heuristic, among its other
// neighbours and the removed node's neighbours; then the removed nodes'
// slots are released for reuse. It returns the number of nodes taken out.
// Searches go on meanwhile; inserts wait.
func (h *HNSW) Compact() int {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	return h.compactLocked()
}

// compactLocked is Compact with h.wmu held exclusively.
func (h *HNSW) compactLocked() int {
	s := h.s
	s.mu.RLock()
	n := int(s.used)
	isDead := make([]bool, n)
	var gone []uint32
	for slot := uint32(0); slot < uint32(n); slot++ {
		if s.state(slot) == slotDead && h.pages[slot>>pageShift].linked[slot&pageMask] {
			isDead[slot] = true
			gone = append(gone, slot)
		}
	}
	s.mu.RUnlock()
	if len(gone) == 0 {
		return 0
	}

	// Relink, a page at a time, releasing s.mu in between so that
	// writers waiting for it do not hold searches up for long.
	pages := (n + pageSize - 1) / pageSize
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), pages)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := h.getScratch()
			defer h.putScratch(sc)
			for {
				pi := int(next.Add(1) - 1)
				if pi >= pages {
					return
				}
				s.mu.RLock()
				p := h.pages[pi]
				for i := range pageSize {
					slot := uint32(pi<<pageShift + i)
					if int(slot) >= n {
						break
					}
					if !p.linked[i] || isDead[slot] {
						continue
					}
					for l := 0; l <= int(p.level[i]); l++ {
						h.repair(sc, slot, l, isDead)
					}
				}
				s.mu.RUnlock()
			}
		}()
	}
	wg.Wait()

	s.mu.Lock()
	defer s.mu.Unlock()
	if e := h.entry.Load(); e != entryNone && isDead[uint32(e)] {
		best, top := noSlot, -1
		for slot := uint32(0); slot < uint32(n); slot++ {
			p := h.pages[slot>>pageShift]
			i := slot & pageMask
			if p.linked[i] && !isDead[slot] && int(p.level[i]) > top {
				best, top = slot, int(p.level[i])
			}
		}
		if best == noSlot {
			h.entry.Store(entryNone)
		} else {
			h.entry.Store(uint64(top)<<32 | uint64(best))
		}
	}
	for _, slot := range gone {
		h.setLevel(slot, 0)
		s.release(slot)
	}
	h.nodes.Add(-int64(len(gone)))
	return len(gone)
}

// repair relinks slot at level if it links to a removed node; s.mu held
// shared, h.wmu exclusively (no other writer of links). The candidates are
// its live neighbours and the live nodes reached from it through removed
// ones, breadth first (so with few removals: its neighbours and its
// removed neighbours' neighbours), chosen among by the heuristic. Going
// on through removed nodes keeps the graph connected even when most nodes
// go at once.
func (h *HNSW) repair(sc *scratch, slot uint32, level int, isDead []bool) {
	l := h.links(slot, level)
	if l == nil {
		return
	}
	n := min(int(l[0]), len(l)-1)
	found := false
	for j := 1; j <= n; j++ {
		if isDead[l[j]] {
			found = true
			break
		}
	}
	if !found {
		return
	}
	maxCands := max(h.efC, 2*h.maxLinks(level))
	maxExpand := 4 * maxCands
	sc.resetVisited(len(isDead))
	vis, tag := sc.vis, sc.tag
	vis[slot] = tag
	base := h.vec(slot)
	cs := sc.tmp[:0]
	queue := sc.ids[:0]
	for j := 1; j <= n; j++ {
		if id := l[j]; vis[id] != tag {
			vis[id] = tag
			queue = append(queue, id)
		}
	}
	expanded := 0
	for qi := 0; qi < len(queue) && len(cs) < maxCands; qi++ {
		id := queue[qi]
		if !isDead[id] {
			cs = append(cs, cand{dot(base, h.vec(id)), id})
			continue
		}
		if expanded >= maxExpand {
			continue
		}
		expanded++
		dl := h.links(id, level)
		if dl == nil {
			continue
		}
		dn := min(int(dl[0]), len(dl)-1)
		for _, nb := range dl[1 : 1+dn] {
			if vis[nb] != tag {
				vis[nb] = tag
				queue = append(queue, nb)
			}
		}
	}
	sortCands(cs)
	sel := h.selectNeighbors(sc.tsel[:0], cs, len(l)-1)
	for j, id := range sel {
		atomic.StoreUint32(&l[1+j], id)
	}
	atomic.StoreUint32(&l[0], uint32(len(sel)))
	sc.tmp, sc.tsel, sc.ids = cs, sel, queue
}
