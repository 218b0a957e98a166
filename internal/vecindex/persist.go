package vecindex

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"runtime"
	"slices"
)

// The graph file (all little-endian):
//
//	magic "FOLEYHNS", version uint32 (1)
//	dim, M, efConstruction, efSearch uint32; seed uint64
//	nodes uint32; entry uint32 (node number, or 0xFFFFFFFF with no nodes);
//	top level uint32
//	per node: kind uint8 (1 live, 2 removed), level uint8,
//	  if live: key int64, vector hash uint64,
//	  per level 0..level: count uint16, count node numbers uint32
//	CRC-32 (IEEE) of everything before it, uint32
//
// Nodes are numbered in file order. Vectors are not written: on reading,
// each live node is matched by key (and vector hash) to the Store.
const (
	fileMagic   = "FOLEYHNS"
	fileVersion = 1
)

// ErrFormat is wrapped by every error about a malformed graph file.
var ErrFormat = errors.New("vecindex: invalid HNSW graph data")

func formatErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrFormat, fmt.Sprintf(format, a...))
}

// vecHash fingerprints a vector's bits.
func vecHash(v []float32) uint64 {
	h := uint64(len(v)) * 0x9e3779b97f4a7c15
	i := 0
	for ; i+2 <= len(v); i += 2 {
		w := uint64(math.Float32bits(v[i])) | uint64(math.Float32bits(v[i+1]))<<32
		h = bits.RotateLeft64(h^(w*0xff51afd7ed558ccd), 29) * 0xc4ceb9fe1a85ec53
	}
	if i < len(v) {
		h = bits.RotateLeft64(h^(uint64(math.Float32bits(v[i]))*0xff51afd7ed558ccd), 29) * 0xc4ceb9fe1a85ec53
	}
	return splitmix(h)
}

type countWriter struct {
	w   io.Writer
	n   int64
	crc hash.Hash32
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// WriteTo writes the graph (not the vectors) to w. Searches go on
// meanwhile; inserts and Compact wait.
func (h *HNSW) WriteTo(w io.Writer) (int64, error) {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	s := h.s
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<16)
	crc := crc32.NewIEEE()
	var buf []byte
	flush := func() error {
		crc.Write(buf)
		_, err := bw.Write(buf)
		buf = buf[:0]
		return err
	}

	// Number the linked nodes in slot order.
	s.mu.RLock()
	used := s.used
	num := make([]uint32, used)
	var count uint32
	for slot := range used {
		if h.pages[slot>>pageShift].linked[slot&pageMask] {
			num[slot] = count
			count++
		} else {
			num[slot] = noSlot
		}
	}
	e := h.entry.Load()
	entry, top := noSlot, uint32(0)
	if e != entryNone {
		entry, top = num[uint32(e)], uint32(e>>32)
	}
	s.mu.RUnlock()

	buf = append(buf, fileMagic...)
	buf = binary.LittleEndian.AppendUint32(buf, fileVersion)
	for _, x := range []int{s.dim, h.m, h.efC, int(h.efSearch.Load())} {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(x))
	}
	buf = binary.LittleEndian.AppendUint64(buf, h.seed)
	buf = binary.LittleEndian.AppendUint32(buf, count)
	buf = binary.LittleEndian.AppendUint32(buf, entry)
	buf = binary.LittleEndian.AppendUint32(buf, top)
	if err := flush(); err != nil {
		return cw.n, err
	}

	for lo := uint32(0); lo < used; lo += pageSize {
		s.mu.RLock()
		p := h.pages[lo>>pageShift]
		for slot := lo; slot < min(lo+pageSize, used); slot++ {
			i := slot & pageMask
			if !p.linked[i] {
				continue
			}
			level := int(p.level[i])
			if s.state(slot) == slotLive {
				buf = append(buf, 1, byte(level))
				buf = binary.LittleEndian.AppendUint64(buf, uint64(s.key(slot)))
				buf = binary.LittleEndian.AppendUint64(buf, vecHash(s.vec(slot)))
			} else {
				buf = append(buf, 2, byte(level))
			}
			for l := 0; l <= level; l++ {
				ls := h.links(slot, l)
				n := min(int(ls[0]), len(ls)-1)
				buf = binary.LittleEndian.AppendUint16(buf, uint16(n))
				for _, id := range ls[1 : 1+n] {
					buf = binary.LittleEndian.AppendUint32(buf, num[id])
				}
			}
		}
		s.mu.RUnlock()
		if err := flush(); err != nil {
			return cw.n, err
		}
	}
	buf = binary.LittleEndian.AppendUint32(buf, crc.Sum32())
	if _, err := bw.Write(buf); err != nil {
		return cw.n, err
	}
	err := bw.Flush()
	return cw.n, err
}

