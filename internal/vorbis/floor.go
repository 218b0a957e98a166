package vorbis

import (
	"errors"
	"math"
)

var floor1Ranges = [4]int32{256, 128, 86, 64}

// decodeFloor1 reads a floor 1 curve's Y values into y. It returns false when
// the floor is unused for this channel (or the packet ends inside it).
func (d *Decoder) decodeFloor1(f *floor1, br *bitReader, y []int32) (bool, error) {
	if !br.read1() {
		return false, nil
	}
	rng := floor1Ranges[f.multiplier-1]
	nb := ilog(uint32(rng - 1))
	y[0] = int32(br.read(nb))
	y[1] = int32(br.read(nb))
	off := 2
	for _, c := range f.partitionClass {
		cdim := f.classDims[c]
		cbits := f.classSubBits[c]
		csub := 1<<cbits - 1
		cval := 0
		if cbits > 0 {
			cval = d.books[f.classMaster[c]].decode(br)
			if cval < 0 {
				if br.pastEnd() {
					return false, nil
				}
				return false, errBadCodeword
			}
		}
		for j := 0; j < cdim; j++ {
			b := f.classSubBooks[c][cval&csub]
			cval >>= cbits
			v := 0
			if b >= 0 {
				v = d.books[b].decode(br)
				if v < 0 {
					if br.pastEnd() {
						return false, nil
					}
					return false, errBadCodeword
				}
			}
			y[off] = int32(v)
			off++
		}
	}
	if br.pastEnd() {
		return false, nil
	}
	return true, nil
}

func renderPoint(x0 int, y0 int32, x1 int, y1 int32, x int) int32 {
	dy := int(y1) - int(y0)
	adx := x1 - x0
	ady := dy
	if ady < 0 {
		ady = -ady
	}
	off := int32(ady * (x - x0) / adx)
	if dy < 0 {
		return y0 - off
	}
	return y0 + off
}

// applyFloor1 computes the floor curve from the Y values and multiplies the
// first n values of spec by it.
func (d *Decoder) applyFloor1(f *floor1, y []int32, spec []float32) {
	n := len(spec)
	rng := floor1Ranges[f.multiplier-1]
	fy := d.floorFinal[:len(f.xList)]
	step2 := d.floorStep2[:len(f.xList)]
	fy[0], fy[1] = y[0], y[1]
	step2[0], step2[1] = true, true
	x := f.xList
	for i := 2; i < len(x); i++ {
		lo, hi := f.low[i], f.high[i]
		pred := renderPoint(x[lo], fy[lo], x[hi], fy[hi], x[i])
		val := y[i]
		hiRoom := rng - pred
		loRoom := pred
		room := hiRoom
		if loRoom < room {
			room = loRoom
		}
		room *= 2
		if val != 0 {
			step2[lo], step2[hi], step2[i] = true, true, true
			switch {
			case val >= room:
				if hiRoom > loRoom {
					fy[i] = val - loRoom + pred
				} else {
					fy[i] = pred - val + hiRoom - 1
				}
			case val&1 != 0:
				fy[i] = pred - (val+1)/2
			default:
				fy[i] = pred + val/2
			}
		} else {
			step2[i] = false
			fy[i] = pred
		}
	}
	mult := int32(f.multiplier)
	clampY := func(v int32) int32 {
		v *= mult
		if v < 0 {
			return 0
		}
		if v > 255 {
			return 255
		}
		return v
	}
	lx, ly := 0, clampY(fy[0])
	for _, i := range f.sorted[1:] {
		if !step2[i] {
			continue
		}
		hx, hy := x[i], clampY(fy[i])
		renderLine(lx, ly, hx, hy, spec)
		lx, ly = hx, hy
		if lx >= n {
			return
		}
	}
	if lx < n {
		v := floor1InverseDB[ly&255]
		s := spec[lx:n]
		for i := range s {
			s[i] *= v
		}
	}
}

