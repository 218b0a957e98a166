package flac

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// A small FLAC writer for tests: it builds streams with the features the
// reference encoders do not produce on request (escaped partitions,
// verbatim subframes, 33-bit side channels with every stereo mode, LPC
// order 32 at full precision, variable block sizes, long Rice quotients),
// and the decoder must give back exactly the samples it was given.

type bitWriter struct {
	buf []byte
	acc uint64
	n   uint
}

func (w *bitWriter) write(v uint64, k uint) {
	for k > 0 {
		take := min(k, 8-w.n%8)
		if w.n%8 == 0 {
			w.buf = append(w.buf, 0)
		}
		bitsv := (v >> (k - take)) & (1<<take - 1)
		w.buf[len(w.buf)-1] |= byte(bitsv << (8 - w.n%8 - take))
		w.n += take
		k -= take
	}
}

func (w *bitWriter) writeSigned(v int64, k uint) {
	if k < 64 && (v < -1<<(k-1) || v >= 1<<(k-1)) {
		panic("test encoder: value does not fit its field")
	}
	w.write(uint64(v)&(1<<k-1), k)
}

func (w *bitWriter) unary(q uint64) {
	for ; q >= 32; q -= 32 {
		w.write(0, 32)
	}
	w.write(1, uint(q)+1)
}

func (w *bitWriter) align() {
	if r := w.n % 8; r != 0 {
		w.write(0, 8-r)
	}
}

// subframe describes how to code one channel of a frame.
type subframe struct {
	kind   int // 0 constant, 1 verbatim, 2 fixed, 3 LPC
	order  int
	coefs  []int32
	prec   uint
	shift  uint
	wasted uint
	method int  // 0: 4-bit Rice parameters, 1: 5-bit
	porder uint // partition order
	// param returns the Rice parameter for partition p, or -1 to escape
	// it with raw bits of width escBits.
	param   func(p int) int
	escBits uint
}

func (w *bitWriter) utf8(v uint64) {
	switch {
	case v < 0x80:
		w.write(v, 8)
		return
	}
	n := 1
	for ; n < 7 && v >= 1<<(5*n+6); n++ {
	}
	// n continuation bytes
	lead := uint64(0xff) << (7 - n) & 0xff
	w.write(lead|v>>(6*n), 8)
	for i := n - 1; i >= 0; i-- {
		w.write(0x80|(v>>(6*i))&0x3f, 8)
	}
}

// frame codes one frame. samples[c] are the channel's coded samples
// (already decorrelated: side channels hold 33-bit values).
func encodeFrame(t testing.TB, variable bool, number uint64, chCode int, bps int, samples [][]int64, subs []subframe) []byte {
	t.Helper()
	bs := len(samples[0])
	w := &bitWriter{}
	w.write(0xfff8, 16)
	if variable {
		w.buf[1] |= 1
	}
	w.write(7, 4) // 16-bit block size at the end of the header
	w.write(0, 4) // sample rate from STREAMINFO
	w.write(uint64(chCode), 4)
	w.write(0, 3) // bits per sample from STREAMINFO
	w.write(0, 1)
	w.utf8(number)
	w.write(uint64(bs-1), 16)
	w.write(uint64(crc8(0, w.buf)), 8)
	for c, s := range samples {
		sb := uint(bps)
		if (chCode == 8 || chCode == 10) && c == 1 || chCode == 9 && c == 0 {
			sb++
		}
		encodeSubframe(t, w, s, sb, subs[c])
	}
	w.align()
	w.write(uint64(crc16(0, w.buf)), 16)
	return w.buf
}

