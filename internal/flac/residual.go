package flac

import (
	"encoding/binary"
	"math/bits"
)

// decodeResidual reads the residual of a subframe with a predictor of the
// given order into x[order:].
func (d *Decoder) decodeResidual(x []int32, order int) error {
	br := d.br
	method := br.bits(2)
	if method > 1 {
		return d.corrupt("reserved residual coding method %d", method)
	}
	pbits, escape := uint(4), uint64(15)
	if method == 1 {
		pbits, escape = 5, 31
	}
	porder := uint(br.bits(4))
	n := len(x)
	psize := n >> porder
	if psize<<porder != n || psize < order {
		return d.corrupt("residual partition order %d does not fit block size %d and predictor order %d", porder, n, order)
	}
	start := order
	for end := psize; end <= n; end += psize {
		part := x[start:end]
		start = end
		k := br.bits(pbits)
		switch {
		case k == escape:
			nb := uint(br.bits(5))
			if nb == 0 {
				clear(part)
				continue
			}
			for i := range part {
				part[i] = int32(br.signed(nb))
			}
		default:
			if !br.rice(part, uint(k)) {
				return d.corrupt("residual value out of range")
			}
		}
	}
	return nil
}

// rice decodes len(dst) Rice codes with parameter k <= 30 into dst,
// mapping them back from the zigzag form. It reports false for a code that
// does not fit in 32 bits or runs past the end of the input.
func (b *bitReader) rice(dst []int32, k uint) bool {
	for len(dst) > 0 {
		dst = dst[b.riceFast(dst, k):]
		if len(dst) == 0 {
			break
		}
		// A code the fast loop does not take: the last one, one near the
		// end of the window or one with a long quotient.
		b.refill()
		q := b.unary(1 << 32)
		v := b.bits(k)
		u := q<<k | v
		if u>>32 != 0 || b.overrun() {
			return false
		}
		dst[0] = int32(uint32(u)>>1) ^ -int32(u&1)
		dst = dst[1:]
	}
	return true
}

// riceFast decodes codes into dst two at a time while the window holds the
// bytes for a cache refill and the codes fit in the cache, and returns how
// many it decoded. It leaves the last code of an odd count to the caller.
//
// Each refill (to at least 56 bits) serves two codes when they fit.
func (b *bitReader) riceFast(dst []int32, k uint) int {
	cache, n, pos := b.cache, b.n, b.pos
	win := b.win
	last := b.end - 8 // the last pos a refill can load from
	k1 := k&31 + 1    // stop bit and k low bits
	pow := uint32(1) << (k & 31)
	out := dst
	for len(out) >= 2 && pos <= last {
		// pos <= last < bufSize, so the mask changes nothing but lets the
		// compiler drop the bounds check.
		p := pos & (bufSize - 1)
		cache |= binary.BigEndian.Uint64(win[p:p+8]) >> (n & 63)
		pos += int((63 - n) >> 3)
		n |= 56

		q := uint(lz8[cache>>56])
		if q == 8 {
			q = uint(bits.LeadingZeros64(cache))
		}
		total := q + k1
		if total > n {
			break // a long code: the caller decodes it
		}
		// v is the stop bit followed by the k low bits: 1<<k | low.
		v := uint32(cache >> ((64 - total) & 63))
		cache <<= total & 63
		n -= total
		u := v + uint32(q-1)*pow // q<<k | low
		out[0] = int32(u>>1) ^ -int32(u&1)

		q = uint(lz8[cache>>56])
		if q == 8 {
			q = uint(bits.LeadingZeros64(cache))
		}
		total = q + k1
		if total > n {
			out = out[1:]
			continue // refill first
		}
		v = uint32(cache >> ((64 - total) & 63))
		cache <<= total & 63
		n -= total
		u = v + uint32(q-1)*pow
		out[1] = int32(u>>1) ^ -int32(u&1)
		out = out[2:]
	}
	b.cache, b.n, b.pos = cache, n, pos
	return len(dst) - len(out)
}

// lz8 holds the leading zeros of each byte value (8 for 0): a table lookup
// is much cheaper than BSR where the compiler cannot use LZCNT (GOAMD64
// below v3), and Rice quotients are almost always below 8.
var lz8 = func() (t [256]uint8) {
	for i := range t {
		t[i] = uint8(bits.LeadingZeros8(uint8(i)))
	}
	return t
}()
