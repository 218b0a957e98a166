package vorbis

import (
	"errors"
	"math"
	"math/bits"
	"sort"
)

// fastBits is the maximum number of bits the first-level Huffman table is
// indexed with; longer codewords are found by binary search.
const fastBits = 10

// codebook is a decoded Vorbis codebook: a Huffman code over its entries and,
// for VQ books, the vector of each entry.
type codebook struct {
	dims    int
	entries int

	// fast[peek & fastMask] = entry<<6 | length, or 0 when the codeword is
	// longer than fastLen bits (or the bits match no codeword).
	fast     []uint32
	fastMask uint64
	// Codewords longer than fastLen: bit-reversed (so MSB-first, read order)
	// and left-aligned to 32 bits, sorted; with their entries and lengths.
	longCodes   []uint32
	longEntries []uint32
	longLens    []uint8

	values []float32 // entries*dims VQ values; nil for lookup type 0
	maxLen int       // longest codeword
}

var (
	errBadCodeword = errors.New("invalid Huffman codeword")
)

// Budget for the memory that codebooks may take (in 4-byte words), so that a
// setup header cannot make the decoder allocate more than about 16 MiB.
const codebookBudget = 1 << 22

func ilog(x uint32) uint { return uint(bits.Len32(x)) }

func float32Unpack(x uint32) float32 {
	mant := float64(x & 0x1fffff)
	if x&0x80000000 != 0 {
		mant = -mant
	}
	exp := int((x & 0x7fe00000) >> 21)
	v := math.Ldexp(mant, exp-788)
	// Keep values finite: huge exponents would only produce Inf/NaN.
	if v > math.MaxFloat32 {
		v = math.MaxFloat32
	} else if v < -math.MaxFloat32 {
		v = -math.MaxFloat32
	}
	return float32(v)
}

// lookup1Values returns the greatest r with r^dims <= entries.
func lookup1Values(entries, dims int) int {
	r := int(math.Floor(math.Pow(float64(entries), 1/float64(dims))))
	pow := func(b int) int { // b^dims, saturating above entries
		acc := 1
		for i := 0; i < dims; i++ {
			acc *= b
			if acc > entries {
				return entries + 1
			}
		}
		return acc
	}
	if r < 1 {
		r = 1
	}
	for r > 1 && pow(r) > entries {
		r--
	}
	for pow(r+1) <= entries {
		r++
	}
	return r
}

// readCodebook parses one codebook from the setup header. budget is the
// remaining allocation budget, decremented by what this book takes.
func readCodebook(br *bitReader, budget *int) (*codebook, error) {
	if br.read(24) != 0x564342 {
		return nil, errors.New("bad codebook sync pattern")
	}
	c := &codebook{}
	c.dims = int(br.read(16))
	c.entries = int(br.read(24))
	if br.pastEnd() {
		return nil, errEOPHeader
	}
	if c.entries == 0 || c.dims == 0 {
		return nil, errors.New("codebook with zero entries or dimensions")
	}
	if ilog(uint32(c.dims))+ilog(uint32(c.entries)) > 24 {
		return nil, errors.New("codebook too large")
	}
	ordered := br.read1()
	if !ordered && c.entries > br.left() {
		// Every entry takes at least one bit.
		return nil, errEOPHeader
	}
	*budget -= c.entries * 3
	if *budget < 0 {
		return nil, errors.New("codebooks too large")
	}
	lengths := make([]uint8, c.entries)
	if !ordered {
		sparse := br.read1()
		for i := range lengths {
			if !sparse || br.read1() {
				lengths[i] = uint8(br.read(5)) + 1
			}
		}
	} else {
		cur := 0
		l := int(br.read(5)) + 1
		for cur < c.entries {
			if l > 32 {
				return nil, errors.New("codebook codeword length over 32")
			}
			num := int(br.read(ilog(uint32(c.entries - cur))))
			if cur+num > c.entries {
				return nil, errors.New("codebook length runs exceed entries")
			}
			if br.pastEnd() {
				return nil, errEOPHeader
			}
			for i := cur; i < cur+num; i++ {
				lengths[i] = uint8(l)
			}
			cur += num
			l++
		}
	}
	if br.pastEnd() {
		return nil, errEOPHeader
	}

	lookupType := br.read(4)
	switch lookupType {
	case 0:
	case 1, 2:
		minimum := float32Unpack(br.read(32))
		delta := float32Unpack(br.read(32))
		valueBits := uint(br.read(4)) + 1
		sequence := br.read1()
		var nvals int
		if lookupType == 1 {
			nvals = lookup1Values(c.entries, c.dims)
		} else {
			nvals = c.entries * c.dims
		}
		if nvals*int(valueBits) > br.left() {
			return nil, errEOPHeader
		}
		*budget -= c.entries*c.dims + nvals
		if *budget < 0 {
			return nil, errors.New("codebooks too large")
		}
		mult := make([]float32, nvals)
		for i := range mult {
			mult[i] = float32(br.read(valueBits))
		}
		c.values = make([]float32, c.entries*c.dims)
		for e := 0; e < c.entries; e++ {
			last := float32(0)
			v := c.values[e*c.dims : (e+1)*c.dims]
			if lookupType == 1 {
				div := 1
				for j := range v {
					x := mult[(e/div)%nvals]*delta + minimum + last
					v[j] = x
					if sequence {
						last = x
					}
					if div <= e {
						div *= nvals
					}
				}
			} else {
				m := mult[e*c.dims : (e+1)*c.dims]
				for j := range v {
					x := m[j]*delta + minimum + last
					v[j] = x
					if sequence {
						last = x
					}
				}
			}
		}
	default:
		return nil, errors.New("unknown codebook lookup type")
	}
	if br.pastEnd() {
		return nil, errEOPHeader
	}
	if err := c.buildHuffman(lengths, budget); err != nil {
		return nil, err
	}
	return c, nil
}