func encodeSubframe(t testing.TB, w *bitWriter, x []int64, bps uint, sf subframe) {
	t.Helper()
	w.write(0, 1)
	switch sf.kind {
	case 0:
		w.write(0, 6)
	case 1:
		w.write(1, 6)
	case 2:
		w.write(uint64(8+sf.order), 6)
	case 3:
		w.write(uint64(31+sf.order), 6)
	}
	if sf.wasted > 0 {
		w.write(1, 1)
		w.unary(uint64(sf.wasted - 1))
		y := make([]int64, len(x))
		for i, v := range x {
			if v&(1<<sf.wasted-1) != 0 {
				t.Fatal("samples do not have the wasted bits")
			}
			y[i] = v >> sf.wasted
		}
		x = y
		bps -= sf.wasted
	} else {
		w.write(0, 1)
	}
	switch sf.kind {
	case 0:
		w.writeSigned(x[0], bps)
		return
	case 1:
		for _, v := range x {
			w.writeSigned(v, bps)
		}
		return
	}
	for _, v := range x[:sf.order] {
		w.writeSigned(v, bps)
	}
	res := make([]int64, len(x))
	for i := sf.order; i < len(x); i++ {
		var p int64
		if sf.kind == 2 {
			switch sf.order {
			case 1:
				p = x[i-1]
			case 2:
				p = 2*x[i-1] - x[i-2]
			case 3:
				p = 3*x[i-1] - 3*x[i-2] + x[i-3]
			case 4:
				p = 4*x[i-1] - 6*x[i-2] + 4*x[i-3] - x[i-4]
			}
		} else {
			for j, c := range sf.coefs {
				p += int64(c) * x[i-1-j]
			}
			p >>= sf.shift
		}
		res[i] = x[i] - p
		if res[i] < -1<<31 || res[i] >= 1<<31 {
			t.Fatalf("residual %d does not fit 32 bits", res[i])
		}
	}
	if sf.kind == 3 {
		w.write(uint64(sf.prec-1), 4)
		w.write(uint64(sf.shift), 5)
		for _, c := range sf.coefs {
			w.writeSigned(int64(c), sf.prec)
		}
	}
	w.write(uint64(sf.method), 2)
	w.write(uint64(sf.porder), 4)
	pbits, escape := uint(4), uint64(15)
	if sf.method == 1 {
		pbits, escape = 5, 31
	}
	psize := len(x) >> sf.porder
	for p := range 1 << sf.porder {
		start := p * psize
		if p == 0 {
			start = sf.order
		}
		part := res[start : (p+1)*psize]
		k := sf.param(p)
		if k < 0 {
			w.write(escape, pbits)
			w.write(uint64(sf.escBits), 5)
			for _, r := range part {
				if sf.escBits > 0 {
					w.writeSigned(r, sf.escBits)
				}
			}
			continue
		}
		w.write(uint64(k), pbits)
		for _, r := range part {
			u := uint64(r<<1) ^ uint64(r>>63)
			w.unary(u >> uint(k))
			w.write(u&(1<<uint(k)-1), uint(k))
		}
	}
}

// streamHeader is fLaC and a STREAMINFO block (the last metadata block
// unless more follow).
func streamHeader(rate, channels, bps int, total uint64, maxBlock int, last bool) []byte {
	w := &bitWriter{}
	w.buf = append(w.buf, "fLaC"...)
	w.n = 32
	if last {
		w.write(1, 1)
	} else {
		w.write(0, 1)
	}
	w.write(0, 7)
	w.write(34, 24)
	w.write(16, 16)
	w.write(uint64(maxBlock), 16)
	w.write(0, 24)
	w.write(0, 24)
	w.write(uint64(rate), 20)
	w.write(uint64(channels-1), 3)
	w.write(uint64(bps-1), 5)
	w.write(total, 36)
	w.write(0, 64)
	w.write(0, 64)
	return w.buf
}

func constParam(k int) func(int) int { return func(int) int { return k } }

