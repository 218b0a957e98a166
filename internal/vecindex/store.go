package vecindex

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"
)

const (
	pageShift = 10
	pageSize  = 1 << pageShift
	pageMask  = pageSize - 1

	// maxSlots bounds the number of slots (ids are uint32 and ^uint32(0)
	// means none).
	maxSlots = math.MaxUint32 - 1
	noSlot   = ^uint32(0)
)

// Slot states.
const (
	slotFree uint8 = iota // never used, or released
	slotLive              // holds the vector of a key
	slotDead              // removed, but the HNSW graph still goes through it
)

// Errors returned by Add and AddBatch, wrapped with details.
var (
	ErrDimension = errors.New("vecindex: wrong vector dimension")
	ErrNonFinite = errors.New("vecindex: vector has a non-finite value")
	ErrFull      = errors.New("vecindex: store is full")
)

type storePage struct {
	vecs  []float32 // pageSize vectors of dim floats, contiguous
	keys  [pageSize]int64
	state [pageSize]uint8
}

// Store holds vectors of one dimension by int64 key. Slots (the position of
// a vector) are reused after removal. A Store may have one HNSW attached
// (NewHNSW), which it keeps up to date on every Add.
type Store struct {
	dim int

	mu    sync.RWMutex
	pages []*storePage
	used  uint32 // slots handed out so far (high-water mark)
	free  []uint32
	slots map[int64]uint32
	live  int
	dead  int
	g     *HNSW
}

// NewStore returns an empty store of vectors with dim floats each. It
// panics if dim < 1.
func NewStore(dim int) *Store {
	if dim < 1 || dim > 1<<20 {
		panic(fmt.Sprintf("vecindex: invalid dimension %d", dim))
	}
	return &Store{dim: dim, slots: make(map[int64]uint32)}
}

// Dim is the length of every vector.
func (s *Store) Dim() int { return s.dim }

// Each calls fn with every stored key and its vector, in slot order, until
// fn returns false. v is the store's own memory: fn must not keep or change
// it, and must not call back into the store (its read lock is held).
func (s *Store) Each(fn func(key int64, v []float32) bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for slot := uint32(0); slot < s.used; slot++ {
		if s.state(slot) == slotLive && !fn(s.key(slot), s.vec(slot)) {
			return
		}
	}
}

// Len is the number of keys stored.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.live
}

// Contains reports whether key is stored.
func (s *Store) Contains(key int64) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.slots[key]
	return ok
}

// Get returns a copy of the vector stored under key.
func (s *Store) Get(key int64) ([]float32, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	slot, ok := s.slots[key]
	if !ok {
		return nil, false
	}
	return append([]float32(nil), s.vec(slot)...), true
}

// MemoryBytes estimates the memory held by the store: vector pages, keys,
// states, the key map and the free list.
func (s *Store) MemoryBytes() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	perPage := int64(pageSize)*int64(s.dim)*4 + int64(unsafe.Sizeof(storePage{}))
	// A Go map of int64 to uint32 costs about 24 bytes per entry at its
	// usual load.
	return int64(len(s.pages))*(perPage+8) + int64(len(s.slots))*24 + int64(cap(s.free))*4
}

// check validates a vector before anything is changed.
func (s *Store) check(v []float32) error {
	if len(v) != s.dim {
		return fmt.Errorf("%w: got %d values, want %d", ErrDimension, len(v), s.dim)
	}
	var sum float64
	for i, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%w: value %d is %v", ErrNonFinite, i, x)
		}
		sum += f * f
	}
	if sum > math.MaxFloat32 {
		return fmt.Errorf("%w: squared norm %g overflows float32", ErrNonFinite, sum)
	}
	return nil
}

// vec is the storage of slot; s.mu held.
func (s *Store) vec(slot uint32) []float32 {
	p := s.pages[slot>>pageShift]
	o := int(slot&pageMask) * s.dim
	return p.vecs[o : o+s.dim : o+s.dim]
}

func (s *Store) state(slot uint32) uint8 { return s.pages[slot>>pageShift].state[slot&pageMask] }

func (s *Store) key(slot uint32) int64 { return s.pages[slot>>pageShift].keys[slot&pageMask] }

// alloc hands out a free slot; s.mu held for writing.
func (s *Store) alloc() (uint32, error) {
	if n := len(s.free); n > 0 {
		slot := s.free[n-1]
		s.free = s.free[:n-1]
		return slot, nil
	}
	if s.used >= maxSlots {
		return 0, ErrFull
	}
	slot := s.used
	if int(slot>>pageShift) == len(s.pages) {
		s.pages = append(s.pages, &storePage{vecs: make([]float32, pageSize*s.dim)})
		if s.g != nil {
			s.g.growPages(len(s.pages))
		}
	}
	s.used++
	return slot, nil
}

