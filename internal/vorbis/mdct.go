package vorbis

import (
	"math"
	"math/bits"
)

// imdct computes the Vorbis inverse MDCT of a block of n samples through a
// DCT-IV of size m = n/2, which in turn uses a complex FFT of size l = n/4.
//
// With u = DCT-IV(X), u[j] = sum_k X[k] cos(pi/m (j+1/2)(k+1/2)), the IMDCT
// output y[i] = sum_k X[k] cos(2pi/n (i + 1/2 + n/4)(k + 1/2)) is
//
//	y[i]       =  u[m/2 + i]        for 0 <= i < m/2
//	y[i]       = -u[3m/2 - 1 - i]   for m/2 <= i < m
//	y[m + r]   = -u[m/2 - 1 - r]    for 0 <= r < m/2
//	y[m + r]   = -u[r - m/2]        for m/2 <= r < m
//
// so the left half of the block depends on u[m/2:] only and the right half
// on u[:m/2] only.
type imdct struct {
	n, m, l      int
	preC, preS   []float32 // cos, sin of pi(k+1/4)/m, k < l
	postC, postS []float32 // cos, sin of pi k/m, k < l
	rev          []int32   // bit reversal permutation of l
	passes       []fftPass // radix-4 passes after the first (trivial) one
	lastC, lastS []float32 // twiddles of a final radix-2 pass, if any
	zr, zi       []float32 // FFT work area
}

// fftPass holds the twiddles of a radix-4 pass with quarter-size h:
// w1 = e^{-2 pi i k/(4h)}, w2 = w1^2, w3 = w1^3 for k < h.
type fftPass struct {
	h                            int
	w1r, w1i, w2r, w2i, w3r, w3i []float32
}

func newIMDCT(n int) *imdct {
	t := &imdct{n: n, m: n / 2, l: n / 4}
	m, l := t.m, t.l
	t.preC, t.preS = make([]float32, l), make([]float32, l)
	t.postC, t.postS = make([]float32, l), make([]float32, l)
	for k := 0; k < l; k++ {
		a := math.Pi * (float64(k) + 0.25) / float64(m)
		t.preC[k], t.preS[k] = float32(math.Cos(a)), float32(math.Sin(a))
		b := math.Pi * float64(k) / float64(m)
		t.postC[k], t.postS[k] = float32(math.Cos(b)), float32(math.Sin(b))
	}
	lb := bits.TrailingZeros(uint(l))
	t.rev = make([]int32, l)
	for i := range t.rev {
		t.rev[i] = int32(bits.Reverse32(uint32(i)) >> (32 - uint(lb)))
	}
	for h := 4; 4*h <= l; h *= 4 {
		p := fftPass{h: h}
		mk := func(mult float64) ([]float32, []float32) {
			re, im := make([]float32, h), make([]float32, h)
			for k := 0; k < h; k++ {
				a := -2 * math.Pi * mult * float64(k) / float64(4*h)
				re[k], im[k] = float32(math.Cos(a)), float32(math.Sin(a))
			}
			return re, im
		}
		p.w1r, p.w1i = mk(1)
		p.w2r, p.w2i = mk(2)
		p.w3r, p.w3i = mk(3)
		t.passes = append(t.passes, p)
	}
	if lb%2 == 1 {
		h := l / 2
		t.lastC, t.lastS = make([]float32, h), make([]float32, h)
		for k := 0; k < h; k++ {
			a := -2 * math.Pi * float64(k) / float64(l)
			t.lastC[k], t.lastS[k] = float32(math.Cos(a)), float32(math.Sin(a))
		}
	}
	t.zr = make([]float32, l)
	t.zi = make([]float32, l)
	return t
}