// decodeAllInts decodes a synthetic stream to interleaved samples.
func decodeAllInts(t *testing.T, stream []byte) []int32 {
	t.Helper()
	d, err := NewDecoder(bytes.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeInts(d)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func interleave(ch ...[]int64) []int32 {
	var out []int32
	for i := range ch[0] {
		for _, c := range ch {
			out = append(out, int32(c[i]))
		}
	}
	return out
}

func randSamples(r *rand.Rand, n int, bps uint, smooth bool) []int64 {
	x := make([]int64, n)
	lo, hi := int64(-1)<<(bps-1), int64(1)<<(bps-1)-1
	var v float64
	for i := range x {
		if smooth {
			v = v*0.99 + (r.Float64()-0.5)*float64(hi)*0.04
			x[i] = max(lo, min(hi, int64(v)))
		} else {
			x[i] = lo + r.Int64N(hi-lo+1)
		}
	}
	return x
}

// TestSynthetic32BitStereo codes full-scale 32-bit stereo in every stereo
// mode, so that the side channel needs 33 bits, with each subframe kind.
func TestSynthetic32BitStereo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const bs = 1024
	l := randSamples(r, bs, 32, false)
	rt := randSamples(r, bs, 32, false)
	l[0], rt[0] = -1<<31, 1<<31-1 // the widest side value
	l[1], rt[1] = 1<<31-1, -1<<31
	side := make([]int64, bs)
	mid := make([]int64, bs)
	for i := range l {
		side[i] = l[i] - rt[i]
		mid[i] = (l[i] + rt[i]) >> 1
	}
	verb := subframe{kind: 1}
	for _, tc := range []struct {
		name   string
		code   int
		a, b   []int64
		sa, sb subframe
	}{
		{"independent", 1, l, rt, verb, verb},
		{"left/side", 8, l, side, verb, verb},
		{"side/right", 9, side, rt, verb, verb},
		{"mid/side", 10, mid, side, verb, verb},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stream := streamHeader(48000, 2, 32, bs, bs, true)
			stream = append(stream, encodeFrame(t, false, 0, tc.code, 32, [][]int64{tc.a, tc.b}, []subframe{tc.sa, tc.sb})...)
			got := decodeAllInts(t, stream)
			if want := interleave(l, rt); !slices.Equal(got, want) {
				t.Fatalf("samples differ")
			}
		})
	}
	// The 33-bit side channel with fixed and LPC prediction and wasted
	// bits: smooth signals keep residuals within 32 bits.
	ls := randSamples(r, bs, 30, true)
	rs := randSamples(r, bs, 30, true)
	for i := range ls {
		ls[i] *= 4 // 32-bit range, two wasted bits
		rs[i] = -rs[i] * 4
	}
	side = make([]int64, bs)
	mid = make([]int64, bs)
	for i := range ls {
		side[i] = ls[i] - rs[i]
		mid[i] = (ls[i] + rs[i]) >> 1
	}
	for order := 1; order <= 4; order++ {
		for _, code := range []int{8, 9, 10} {
			a, b := ls, side
			switch code {
			case 9:
				a, b = side, rs
			case 10:
				a, b = mid, side
			}
			sf := subframe{kind: 2, order: order, method: 1, porder: 3, param: constParam(20)}
			sw := sf
			if code != 10 {
				sw.wasted = 2
			}
			subs := []subframe{sf, sw}
			if code == 9 {
				subs = []subframe{sw, sf}
			}
			stream := streamHeader(48000, 2, 32, bs, bs, true)
			stream = append(stream, encodeFrame(t, false, 0, code, 32, [][]int64{a, b}, subs)...)
			if got := decodeAllInts(t, stream); !slices.Equal(got, interleave(ls, rs)) {
				t.Fatalf("fixed order %d, mode %d: samples differ", order, code)
			}
		}
	}
	lpc := subframe{kind: 3, order: 3, coefs: []int32{2 << 10, -1 << 10, 0}, prec: 15, shift: 10, method: 1, param: constParam(25)}
	stream := streamHeader(48000, 2, 32, bs, bs, true)
	stream = append(stream, encodeFrame(t, false, 0, 10, 32, [][]int64{mid, side}, []subframe{lpc, lpc})...)
	if got := decodeAllInts(t, stream); !slices.Equal(got, interleave(ls, rs)) {
		t.Fatal("LPC on a 33-bit side channel: samples differ")
	}
}

// TestSyntheticLPC codes every LPC order with full-precision coefficients
// and shifts, on 24-bit audio, so sums need 64 bits.
func TestSyntheticLPC(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const bs = 600
	x := randSamples(r, bs, 24, true)
	for order := 1; order <= 32; order++ {
		coefs := make([]int32, order)
		for j := range coefs {
			coefs[j] = int32(r.IntN(1<<15) - 1<<14)
		}
		coefs[0] = -1 << 14
		// sum |c| <= 2^19, so with these shifts |prediction| < 2^29,
		// while the sums reach 2^42.
		shift := uint(13 + order%3)
		// Residuals are large; Rice parameter 30 with method 1, or escape.
		sf := subframe{kind: 3, order: order, coefs: coefs, prec: 15, shift: shift, method: 1, porder: 0, param: constParam(30)}
		if order%2 == 0 {
			sf.param = constParam(-1)
			sf.escBits = 31
			if order < 8 {
				sf.porder = 3
			}
		}
		stream := streamHeader(96000, 1, 24, bs, bs, true)
		stream = append(stream, encodeFrame(t, false, 0, 0, 24, [][]int64{x}, []subframe{sf})...)
		if got := decodeAllInts(t, stream); !slices.Equal(got, interleave(x)) {
			t.Fatalf("LPC order %d: samples differ", order)
		}
	}
}