// fileGraph is a parsed, validated graph file.
type fileGraph struct {
	dim, m, efC, efS int
	seed             uint64
	entry            uint32
	top              int
	kind             []uint8
	level            []uint8
	off              []int // start of the node's data in slab
	// slab holds per node: for a live node key (2 words) and hash (2
	// words); then per level a count and the ids.
	slab []uint32
}

func (f *fileGraph) key(i int) int64 {
	o := f.off[i]
	return int64(uint64(f.slab[o]) | uint64(f.slab[o+1])<<32)
}

func (f *fileGraph) hash(i int) uint64 {
	o := f.off[i] + 2
	return uint64(f.slab[o]) | uint64(f.slab[o+1])<<32
}

// lists returns node i's lists, level 0 first.
func (f *fileGraph) lists(i int, fn func(level int, ids []uint32)) {
	o := f.off[i]
	if f.kind[i] == 1 {
		o += 4
	}
	for l := 0; l <= int(f.level[i]); l++ {
		n := int(f.slab[o])
		fn(l, f.slab[o+1:o+1+n])
		o += 1 + n
	}
}

type binReader struct {
	r   *bufio.Reader
	n   int64
	crc hash.Hash32
	buf [8192]byte
	err error
}

func (b *binReader) read(n int) []byte {
	if b.err != nil {
		return nil
	}
	p := b.buf[:n]
	m, err := io.ReadFull(b.r, p)
	b.n += int64(m)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		b.err = fmt.Errorf("%w: %w", ErrFormat, err)
		return nil
	}
	b.crc.Write(p)
	return p
}

func (b *binReader) u8() uint8 {
	if p := b.read(1); p != nil {
		return p[0]
	}
	return 0
}

func (b *binReader) u16() uint16 {
	if p := b.read(2); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}

