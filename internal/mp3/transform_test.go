package mp3

import (
	"math"
	"math/rand"
	"testing"
)

func TestDCT32(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	var buf [559]float32
	var in, out [32]float32
	for i := range in {
		in[i] = float32(rng.NormFloat64())
		buf[18*i] = in[i]
	}
	dct32(&buf, &out)
	for k := 0; k < 32; k++ {
		var s float64
		for n := 0; n < 32; n++ {
			s += float64(in[n]) * math.Cos(math.Pi*float64((2*n+1)*k)/64)
		}
		if math.Abs(s-float64(out[k])) > 1e-4 {
			t.Fatalf("k=%d: %v want %v", k, out[k], s)
		}
	}
}

func TestIMDCT(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	for _, bt := range []int{0, 1, 2, 3} {
		var x, ov, out [18]float32
		var want [36]float64
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		// window as in the standard
		win := func(i int) float64 {
			s36 := math.Sin(math.Pi / 36 * (float64(i) + 0.5))
			switch bt {
			case 1:
				switch {
				case i < 18:
					return s36
				case i < 24:
					return 1
				case i < 30:
					return math.Sin(math.Pi / 12 * (float64(i-18) + 0.5))
				}
				return 0
			case 3:
				switch {
				case i < 6:
					return 0
				case i < 12:
					return math.Sin(math.Pi / 12 * (float64(i-6) + 0.5))
				case i < 18:
					return 1
				}
			}
			return s36
		}
		if bt == 2 {
			for w := 0; w < 3; w++ {
				for i := 0; i < 12; i++ {
					var s float64
					for k := 0; k < 6; k++ {
						s += float64(x[3*k+w]) * math.Cos(math.Pi/24*float64((2*i+7)*(2*k+1)))
					}
					want[6+6*w+i] += s * math.Sin(math.Pi/12*(float64(i)+0.5))
				}
			}
			imdct12x3(&x, &ov, &out)
		} else {
			for i := 0; i < 36; i++ {
				var s float64
				for k := 0; k < 18; k++ {
					s += float64(x[k]) * math.Cos(math.Pi/72*float64((2*i+19)*(2*k+1)))
				}
				want[i] = s * win(i)
			}
			imdct36(&x, &ov, &out, &imdctWin[bt])
		}
		for i := 0; i < 36; i++ {
			got := out[i%18]
			if i >= 18 {
				got = ov[i-18]
			}
			if math.Abs(float64(got)-want[i]) > 1e-4 {
				t.Fatalf("bt %d i %d: %v want %v", bt, i, got, want[i])
			}
		}
	}
}

// TestSynth compares the fast synthesis with the ISO reference algorithm.
func TestSynth(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var s synthState
	var v [1024]float64
	var d [512]float64
	for i, x := range synthWindowD {
		d[i] = float64(x)
	}
	for gr := 0; gr < 3; gr++ {
		var in [18][32]float32
		var sbm [576]float32
		for i := range in {
			for j := range in[i] {
				in[i][j] = float32(rng.NormFloat64() * 0.02)
				sbm[18*j+i] = in[i][j]
			}
		}
		var out [576]float32
		s.synthGranule(&sbm, out[:], 0, 1)
		for ts := 0; ts < 18; ts++ {
			copy(v[64:], v[:1024-64])
			for i := 0; i < 64; i++ {
				var sum float64
				for k := 0; k < 32; k++ {
					sum += math.Cos(float64((16+i)*(2*k+1))*math.Pi/64) * float64(in[ts][k])
				}
				v[i] = sum
			}
			for j := 0; j < 32; j++ {
				var sum float64
				for i := 0; i < 8; i++ {
					sum += d[64*i+j]*v[128*i+j] + d[64*i+32+j]*v[128*i+96+j]
				}
				if math.Abs(sum-float64(out[ts*32+j])) > 1e-4 {
					t.Fatalf("granule %d slot %d j %d: %v want %v", gr, ts, j, out[ts*32+j], sum)
				}
			}
		}
	}
}

func TestHuffmanTrees(t *testing.T) {
	seen := map[int]bool{}
	for tab, o := range treeOffsets {
		if o.off < 0 || seen[o.off] {
			continue
		}
		seen[o.off] = true
		var kraft float64
		for _, c := range walkTree(o.off) {
			kraft += math.Ldexp(1, -int(c.len))
		}
		if math.Abs(kraft-1) > 1e-12 {
			t.Errorf("table %d: Kraft sum %v", tab, kraft)
		}
	}
}
