package vorbis

import (
	"math"
	"math/rand"
	"testing"
)

// TestDCT4 checks the FFT-based DCT-IV against the direct formula, and the
// IMDCT identities used by overlapAdd against the direct IMDCT.
func TestDCT4(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{64, 128, 256, 512, 1024, 2048, 4096, 8192} {
		m := n / 2
		x := make([]float32, m)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		u := make([]float32, m)
		tr := newIMDCT(n)
		tr.dct4(x, u)
		var maxErr, maxVal float64
		for j := 0; j < m; j++ {
			var s float64
			for k := 0; k < m; k++ {
				s += float64(x[k]) * math.Cos(math.Pi/float64(m)*(float64(j)+0.5)*(float64(k)+0.5))
			}
			maxErr = math.Max(maxErr, math.Abs(s-float64(u[j])))
			maxVal = math.Max(maxVal, math.Abs(s))
		}
		if maxErr > 1e-5*maxVal {
			t.Errorf("n=%d: DCT-IV max error %g (max value %g)", n, maxErr, maxVal)
		}
		if n > 1024 {
			continue
		}
		// IMDCT identities.
		for i := 0; i < n; i++ {
			var y float64
			for k := 0; k < m; k++ {
				y += float64(x[k]) * math.Cos(2*math.Pi/float64(n)*(float64(i)+0.5+float64(n)/4)*(float64(k)+0.5))
			}
			var got float32
			switch {
			case i < m/2:
				got = u[m/2+i]
			case i < m:
				got = -u[3*m/2-1-i]
			case i < m+m/2:
				got = -u[m/2-1-(i-m)]
			default:
				got = -u[i-m-m/2]
			}
			if math.Abs(y-float64(got)) > 1e-5*maxVal {
				t.Fatalf("n=%d i=%d: IMDCT %g, from DCT-IV %g", n, i, y, got)
			}
		}
	}
}

func BenchmarkDCT4(b *testing.B) {
	tr := newIMDCT(2048)
	x := make([]float32, 1024)
	u := make([]float32, 1024)
	for i := range x {
		x[i] = float32(i%7) - 3
	}
	for i := 0; i < b.N; i++ {
		tr.dct4(x, u)
	}
}

func BenchmarkFFT512(b *testing.B) {
	zi := make([]float32, 512)
	tr := newIMDCT(2048)
	z := make([]float32, 512)
	for i := 0; i < b.N; i++ {
		tr.radix4Passes(z, zi)
	}
}

func TestUncouple(t *testing.T) {
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, -0.25, 3, -7}
	for _, m := range vals {
		for _, a := range vals {
			wm, wa := m, a
			if m > 0 {
				if a > 0 {
					wa = m - a
				} else {
					wa, wm = m, m+a
				}
			} else {
				if a > 0 {
					wa = m + a
				} else {
					wa, wm = m, m-a
				}
			}
			mag, ang := []float32{m}, []float32{a}
			uncouple(mag, ang)
			if mag[0] != wm || ang[0] != wa {
				t.Errorf("uncouple(%v, %v) = %v, %v; want %v, %v", m, a, mag[0], ang[0], wm, wa)
			}
		}
	}
}

// renderLineRef is the Vorbis spec's render_line, multiplying v.
func renderLineRef(x0 int, y0 int32, x1 int, y1 int32, v []float32) {
	dy := int(y1 - y0)
	adx := x1 - x0
	ady := dy
	if ady < 0 {
		ady = -ady
	}
	base := dy / adx
	sy := base + 1
	if dy < 0 {
		sy = base - 1
	}
	abase := base
	if abase < 0 {
		abase = -abase
	}
	ady -= abase * adx
	x, y, err := x0, int(y0), 0
	if x < len(v) {
		v[x] *= floor1InverseDB[y]
	}
	for x = x0 + 1; x < x1; x++ {
		err += ady
		if err >= adx {
			err -= adx
			y += sy
		} else {
			y += base
		}
		if x < len(v) {
			v[x] *= floor1InverseDB[y]
		}
	}
}

func TestRenderLine(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for iter := 0; iter < 20000; iter++ {
		n := 1 << (5 + rng.Intn(8)) // 32..4096
		x0 := rng.Intn(n)
		x1 := x0 + 1 + rng.Intn(1<<(1+rng.Intn(15)))
		if x1 > 1<<15 {
			x1 = 1 << 15
		}
		if x1 <= x0 {
			continue
		}
		y0, y1 := int32(rng.Intn(256)), int32(rng.Intn(256))
		a := make([]float32, n)
		b := make([]float32, n)
		for i := range a {
			a[i], b[i] = 1, 1
		}
		renderLine(x0, y0, x1, y1, a)
		renderLineRef(x0, y0, x1, y1, b)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("line (%d,%d)-(%d,%d), n=%d: x=%d: %g, want %g", x0, y0, x1, y1, n, i, a[i], b[i])
			}
		}
	}
}

func TestFloat32Unpack(t *testing.T) {
	for bits, want := range map[uint32]float32{0x60100000: 1, 0xE0100000: -1, 0x60300000: 2, 0x600C0000: 0.75} {
		if got := float32Unpack(bits); got != want {
			t.Errorf("float32Unpack(%#x) = %v, want %v", bits, got, want)
		}
	}
}