func (b *binReader) u32() uint32 {
	if p := b.read(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (b *binReader) u64() uint64 {
	if p := b.read(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

// parseGraph reads and checks a whole graph file. What it allocates grows
// with the bytes actually read, never with a count the data claims.
func parseGraph(r io.Reader, dim int) (*fileGraph, int64, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 1<<16)
	}
	b := &binReader{r: br, crc: crc32.NewIEEE()}
	if p := b.read(len(fileMagic)); p != nil && string(p) != fileMagic {
		return nil, b.n, formatErr("not an HNSW graph (bad magic %q)", p)
	}
	if v := b.u32(); b.err == nil && v != fileVersion {
		return nil, b.n, formatErr("version %d, want %d", v, fileVersion)
	}
	f := &fileGraph{}
	f.dim, f.m, f.efC, f.efS = int(b.u32()), int(b.u32()), int(b.u32()), int(b.u32())
	f.seed = b.u64()
	nodes := b.u32()
	f.entry = b.u32()
	top := b.u32()
	if b.err != nil {
		return nil, b.n, b.err
	}
	switch {
	case f.dim != dim:
		return nil, b.n, formatErr("graph of dimension %d for a store of dimension %d", f.dim, dim)
	case f.m < 2 || f.m > maxM:
		return nil, b.n, formatErr("M %d out of range", f.m)
	case f.efC < 1 || f.efC > maxEf || f.efS < 1 || f.efS > maxEf:
		return nil, b.n, formatErr("ef out of range")
	case top > maxLevel:
		return nil, b.n, formatErr("top level %d out of range", top)
	case nodes > maxSlots:
		return nil, b.n, formatErr("%d nodes", nodes)
	case nodes == 0 && (f.entry != noSlot || top != 0):
		return nil, b.n, formatErr("entry point without nodes")
	case nodes > 0 && f.entry >= nodes:
		return nil, b.n, formatErr("entry point %d of %d nodes", f.entry, nodes)
	}
	f.top = int(top)
	m0 := 2 * f.m
	maxTop := 0
	for i := uint32(0); i < nodes; i++ {
		kind, level := b.u8(), b.u8()
		if b.err != nil {
			return nil, b.n, b.err
		}
		if kind != 1 && kind != 2 {
			return nil, b.n, formatErr("node %d: kind %d", i, kind)
		}
		if int(level) > f.top {
			return nil, b.n, formatErr("node %d: level %d above the top %d", i, level, f.top)
		}
		maxTop = max(maxTop, int(level))
		f.kind = append(f.kind, kind)
		f.level = append(f.level, level)
		f.off = append(f.off, len(f.slab))
		if kind == 1 {
			k, hs := b.u64(), b.u64()
			f.slab = append(f.slab, uint32(k), uint32(k>>32), uint32(hs), uint32(hs>>32))
		}
		for l := 0; l <= int(level); l++ {
			n := int(b.u16())
			mx := f.m
			if l == 0 {
				mx = m0
			}
			if b.err != nil {
				return nil, b.n, b.err
			}
			if n > mx {
				return nil, b.n, formatErr("node %d level %d: %d links, at most %d", i, l, n, mx)
			}
			f.slab = append(f.slab, uint32(n))
			p := b.read(4 * n)
			if b.err != nil {
				return nil, b.n, b.err
			}
			for j := range n {
				id := binary.LittleEndian.Uint32(p[4*j:])
				if id >= nodes || id == i {
					return nil, b.n, formatErr("node %d level %d: link to %d", i, l, id)
				}
				f.slab = append(f.slab, id)
			}
		}
	}
	want := b.crc.Sum32()
	got := b.u32()
	if b.err != nil {
		return nil, b.n, b.err
	}
	if got != want {
		return nil, b.n, formatErr("checksum %08x, want %08x", got, want)
	}
	if _, err := br.ReadByte(); err == nil {
		return nil, b.n, formatErr("trailing data after the checksum")
	} else if !errors.Is(err, io.EOF) {
		return nil, b.n, fmt.Errorf("vecindex: reading HNSW graph: %w", err)
	}
	if nodes > 0 && (int(f.level[f.entry]) != f.top || maxTop != f.top) {
		return nil, b.n, formatErr("entry point is not on the top level")
	}
	// Links go to nodes that have the level, once per list.
	seen := make([]uint32, nodes)
	stamp := uint32(0)
	var bad error
	for i := range f.kind {
		f.lists(i, func(l int, ids []uint32) {
			stamp++
			for _, id := range ids {
				if bad == nil && (int(f.level[id]) < l || seen[id] == stamp) {
					bad = formatErr("node %d level %d: bad link to %d", i, l, id)
				}
				seen[id] = stamp
			}
		})
		if bad != nil {
			return nil, b.n, bad
		}
	}
	// Keys are unique.
	var keys []int64
	for i, k := range f.kind {
		if k == 1 {
			keys = append(keys, f.key(i))
		}
	}
	slices.Sort(keys)
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			return nil, b.n, formatErr("key %d appears twice", keys[i])
		}
	}
	return f, b.n, nil
}

// ReadHNSW attaches to s a graph written by WriteTo, with the parameters
// it was written with. See ReadFrom for how it is matched to s.
func ReadHNSW(s *Store, r io.Reader) (*HNSW, error) {
	f, _, err := parseGraph(r, s.dim)
	if err != nil {
		return nil, err
	}
	h := newHNSW(s, HNSWConfig{M: f.m, EfConstruction: f.efC, EfSearch: f.efS, Seed: f.seed, MaxTombstoneFraction: DefaultMaxTombstoneFraction})
	h.wmu.Lock()
	defer h.wmu.Unlock()
	s.mu.Lock()
	if s.g != nil {
		s.mu.Unlock()
		return nil, errors.New("vecindex: store already has an HNSW")
	}
	s.g = h
	h.growPages(len(s.pages))
	s.mu.Unlock()
	h.install(f)
	return h, nil
}