// dct4 computes u = DCT-IV(x), len(x) = len(u) = m:
//
//  1. pre-twiddle: v[k] = (x[2k] + i x[m-1-2k]) e^{-i pi (k+1/4)/m}, k < l
//  2. V = FFT_l(v)
//  3. post-twiddle: w[k] = V[k] e^{-i pi k/m}; u[2k] = Re w[k],
//     u[m-1-2k] = -Im w[k].
//
// Step 1 is fused with the first FFT pass, and step 3 with the last one
// when that is a radix-2 pass.
func (t *imdct) dct4(x, u []float32) {
	m, l := t.m, t.l
	x = x[:m]
	u = u[:m]
	zr := t.zr[:l]
	zi := t.zi[:l]
	t.preAndFirstPass(x, zr, zi)
	t.radix4Passes(zr, zi)
	if t.lastC != nil {
		t.lastPassAndPost(zr, zi, u)
		return
	}
	postC, postS := t.postC[:l], t.postS[:l]
	for k, re := range zr {
		im := zi[k]
		c, s := postC[k], postS[k]
		u[2*k] = re*c + im*s
		u[m-1-2*k] = re*s - im*c
	}
}

// preAndFirstPass computes the pre-twiddled values in bit-reversed order and
// the first radix-4 pass (trivial twiddles) over them: output group
// g = rev[q] takes v[q], v[q+l/2], v[q+l/4], v[q+3l/4].
func (t *imdct) preAndFirstPass(x, zr, zi []float32) {
	m, l := t.m, t.l
	q4 := l / 4
	x = x[:m]
	c0, s0 := t.preC[0:q4], t.preS[0:q4]
	c1, s1 := t.preC[2*q4:3*q4], t.preS[2*q4:3*q4] // v[q + l/2]
	c2, s2 := t.preC[q4:2*q4], t.preS[q4:2*q4]     // v[q + l/4]
	c3, s3 := t.preC[3*q4:4*q4], t.preS[3*q4:4*q4] // v[q + 3l/4]
	rev := t.rev[:q4]
	for q, g := range rev {
		// v[p] for p = q, q+l/2, q+l/4, q+3l/4.
		p := q
		xa, xb := x[2*p], x[m-1-2*p]
		a0r, a0i := xa*c0[q]+xb*s0[q], xb*c0[q]-xa*s0[q]
		p = q + 2*q4
		xa, xb = x[2*p], x[m-1-2*p]
		a1r, a1i := xa*c1[q]+xb*s1[q], xb*c1[q]-xa*s1[q]
		p = q + q4
		xa, xb = x[2*p], x[m-1-2*p]
		a2r, a2i := xa*c2[q]+xb*s2[q], xb*c2[q]-xa*s2[q]
		p = q + 3*q4
		xa, xb = x[2*p], x[m-1-2*p]
		a3r, a3i := xa*c3[q]+xb*s3[q], xb*c3[q]-xa*s3[q]

		s0r, s0i := a0r+a1r, a0i+a1i
		d0r, d0i := a0r-a1r, a0i-a1i
		s1r, s1i := a2r+a3r, a2i+a3i
		d1r, d1i := a2r-a3r, a2i-a3i
		r := zr[g : g+4 : g+4]
		i := zi[g : g+4 : g+4]
		r[0], i[0] = s0r+s1r, s0i+s1i
		r[2], i[2] = s0r-s1r, s0i-s1i
		// x1 = d0 - i d1, x3 = d0 + i d1
		r[1], i[1] = d0r+d1i, d0i-d1r
		r[3], i[3] = d0r-d1i, d0i+d1r
	}
}