// buildHuffman assigns codewords as the Vorbis spec does (each entry, in
// order, takes the lowest free codeword of its length) and builds the
// lookup tables.
func (c *codebook) buildHuffman(lengths []uint8, budget *int) error {
	var marker [33]uint64
	codes := make([]uint32, len(lengths))
	used, maxLen := 0, 0
	for i, l8 := range lengths {
		if l8 == 0 {
			continue
		}
		l := int(l8)
		entry := marker[l]
		if entry>>uint(l) != 0 {
			return errors.New("overspecified Huffman code")
		}
		codes[i] = uint32(entry)
		used++
		if l > maxLen {
			maxLen = l
		}
		for j := l; j > 0; j-- {
			if marker[j]&1 != 0 {
				if j == 1 {
					marker[1]++
				} else {
					marker[j] = marker[j-1] << 1
				}
				break
			}
			marker[j]++
		}
		for j := l + 1; j < 33; j++ {
			if marker[j]>>1 == entry {
				entry = marker[j]
				marker[j] = marker[j-1] << 1
			} else {
				break
			}
		}
	}
	c.maxLen = maxLen
	if used == 0 {
		// A book with no codewords can't decode anything; decoding with it
		// is an error, but merely declaring it is allowed.
		c.fast = make([]uint32, 1)
		c.fastMask = 0
		return nil
	}
	fl := maxLen
	if fl > fastBits {
		fl = fastBits
	}
	*budget -= 1 << uint(fl)
	if *budget < 0 {
		return errors.New("codebooks too large")
	}
	c.fast = make([]uint32, 1<<uint(fl))
	c.fastMask = 1<<uint(fl) - 1
	if used == 1 {
		// A single used entry: whatever the bits, it decodes to that entry
		// (libvorbis treats it as a one-bit codeword).
		for i, l := range lengths {
			if l != 0 {
				if int(l) > fl {
					l = uint8(fl)
				}
				for k := range c.fast {
					c.fast[k] = uint32(i)<<6 | uint32(l)
				}
			}
		}
		return nil
	}
	nlong := 0
	for i, l8 := range lengths {
		l := int(l8)
		if l == 0 {
			continue
		}
		rev := bits.Reverse32(codes[i]) >> uint(32-l) // read order
		if l <= fl {
			v := uint32(i)<<6 | uint32(l)
			for k := rev; k < uint32(len(c.fast)); k += 1 << uint(l) {
				c.fast[k] = v
			}
		} else {
			nlong++
		}
	}
	if nlong > 0 {
		c.longCodes = make([]uint32, 0, nlong)
		c.longEntries = make([]uint32, 0, nlong)
		c.longLens = make([]uint8, 0, nlong)
		idx := make([]int, 0, nlong)
		for i, l := range lengths {
			if int(l) > fl {
				idx = append(idx, i)
			}
		}
		left := func(i int) uint32 { return codes[i] << uint(32-int(lengths[i])) }
		sort.Slice(idx, func(a, b int) bool { return left(idx[a]) < left(idx[b]) })
		for _, i := range idx {
			c.longCodes = append(c.longCodes, left(i))
			c.longEntries = append(c.longEntries, uint32(i))
			c.longLens = append(c.longLens, lengths[i])
		}
	}
	return nil
}

// decodeSlow finds a codeword longer than the fast table covers. peek holds
// at least 32 upcoming bits. It returns the entry and the codeword length, or
// length 0 if the bits match no codeword.
func (c *codebook) decodeSlow(peek uint64) (uint32, uint) {
	x := bits.Reverse32(uint32(peek))
	codes := c.longCodes
	// Largest i with codes[i] <= x.
	lo, hi := 0, len(codes)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if codes[m] <= x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	i := lo - 1
	if i < 0 {
		return 0, 0
	}
	l := uint(c.longLens[i])
	if (x^codes[i])>>(32-l) != 0 {
		return 0, 0
	}
	return c.longEntries[i], l
}

// decode reads one codeword and returns its entry, or -1 if the bits match
// no codeword (or the book has none).
func (c *codebook) decode(br *bitReader) int {
	if br.n < 32 {
		br.refill()
	}
	e := c.fast[br.bits&c.fastMask]
	l := uint(e & 63)
	if l == 0 {
		var ent uint32
		ent, l = c.decodeSlow(br.bits)
		if l == 0 {
			return -1
		}
		e = ent << 6
	}
	br.bits >>= l
	br.n -= l
	return int(e >> 6)
}