// renderLine multiplies v[x0:min(x1,len(v))] by the floor line from (x0,y0)
// to (x1,y1). y0 and y1 are within [0,255].
func renderLine(x0 int, y0 int32, x1 int, y1 int32, v []float32) {
	end := x1
	if end > len(v) {
		end = len(v)
	}
	if x0 >= end {
		return
	}
	dy := int(y1 - y0)
	adx := x1 - x0
	base := dy / adx
	ady := dy
	if ady < 0 {
		ady = -ady
	}
	abase := base
	if dy < 0 {
		abase = -base
	}
	ady -= abase * adx
	y := int(y0)
	tab := &floor1InverseDB
	v = v[x0:end]
	v[0] *= tab[y&255]
	if ady == 0 {
		// y changes by base at every step.
		for i := 1; i < len(v); i++ {
			y += base
			v[i] *= tab[y&255]
		}
		return
	}
	// After i steps, Bresenham's y is y0 + base*i + sign(dy)*floor(ady*i/adx)
	// (ady is now the remainder |dy| mod adx). The floor is computed with a
	// multiplication by a rounded-up reciprocal, exact for ady*i*adx < 2^48
	// (adx <= 2^15 and i < 4096 here), so that there is no loop-carried
	// dependency but two additions.
	rcp := (uint64(1)<<48 + uint64(adx) - 1) / uint64(adx)
	neg := 0
	if dy < 0 {
		neg = -1
	}
	r := uint64(ady)
	a := uint64(0)
	yb := y
	for i := 1; i < len(v); i++ {
		a += r
		yb += base
		q := int((a * rcp) >> 48)
		v[i] *= tab[(yb+(q^neg)-neg)&255]
	}
}

// decodeFloor0 reads a floor 0 curve: the amplitude and the LSP coefficients.
// It returns false when the floor is unused.
func (d *Decoder) decodeFloor0(f *floor0, br *bitReader, coef []float32) (float64, bool, error) {
	var amp uint64
	if f.amplitudeBits > 32 {
		lo := uint64(br.read(32))
		amp = lo | uint64(br.read(f.amplitudeBits-32))<<32
	} else {
		amp = uint64(br.read(f.amplitudeBits))
	}
	if amp == 0 || br.pastEnd() {
		return 0, false, nil
	}
	bn := int(br.read(ilog(uint32(len(f.books)))))
	if br.pastEnd() {
		return 0, false, nil
	}
	if bn >= len(f.books) {
		return 0, false, errors.New("floor 0 book number out of range")
	}
	book := d.books[f.books[bn]]
	if book.values == nil {
		return 0, false, errors.New("floor 0 book has no vector values")
	}
	last := float32(0)
	i := 0
	for i < f.order {
		e := book.decode(br)
		if br.pastEnd() {
			return 0, false, nil
		}
		if e < 0 {
			return 0, false, errBadCodeword
		}
		vals := book.values[e*book.dims : (e+1)*book.dims]
		for _, v := range vals {
			if i < f.order {
				coef[i] = v + last
			}
			i++
		}
		last = vals[len(vals)-1] + last
	}
	return float64(amp), true, nil
}

func bark(x float64) float64 {
	return 13.1*math.Atan(.00074*x) + 2.24*math.Atan(.0000000185*x*x) + .0001*x
}

// applyFloor0 multiplies spec by the floor 0 curve.
func (d *Decoder) applyFloor0(f *floor0, blockFlag int, amp float64, coef []float32, spec []float32) {
	n := len(spec)
	m := f.maps[blockFlag]
	if len(m) != n {
		m = make([]int32, n)
		scale := float64(f.barkMapSize) / bark(.5*float64(f.rate))
		for i := range m {
			v := int32(math.Floor(bark(float64(f.rate)*float64(i)/(2*float64(n))) * scale))
			if v > int32(f.barkMapSize)-1 {
				v = int32(f.barkMapSize) - 1
			}
			m[i] = v
		}
		f.maps[blockFlag] = m
	}
	var cosCoef [256]float64
	for j := 0; j < f.order; j++ {
		cosCoef[j] = math.Cos(float64(coef[j]))
	}
	ampScale := amp * float64(f.amplitudeOffset) / (math.Ldexp(1, int(f.amplitudeBits)) - 1)
	for i := 0; i < n; {
		w := math.Pi * float64(m[i]) / float64(f.barkMapSize)
		cw := math.Cos(w)
		var p, q float64
		if f.order&1 == 1 {
			p = 1 - cw*cw
			for j := 1; j < f.order; j += 2 {
				t := cosCoef[j] - cw
				p *= 4 * t * t
			}
			q = 0.25
			for j := 0; j < f.order; j += 2 {
				t := cosCoef[j] - cw
				q *= 4 * t * t
			}
		} else {
			p = (1 - cw) / 2
			for j := 1; j < f.order; j += 2 {
				t := cosCoef[j] - cw
				p *= 4 * t * t
			}
			q = (1 + cw) / 2
			for j := 0; j < f.order; j += 2 {
				t := cosCoef[j] - cw
				q *= 4 * t * t
			}
		}
		v := float32(math.Exp(.11512925 * (ampScale/math.Sqrt(p+q) - float64(f.amplitudeOffset))))
		if math.IsNaN(float64(v)) {
			v = 0
		}
		cur := m[i]
		for i < n && m[i] == cur {
			spec[i] *= v
			i++
		}
	}
}