// radix4Passes runs the radix-4 passes after the first one.
func (t *imdct) radix4Passes(zr, zi []float32) {
	l := len(zr)
	zi = zi[:l]
	for pi := range t.passes {
		p := &t.passes[pi]
		h := p.h
		w1r, w1i := p.w1r[:h], p.w1i[:h]
		w2r, w2i := p.w2r[:h], p.w2i[:h]
		w3r, w3i := p.w3r[:h], p.w3i[:h]
		if h <= 16 {
			// Many short groups: loop over the twiddles outside.
			for k := 0; k < h; k++ {
				tw1r, tw1i := w1r[k], w1i[k]
				tw2r, tw2i := w2r[k], w2i[k]
				tw3r, tw3i := w3r[k], w3i[k]
				for g := k; g+3*h < l; g += 4 * h {
					a0r, a0i := zr[g], zi[g]
					x1r, x1i := zr[g+h], zi[g+h]
					x2r, x2i := zr[g+2*h], zi[g+2*h]
					x3r, x3i := zr[g+3*h], zi[g+3*h]
					a1r := x1r*tw2r - x1i*tw2i
					a1i := x1r*tw2i + x1i*tw2r
					a2r := x2r*tw1r - x2i*tw1i
					a2i := x2r*tw1i + x2i*tw1r
					a3r := x3r*tw3r - x3i*tw3i
					a3i := x3r*tw3i + x3i*tw3r
					s0r, s0i := a0r+a1r, a0i+a1i
					d0r, d0i := a0r-a1r, a0i-a1i
					s1r, s1i := a2r+a3r, a2i+a3i
					d1r, d1i := a2r-a3r, a2i-a3i
					zr[g], zi[g] = s0r+s1r, s0i+s1i
					zr[g+2*h], zi[g+2*h] = s0r-s1r, s0i-s1i
					zr[g+h], zi[g+h] = d0r+d1i, d0i-d1r
					zr[g+3*h], zi[g+3*h] = d0r-d1i, d0i+d1r
				}
			}
			continue
		}
		for g := 0; g+4*h <= l; g += 4 * h {
			r0 := zr[g:][:h]
			r1 := zr[g+h:][:h]
			r2 := zr[g+2*h:][:h]
			r3 := zr[g+3*h:][:h]
			i0 := zi[g:][:h]
			i1 := zi[g+h:][:h]
			i2 := zi[g+2*h:][:h]
			i3 := zi[g+3*h:][:h]
			for k := 0; k < h; k++ {
				a0r, a0i := r0[k], i0[k]
				x1r, x1i := r1[k], i1[k]
				x2r, x2i := r2[k], i2[k]
				x3r, x3i := r3[k], i3[k]
				// a1 = w2 x1, a2 = w1 x2, a3 = w3 x3
				a1r := x1r*w2r[k] - x1i*w2i[k]
				a1i := x1r*w2i[k] + x1i*w2r[k]
				a2r := x2r*w1r[k] - x2i*w1i[k]
				a2i := x2r*w1i[k] + x2i*w1r[k]
				a3r := x3r*w3r[k] - x3i*w3i[k]
				a3i := x3r*w3i[k] + x3i*w3r[k]
				s0r, s0i := a0r+a1r, a0i+a1i
				d0r, d0i := a0r-a1r, a0i-a1i
				s1r, s1i := a2r+a3r, a2i+a3i
				d1r, d1i := a2r-a3r, a2i-a3i
				r0[k], i0[k] = s0r+s1r, s0i+s1i
				r2[k], i2[k] = s0r-s1r, s0i-s1i
				r1[k], i1[k] = d0r+d1i, d0i-d1r
				r3[k], i3[k] = d0r-d1i, d0i+d1r
			}
		}
	}
}

// lastPassAndPost runs the final radix-2 pass and the post-twiddle.
func (t *imdct) lastPassAndPost(zr, zi, u []float32) {
	m, l := t.m, t.l
	h := l / 2
	u = u[:m]
	wc, ws := t.lastC[:h], t.lastS[:h]
	r0, r1 := zr[:h], zr[h:][:h]
	i0, i1 := zi[:h], zi[h:][:h]
	pc0, ps0 := t.postC[:h], t.postS[:h]
	pc1, ps1 := t.postC[h:][:h], t.postS[h:][:h]
	ua := u[:l]       // u[2k] for k < l
	ub := u[m-l:][:l] // u[m-1-2k] = ub[l-1-2k]... indexed below
	for k := 0; k < h; k++ {
		wr, wi := wc[k], ws[k]
		ar, ai := r1[k], i1[k]
		tr := ar*wr - ai*wi
		ti := ar*wi + ai*wr
		br, bi := r0[k], i0[k]
		// Outputs k and k+h of the FFT, post-twiddled.
		re, im := br+tr, bi+ti
		c, s := pc0[k], ps0[k]
		ua[2*k] = re*c + im*s
		ub[l-1-2*k] = re*s - im*c
		re, im = br-tr, bi-ti
		c, s = pc1[k], ps1[k]
		u[2*(k+h)] = re*c + im*s
		u[m-1-2*(k+h)] = re*s - im*c
	}
}
