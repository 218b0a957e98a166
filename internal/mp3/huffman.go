package mp3

import "encoding/binary"

// Huffman decoding with two-level lookup tables built at init from the code
// trees in tables_copied.go.
//
// A table entry is either a leaf (bit 31 clear): bits 0-7 hold the value
// (x<<4|y, or the v,w,x,y bits of a count1 quadruple), bits 8-12 the total
// code length, bit 13 is set when x != 0 and bit 14 when y != 0; or a link (bit 31 set) to a second-level table: bits 0-4 hold
// the number of extra bits indexed and bits 8-27 the offset of the sub-table
// in the same slice.

type huffTable struct {
	lut     []uint32
	bits    uint // first-level index bits
	linbits uint
	zero    bool // table 0, 4 or 14: no code words, all values zero
}

const huffPrimaryBits = 8

var huffTables [34]huffTable

// treeOffsets maps a table number to the start of its tree in huffTreeData
// (-1: no tree) and its linbits.
var treeOffsets = [34]struct{ off, linbits int }{
	{-1, 0}, {0, 0}, {7, 0}, {24, 0}, {-1, 0}, {41, 0}, {72, 0}, {103, 0},
	{174, 0}, {245, 0}, {316, 0}, {443, 0}, {570, 0}, {697, 0}, {-1, 0}, {1208, 0},
	{1719, 1}, {1719, 2}, {1719, 3}, {1719, 4}, {1719, 6}, {1719, 8}, {1719, 10}, {1719, 13},
	{2230, 4}, {2230, 5}, {2230, 6}, {2230, 7}, {2230, 8}, {2230, 9}, {2230, 11}, {2230, 13},
	{2742, 0}, {2773, 0},
}

type huffCode struct {
	code uint32
	len  uint
	val  uint8
}

// walkTree lists the code words of the tree starting at huffTreeData[start].
func walkTree(start int) []huffCode {
	var out []huffCode
	var walk func(p int, code uint32, n uint)
	walk = func(p int, code uint32, n uint) {
		if p < 0 || p >= len(huffTreeData) || n > 24 {
			panic("mp3: bad Huffman tree")
		}
		e := huffTreeData[p]
		if e&0xff00 == 0 {
			out = append(out, huffCode{code, n, uint8(e)})
			return
		}
		// bit 0: high byte jump; bit 1: low byte jump (offsets >= 250 chain).
		q := p
		for huffTreeData[q]>>8 >= 250 {
			q += int(huffTreeData[q] >> 8)
		}
		walk(q+int(huffTreeData[q]>>8), code<<1, n+1)
		q = p
		for huffTreeData[q]&0xff >= 250 {
			q += int(huffTreeData[q] & 0xff)
		}
		walk(q+int(huffTreeData[q]&0xff), code<<1|1, n+1)
	}
	walk(start, 0, 0)
	return out
}

func leaf(length uint, val uint8) uint32 {
	e := uint32(length)<<8 | uint32(val)
	if val>>4 != 0 {
		e |= 1 << 13
	}
	if val&15 != 0 {
		e |= 1 << 14
	}
	return e
}

func buildHuffTable(codes []huffCode) ([]uint32, uint) {
	maxLen := uint(0)
	for _, c := range codes {
		if c.len > maxLen {
			maxLen = c.len
		}
	}
	p := uint(huffPrimaryBits)
	if maxLen < p {
		p = maxLen
	}
	lut := make([]uint32, 1<<p)
	// Unused slots (incomplete trees) decode as value 0 consuming p bits.
	for i := range lut {
		lut[i] = uint32(p) << 8
	}
	// Second-level: group long codes by their first p bits.
	subBits := map[uint32]uint{}
	for _, c := range codes {
		if c.len > p {
			pre := c.code >> (c.len - p)
			if c.len-p > subBits[pre] {
				subBits[pre] = c.len - p
			}
		}
	}
	for pre := uint32(0); pre < 1<<p; pre++ {
		s, ok := subBits[pre]
		if !ok {
			continue
		}
		off := len(lut)
		for i := 0; i < 1<<s; i++ {
			lut = append(lut, uint32(p+s)<<8)
		}
		lut[pre] = 1<<31 | uint32(off)<<8 | uint32(s)
	}
	for _, c := range codes {
		if c.len <= p {
			base := c.code << (p - c.len)
			for i := uint32(0); i < 1<<(p-c.len); i++ {
				lut[base+i] = leaf(c.len, c.val)
			}
			continue
		}
		pre := c.code >> (c.len - p)
		link := lut[pre]
		s := uint(link & 31)
		off := link >> 8 & 0xfffff
		rest := c.len - p
		suf := c.code & (1<<rest - 1)
		base := off + suf<<(s-rest)
		for i := uint32(0); i < 1<<(s-rest); i++ {
			lut[base+i] = leaf(c.len, c.val)
		}
	}
	return lut, p
}

func init() {
	built := map[int][]uint32{}
	bits := map[int]uint{}
	for t, o := range treeOffsets {
		if o.off < 0 {
			huffTables[t] = huffTable{zero: true}
			continue
		}
		lut, ok := built[o.off]
		if !ok {
			lut, bits[o.off] = buildHuffTable(walkTree(o.off))
			built[o.off] = lut
		}
		huffTables[t] = huffTable{lut: lut, bits: bits[o.off], linbits: uint(o.linbits)}
	}
}

// bitReader reads MSB-first bits from a byte slice that must be followed by
// at least 8 readable bytes past any position it is asked to read from.
type bitReader struct {
	buf []byte
	pos int // bit position
}

func (b *bitReader) bits(n uint) uint32 {
	if n == 0 {
		return 0
	}
	i := b.pos >> 3
	v := binary.BigEndian.Uint64(b.buf[i : i+8])
	v <<= uint(b.pos & 7)
	b.pos += int(n)
	return uint32(v >> (64 - n))
}
