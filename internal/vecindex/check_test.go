package vecindex

import (
	"testing"
)

// checkGraph verifies the invariants of a quiescent Store and its graph.
func checkGraph(t testing.TB, s *Store) {
	t.Helper()
	s.mu.RLock()
	defer s.mu.RUnlock()
	live, dead := 0, 0
	for slot := uint32(0); slot < s.used; slot++ {
		switch s.state(slot) {
		case slotLive:
			live++
			if got, ok := s.slots[s.key(slot)]; !ok || got != slot {
				t.Fatalf("slot %d: key %d maps to %d, %v", slot, s.key(slot), got, ok)
			}
		case slotDead:
			dead++
			if s.g == nil {
				t.Fatalf("slot %d dead without a graph", slot)
			}
		}
	}
	if live != s.live || live != len(s.slots) || dead != s.dead {
		t.Fatalf("counts: live %d/%d/%d dead %d/%d", live, s.live, len(s.slots), dead, s.dead)
	}
	seenFree := map[uint32]bool{}
	for _, slot := range s.free {
		if slot >= s.used || s.state(slot) != slotFree || seenFree[slot] {
			t.Fatalf("free list holds slot %d", slot)
		}
		seenFree[slot] = true
	}
	h := s.g
	if h == nil {
		return
	}
	nodes, top := 0, -1
	for slot := uint32(0); slot < s.used; slot++ {
		p := h.pages[slot>>pageShift]
		i := slot & pageMask
		if !p.linked[i] {
			if s.state(slot) == slotLive {
				t.Fatalf("live slot %d is not linked", slot)
			}
			continue
		}
		if s.state(slot) == slotFree {
			t.Fatalf("free slot %d is linked", slot)
		}
		nodes++
		level := int(p.level[i])
		top = max(top, level)
		for l := 0; l <= level; l++ {
			ls := h.links(slot, l)
			if ls == nil {
				t.Fatalf("slot %d has no list at level %d of %d", slot, l, level)
			}
			n := int(ls[0])
			if n > h.maxLinks(l) {
				t.Fatalf("slot %d level %d: %d links", slot, l, n)
			}
			seen := map[uint32]bool{}
			for _, id := range ls[1 : 1+n] {
				if id >= s.used || id == slot || seen[id] {
					t.Fatalf("slot %d level %d: bad link %d", slot, l, id)
				}
				seen[id] = true
				q := h.pages[id>>pageShift]
				if !q.linked[id&pageMask] || int(q.level[id&pageMask]) < l {
					t.Fatalf("slot %d level %d: link to %d (linked %v, level %d)", slot, l, id, q.linked[id&pageMask], q.level[id&pageMask])
				}
			}
		}
	}
	if int64(nodes) != h.nodes.Load() {
		t.Fatalf("nodes %d, counter %d", nodes, h.nodes.Load())
	}
	e := h.entry.Load()
	if nodes == 0 {
		if e != entryNone {
			t.Fatalf("entry %x in an empty graph", e)
		}
		return
	}
	if e == entryNone {
		t.Fatal("no entry point")
	}
	ep, el := uint32(e), int(e>>32)
	p := h.pages[ep>>pageShift]
	if !p.linked[ep&pageMask] || int(p.level[ep&pageMask]) != el || el != top {
		t.Fatalf("entry %d level %d, top %d", ep, el, top)
	}
}
