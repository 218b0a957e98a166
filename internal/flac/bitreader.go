package flac

import (
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
)

const (
	// bufSize is the size of the window over the input. It is refilled from
	// the io.Reader in large reads.
	bufSize = 1 << 16
	// minFill is how many bytes a refill tries to have buffered before it
	// stops asking the reader for more.
	minFill = 8 << 10
)

// bitReader reads bits most significant first from a byte window over an
// io.Reader, through a 64-bit cache.
//
// Invariant: the stream byte buf[pos] sits at cache bits [n, n+8) counted
// from the most significant bit; the cache bits after the first n are either
// zero or the true bits that follow, so OR-ing freshly loaded bytes in is
// always consistent. When the input is exhausted the cache is topped up with
// zero bits, counted in pad, so that hot loops need no error checks; callers
// find out through overrun.
type bitReader struct {
	r     io.Reader
	buf   []byte             // the window, len bufSize: win[:bufSize]
	win   *[bufSize + 8]byte // the same memory, for loads without bounds checks
	pos   int                // next byte of buf to load into the cache
	end   int                // end of valid data in buf
	cache uint64
	n     uint  // valid bits in cache
	pad   int   // zero bits supplied after the end of the input
	base  int64 // stream offset of buf[0]
	rerr  error // sticky error from r, io.EOF included

	// CRC-16 of the bytes from crcPos up to the bytes already dropped by
	// fill; see startCRC and frameCRC.
	crcPos int
	crc    uint16
}

func newBitReader(r io.Reader) *bitReader {
	win := new([bufSize + 8]byte)
	return &bitReader{r: r, buf: win[:bufSize], win: win}
}

// consumed is the index in buf just past the last byte any of whose bits
// have been consumed.
func (b *bitReader) consumed() int {
	real := max(int(b.n)-b.pad, 0) // bits of the cache that are input
	return b.pos - real>>3
}

// offset is the stream offset of the next byte (the current byte if a byte
// is partly consumed).
func (b *bitReader) offset() int64 {
	real := max(int(b.n)-b.pad, 0)
	return b.base + int64(b.pos) - int64((real+7)>>3)
}

// remaining is the number of real bits left in the stream as far as it has
// been read; negative after an overrun.
func (b *bitReader) remaining() int {
	return (b.end-b.pos)*8 + int(b.n) - b.pad
}

// overrun reports whether more bits were consumed than the input had.
func (b *bitReader) overrun() bool {
	return b.pad > 0 && int(b.n) < b.pad
}

// errNoProgress is the error for a reader that keeps returning nothing.
var errNoProgress = errors.New("flac: reader returned no data and no error 100 times")

// fill drops consumed bytes from the window (folding them into the running
// CRC) and reads more input. It either adds data or sets rerr.
func (b *bitReader) fill() {
	if b.rerr != nil {
		return
	}
	cons := b.consumed()
	if cons > b.crcPos {
		b.crc = crc16(b.crc, b.buf[b.crcPos:cons])
		b.crcPos = cons
	}
	keep := min(cons, b.crcPos)
	if keep > 0 {
		copy(b.buf, b.buf[keep:b.end])
		b.base += int64(keep)
		b.pos -= keep
		b.end -= keep
		b.crcPos -= keep
	}
	for empties := 0; ; {
		free := len(b.buf) - b.end
		if free == 0 {
			return
		}
		m, err := b.r.Read(b.buf[b.end:])
		if m < 0 || m > free {
			b.rerr = errors.New("flac: reader returned an invalid count")
			return
		}
		b.end += m
		if err != nil {
			b.rerr = err
			return
		}
		if m == 0 {
			empties++
			if empties >= 100 {
				b.rerr = errNoProgress
				return
			}
			continue
		}
		if b.end-b.pos >= minFill {
			return
		}
	}
}

// refill tops the cache up to at least 56 bits.
func (b *bitReader) refill() {
	if b.pos+8 <= b.end {
		b.cache |= binary.BigEndian.Uint64(b.buf[b.pos:]) >> (b.n & 63)
		b.pos += int((63 - b.n) >> 3)
		b.n |= 56
		return
	}
	b.refillSlow()
}

