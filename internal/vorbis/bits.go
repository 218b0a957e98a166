package vorbis

import "encoding/binary"

// bitReader reads a Vorbis packet LSB-first. Reads past the end of the packet
// yield zero bits; pastEnd reports whether that has happened (the Vorbis
// "end-of-packet" condition).
type bitReader struct {
	data []byte
	pos  int    // next byte of data to load into bits (may exceed len(data))
	bits uint64 // buffered bits, next bit in bit 0
	n    uint   // number of valid bits in bits (always >= 56 after refill)
}

func (b *bitReader) init(data []byte) {
	b.data = data
	b.pos = 0
	b.bits = 0
	b.n = 0
	b.refill()
}

// refill makes at least 56 bits available. Past the end of the data it
// supplies zero bits (the position keeps counting so pastEnd works).
func (b *bitReader) refill() {
	if b.pos+8 <= len(b.data) {
		b.bits |= binary.LittleEndian.Uint64(b.data[b.pos:]) << b.n
		b.pos += int((63 - b.n) >> 3)
		b.n |= 56
		return
	}
	b.refillSlow()
}

func (b *bitReader) refillSlow() {
	for b.n <= 56 {
		if b.pos < len(b.data) {
			b.bits |= uint64(b.data[b.pos]) << b.n
		}
		b.pos++
		b.n += 8
	}
}

// consumed returns the number of bits read so far.
func (b *bitReader) consumed() int { return b.pos*8 - int(b.n) }

// pastEnd reports whether more bits were read than the packet holds.
func (b *bitReader) pastEnd() bool { return b.pos*8-int(b.n) > len(b.data)*8 }

// left returns the number of unread bits in the packet (0 when past the end).
func (b *bitReader) left() int {
	l := len(b.data)*8 - b.consumed()
	if l < 0 {
		return 0
	}
	return l
}

// read returns the next n bits (n <= 32).
func (b *bitReader) read(n uint) uint32 {
	if b.n < 32 {
		b.refill()
	}
	v := uint32(b.bits & (1<<n - 1))
	b.bits >>= n
	b.n -= n
	return v
}

func (b *bitReader) read1() bool {
	return b.read(1) != 0
}