// ReadFrom replaces the graph with one written by WriteTo, taking its M,
// EfConstruction, EfSearch and Seed; nothing changes if the data is not a
// valid graph of the Store's dimension. The file's live nodes are matched
// to the Store's vectors by key and vector hash; a node whose key is gone
// or whose vector changed is taken out as if removed, and every vector of
// the Store without a node is linked anew, so the graph always indexes
// exactly what the Store holds.
func (h *HNSW) ReadFrom(r io.Reader) (int64, error) {
	f, n, err := parseGraph(r, h.s.dim)
	if err != nil {
		return n, err
	}
	h.wmu.Lock()
	defer h.wmu.Unlock()
	h.install(f)
	return n, nil
}

// install makes f the graph; h.wmu held exclusively.
func (h *HNSW) install(f *fileGraph) {
	s := h.s
	s.mu.Lock()
	if 2*f.m != h.m0 {
		h.pages = nil
	}
	h.m, h.m0, h.efC, h.seed = f.m, 2*f.m, f.efC, f.seed
	h.mL = 1 / math.Log(float64(f.m))
	h.efSearch.Store(int64(f.efS))
	h.growPages(len(s.pages))
	// Drop the old graph: its tombstones are nobody's now.
	for slot := range s.used {
		if s.state(slot) == slotDead {
			s.release(slot)
		}
		h.setLevel(slot, 0)
	}
	h.entry.Store(entryNone)
	h.nodes.Store(0)

	// Give each node a slot: its key's, when the vector is the same;
	// else a removed slot to be compacted away.
	slotOf := make([]uint32, len(f.kind))
	claimed := make(map[uint32]bool)
	for i, kind := range f.kind {
		slotOf[i] = noSlot
		if kind == 1 {
			if slot, ok := s.slots[f.key(i)]; ok && !claimed[slot] && vecHash(s.vec(slot)) == f.hash(i) {
				slotOf[i] = slot
				claimed[slot] = true
				continue
			}
		}
		slot, err := s.alloc()
		if err != nil {
			// The store is full: give back what was taken, leave the
			// graph empty and link everything anew.
			for j := range i {
				if f.kind[j] != 1 || s.state(slotOf[j]) == slotDead {
					s.release(slotOf[j])
				}
			}
			s.mu.Unlock()
			h.relinkAll()
			return
		}
		clear(s.vec(slot))
		p := s.pages[slot>>pageShift]
		p.state[slot&pageMask] = slotDead
		p.keys[slot&pageMask] = 0
		s.dead++
		slotOf[i] = slot
	}
	for i := range f.kind {
		slot := slotOf[i]
		h.setLevel(slot, int(f.level[i]))
		f.lists(i, func(l int, ids []uint32) {
			ls := h.links(slot, l)
			for j, id := range ids {
				ls[1+j] = slotOf[id]
			}
			ls[0] = uint32(len(ids))
		})
		h.pages[slot>>pageShift].linked[slot&pageMask] = true
	}
	h.nodes.Store(int64(len(f.kind)))
	if len(f.kind) > 0 {
		h.entry.Store(uint64(f.top)<<32 | uint64(slotOf[f.entry]))
	}
	s.mu.Unlock()
	h.compactLocked()
	h.relinkAll()
}

// relinkAll links every live slot that is not in the graph; h.wmu held
// exclusively.
func (h *HNSW) relinkAll() {
	s := h.s
	s.mu.Lock()
	var link []uint32
	for slot := range s.used {
		p := h.pages[slot>>pageShift]
		if s.state(slot) == slotLive && !p.linked[slot&pageMask] {
			h.prepare(slot, s.key(slot))
			link = append(link, slot)
		}
	}
	s.mu.Unlock()
	h.linkLocked(link, runtime.GOMAXPROCS(0))
}