func (b *bitReader) refillSlow() {
	for b.n <= 56 {
		if b.pos+8 <= b.end {
			b.cache |= binary.BigEndian.Uint64(b.buf[b.pos:]) >> (b.n & 63)
			b.pos += int((63 - b.n) >> 3)
			b.n |= 56
			return
		}
		if b.pos < b.end {
			b.cache |= uint64(b.buf[b.pos]) << (56 - b.n)
			b.pos++
			b.n += 8
			continue
		}
		if b.rerr == nil {
			b.fill()
			continue
		}
		// Out of input: supply zero bytes (whole bytes, so that byte
		// alignment stays right).
		add := (63 - b.n) &^ 7 // n stays below 64
		b.pad += int(add)
		b.n += add
		return
	}
}

// bits reads k <= 56 bits.
func (b *bitReader) bits(k uint) uint64 {
	if b.n < k {
		b.refill()
	}
	v := b.cache >> ((64 - k) & 63)
	if k == 0 {
		v = 0
	}
	b.cache <<= k & 63
	b.n -= k
	return v
}

// signed reads a k-bit two's complement number, 1 <= k <= 56.
func (b *bitReader) signed(k uint) int64 {
	v := b.bits(k)
	return int64(v<<(64-k)) >> (64 - k)
}

// unary reads zero bits up to and including a one bit and returns how many
// zeros there were. It stops at limit zeros (returning limit) so that
// corrupt input cannot make it run on.
func (b *bitReader) unary(limit uint64) uint64 {
	var q uint64
	for {
		if b.n <= 56 {
			b.refill()
		}
		lz := uint(bits.LeadingZeros64(b.cache))
		if lz < b.n {
			q += uint64(lz)
			b.cache <<= lz + 1
			b.n -= lz + 1
			return q
		}
		q += uint64(b.n)
		b.cache = 0
		b.n = 0
		if q >= limit || b.overrun() {
			return max(q, limit)
		}
	}
}

// align skips to the next byte boundary.
func (b *bitReader) align() {
	k := b.n & 7
	b.cache <<= k
	b.n -= k
}

// atEnd reports whether the stream has no more bytes. It must be called at
// a byte boundary.
func (b *bitReader) atEnd() bool {
	if b.n < 8 {
		b.refill()
	}
	return b.remaining() <= 0
}

// peek16 returns the next 16 bits without consuming them and whether the
// stream has that many.
func (b *bitReader) peek16() (uint16, bool) {
	if b.n < 16 {
		b.refill()
	}
	return uint16(b.cache >> 48), b.remaining() >= 16
}

// skip skips k bytes at a byte boundary without buffering them all. It
// returns false if the input ends first.
func (b *bitReader) skip(k int64) bool {
	for k > 0 && b.n >= 8 {
		b.cache <<= 8
		b.n -= 8
		k--
	}
	if k == 0 {
		return !b.overrun()
	}
	if b.pad > 0 {
		return false
	}
	b.cache, b.n = 0, 0 // at a byte boundary n is 0 here
	for k > 0 {
		avail := int64(b.end - b.pos)
		if avail == 0 {
			if b.rerr != nil {
				return false
			}
			b.fill()
			continue
		}
		s := min(avail, k)
		b.pos += int(s)
		k -= s
		b.crcPos = b.pos
	}
	return true
}

// readBytes reads k bytes at a byte boundary into a slice that grows with
// the data actually read, so a false length cannot make it allocate much.
func (b *bitReader) readBytes(k int) ([]byte, bool) {
	var out []byte
	for k > 0 {
		chunk := min(k, 64<<10)
		if out == nil {
			out = make([]byte, 0, chunk)
		}
		for range chunk {
			out = append(out, byte(b.bits(8)))
		}
		if b.overrun() {
			return nil, false
		}
		k -= chunk
	}
	return out, true
}

// startCRC starts the frame CRC-16 at the current byte boundary.
func (b *bitReader) startCRC() {
	b.crcPos = b.consumed()
	b.crc = 0
}

// frameCRC is the CRC-16 of the bytes from startCRC up to the current byte
// boundary.
func (b *bitReader) frameCRC() uint16 {
	cons := b.consumed()
	if cons > b.crcPos {
		b.crc = crc16(b.crc, b.buf[b.crcPos:cons])
		b.crcPos = cons
	}
	return b.crc
}