// kill removes the key held by slot; s.mu held for writing. With a graph
// attached the slot stays as a tombstone until the graph is compacted.
func (s *Store) kill(slot uint32) {
	p := s.pages[slot>>pageShift]
	i := slot & pageMask
	delete(s.slots, p.keys[i])
	s.live--
	if s.g != nil {
		p.state[i] = slotDead
		s.dead++
		return
	}
	p.state[i] = slotFree
	s.free = append(s.free, slot)
}

// release makes a dead slot free; s.mu held for writing.
func (s *Store) release(slot uint32) {
	p := s.pages[slot>>pageShift]
	i := slot & pageMask
	if p.state[i] != slotDead {
		return
	}
	p.state[i] = slotFree
	s.dead--
	s.free = append(s.free, slot)
}

// put stores v under key; s.mu held for writing, v checked. It returns the
// slot to link into the graph, or noSlot when there is none to link.
func (s *Store) put(key int64, v []float32) (uint32, error) {
	old, had := s.slots[key]
	if had && s.g == nil {
		copy(s.vec(old), v)
		return noSlot, nil
	}
	slot, err := s.alloc()
	if err != nil {
		return noSlot, err
	}
	if had {
		s.kill(old)
	}
	p := s.pages[slot>>pageShift]
	i := slot & pageMask
	copy(s.vec(slot), v)
	p.keys[i] = key
	p.state[i] = slotLive
	s.slots[key] = slot
	s.live++
	if s.g == nil {
		return noSlot, nil
	}
	s.g.prepare(slot, key)
	return slot, nil
}

// Add stores v under key, replacing the vector the key had. It fails,
// changing nothing, when v has the wrong length or a non-finite value. The
// vector is copied. With an HNSW attached, Add returns once the vector is
// linked into the graph.
func (s *Store) Add(key int64, v []float32) error {
	if err := s.check(v); err != nil {
		return err
	}
	s.mu.Lock()
	had := false
	if s.g != nil {
		_, had = s.slots[key]
	}
	slot, err := s.put(key, v)
	g := s.g
	s.mu.Unlock()
	if err != nil || slot == noSlot {
		return err
	}
	g.linkSlots([]uint32{slot}, 1)
	if had {
		g.maybeCompact()
	}
	return nil
}

// AddBatch stores vecs[i] under keys[i], as Add does for each in order (a
// key given twice ends with its last vector). It checks every vector first
// and changes nothing if one is invalid. With an HNSW attached, the new
// vectors are linked into the graph in parallel on GOMAXPROCS goroutines.
func (s *Store) AddBatch(keys []int64, vecs [][]float32) error {
	if len(keys) != len(vecs) {
		return fmt.Errorf("vecindex: %d keys for %d vectors", len(keys), len(vecs))
	}
	for i, v := range vecs {
		if err := s.check(v); err != nil {
			return fmt.Errorf("vector %d (key %d): %w", i, keys[i], err)
		}
	}
	var link []uint32
	replaced := false
	var g *HNSW
	const chunk = 1024 // let searches in between
	for lo := 0; lo < len(keys); lo += chunk {
		hi := min(lo+chunk, len(keys))
		s.mu.Lock()
		g = s.g
		for i := lo; i < hi; i++ {
			if g != nil {
				if _, ok := s.slots[keys[i]]; ok {
					replaced = true
				}
			}
			slot, err := s.put(keys[i], vecs[i])
			if err != nil {
				s.mu.Unlock()
				if g != nil {
					g.linkSlots(link, runtime.GOMAXPROCS(0))
				}
				return fmt.Errorf("vector %d (key %d): %w", i, keys[i], err)
			}
			if slot != noSlot {
				link = append(link, slot)
			}
		}
		s.mu.Unlock()
	}
	if g != nil {
		g.linkSlots(link, runtime.GOMAXPROCS(0))
		if replaced {
			g.maybeCompact()
		}
	}
	return nil
}

// Remove deletes key and reports whether it was stored. With an HNSW
// attached the slot becomes a tombstone, and the graph is compacted when
// tombstones exceed its MaxTombstoneFraction.
func (s *Store) Remove(key int64) bool {
	s.mu.Lock()
	slot, ok := s.slots[key]
	if ok {
		s.kill(slot)
	}
	g := s.g
	s.mu.Unlock()
	if ok && g != nil {
		g.maybeCompact()
	}
	return ok
}