// TestSyntheticRice exercises Rice parameters 0 to 30, long quotients that
// leave the fast path, escapes with zero bits and variable block sizes.
func TestSyntheticRice(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	stream := streamHeader(44100, 1, 16, 0, 4096, true)
	var want []int64
	var pos uint64
	for f, bs := range []int{16, 4096, 17, 1000, 1, 3000, 4096, 256} {
		x := randSamples(r, bs, 16, true)
		var sf subframe
		switch f % 4 {
		case 0: // Rice parameter varies by partition, including 0 (long unary codes)
			porder := uint(0)
			for bs%(1<<(porder+1)) == 0 && porder < 4 {
				porder++
			}
			sf = subframe{kind: 2, order: 0, porder: porder, param: func(p int) int { return []int{0, 14, 3, 7, 1, 0, 9, 12, 2, 5, 0, 8, 4, 6, 11, 13}[p] }}
		case 1: // method 1 with parameters up to 30
			sf = subframe{kind: 2, order: 1, method: 1, param: constParam(f*4 + 2)}
		case 2: // verbatim
			sf = subframe{kind: 1}
		case 3: // escaped with 0 bits: all residuals zero
			for i := range x {
				x[i] = 1234
			}
			sf = subframe{kind: 2, order: 1, param: constParam(-1)}
		}
		if bs < 4 && sf.kind == 2 {
			sf = subframe{kind: 0}
			for i := range x {
				x[i] = -7
			}
		}
		stream = append(stream, encodeFrame(t, true, pos, 0, 16, [][]int64{x}, []subframe{sf})...)
		pos += uint64(bs)
		want = append(want, x...)
	}
	if got := decodeAllInts(t, stream); !slices.Equal(got, interleave(want)) {
		t.Fatal("samples differ")
	}
	// Huge residuals with parameter 0: quotients of thousands of bits.
	x := []int64{0, 5000, -5000, 32767, -32768, 0, 1, -1}
	stream = streamHeader(44100, 1, 16, 8, 16, true)
	stream = append(stream, encodeFrame(t, false, 0, 0, 16, [][]int64{x}, []subframe{{kind: 2, order: 0, param: constParam(0)}})...)
	if got := decodeAllInts(t, stream); !slices.Equal(got, interleave(x)) {
		t.Fatal("long quotients: samples differ")
	}
}

// TestSyntheticBitDepths codes every bit depth from 4 to 32 with fixed
// predictors of every order at full scale (wrapping intermediate sums).
func TestSyntheticBitDepths(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for bps := 4; bps <= 32; bps++ {
		const bs = 200
		var chans [][]int64
		var subs []subframe
		for order := 0; order <= 4; order++ {
			x := randSamples(r, bs, uint(bps), order > 0)
			chans = append(chans, x)
			sf := subframe{kind: 2, order: order, method: 1, porder: 1, param: constParam(-1), escBits: uint(bps + 4)}
			if bps+4 > 31 {
				sf.param = constParam(min(bps, 30))
			}
			subs = append(subs, sf)
		}
		chans = append(chans, randSamples(r, bs, uint(bps), false))
		subs = append(subs, subframe{kind: 1})
		stream := streamHeader(8000, len(chans), bps, bs, bs, true)
		stream = append(stream, encodeFrame(t, false, 0, len(chans)-1, bps, chans, subs)...)
		d, err := NewDecoder(bytes.NewReader(stream))
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeInts(d)
		if err != nil {
			t.Fatalf("%d bits: %v", bps, err)
		}
		if !slices.Equal(got, interleave(chans...)) {
			t.Fatalf("%d bits: samples differ", bps)
		}
	}
}
