package mp3

import "math"

// Hybrid filterbank: IMDCT with windowing and overlap-add.
//
// The 36-point IMDCT x[i] = sum_k X[k] cos(pi/72 (2i+19)(2k+1)) is an
// 18-point DCT-IV y[n] = sum_k X[k] cos(pi/72 (2n+1)(2k+1)) read as
// x[i] = y[i+9] (i<9), -y[26-i] (9<=i<27), -y[i-27] (i>=27).
// The DCT-IV is computed as y[n] = Z[n] / (2 cos(pi(2n+1)/72)) with Z the
// 18-point DCT-III of u[m] = X[m] + X[m-1], which splits into two 9-point
// DCT-IIIs. imdct36 itself is generated (gen_imdct.go, imdct36_gen.go).

var (
	// imdctWin[bt][i]: window for block type bt (0 normal, 1 start, 3 stop)
	// with the DCT-IV post-scaling and output sign folded in, indexed by
	// output position i.
	imdctWin [4][36]float32
	// imdct12: cos table and window for short blocks.
	imdct12c   [6][6]float32 // cos(pi/24 (2n+1)(2k+1))
	imdct12win [12]float32   // sin(pi/12 (i+0.5)) with sign folded in per mapping
	// antialias butterflies
	aaCs, aaCa [8]float32
)

func init() {
	var win [4][36]float64
	for i := 0; i < 36; i++ {
		win[0][i] = math.Sin(math.Pi / 36 * (float64(i) + 0.5))
	}
	for i := 0; i < 18; i++ {
		win[1][i] = win[0][i]
		win[3][i+18] = win[0][i+18]
	}
	for i := 18; i < 24; i++ {
		win[1][i] = 1
	}
	for i := 24; i < 30; i++ {
		win[1][i] = math.Sin(math.Pi / 12 * (float64(i-18) + 0.5))
	}
	for i := 6; i < 12; i++ {
		win[3][i] = math.Sin(math.Pi / 12 * (float64(i-6) + 0.5))
	}
	for i := 12; i < 18; i++ {
		win[3][i] = 1
	}
	for bt := 0; bt < 4; bt++ {
		for i := 0; i < 36; i++ {
			var n int
			sign := 1.0
			switch {
			case i < 9:
				n = i + 9
			case i < 27:
				n = 26 - i
				sign = -1
			default:
				n = i - 27
				sign = -1
			}
			post := 1 / (2 * math.Cos(math.Pi*float64(2*n+1)/72))
			imdctWin[bt][i] = float32(win[bt][i] * sign * post)
		}
	}
	for n := 0; n < 6; n++ {
		for k := 0; k < 6; k++ {
			imdct12c[n][k] = float32(math.Cos(math.Pi / 24 * float64((2*n+1)*(2*k+1))))
		}
	}
	for i := 0; i < 12; i++ {
		imdct12win[i] = float32(math.Sin(math.Pi / 12 * (float64(i) + 0.5)))
	}
	c := [8]float64{-0.6, -0.535, -0.33, -0.185, -0.095, -0.041, -0.0142, -0.0037}
	for i, v := range c {
		sq := math.Sqrt(1 + v*v)
		aaCs[i] = float32(1 / sq)
		aaCa[i] = float32(v / sq)
	}
}

// imdct12x3 handles one subband of a short block: three 12-point IMDCTs of
// the interleaved windows x[3k+w], windowed and overlapped at 6+6w.
func imdct12x3(x *[18]float32, overlap *[18]float32, out *[18]float32) {
	var z [36]float32
	for w := 0; w < 3; w++ {
		var y [6]float32
		for n := 0; n < 6; n++ {
			c := &imdct12c[n]
			y[n] = c[0]*x[w] + c[1]*x[3+w] + c[2]*x[6+w] + c[3]*x[9+w] + c[4]*x[12+w] + c[5]*x[15+w]
		}
		// 12-point output i: y[i+3] (i<3), -y[8-i] (3<=i<9), -y[i-9] (i>=9).
		base := 6 + 6*w
		for i := 0; i < 3; i++ {
			z[base+i] += imdct12win[i] * y[i+3]
		}
		for i := 3; i < 9; i++ {
			z[base+i] -= imdct12win[i] * y[8-i]
		}
		for i := 9; i < 12; i++ {
			z[base+i] -= imdct12win[i] * y[i-9]
		}
	}
	for i := 0; i < 18; i++ {
		out[i] = overlap[i] + z[i]
		overlap[i] = z[18+i]
	}
}
