package vecindex

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestDotAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 15, 16, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 511, 512, 513, 768, 1024} {
		a, b := make([]float32, n), make([]float32, n)
		var want float64
		for i := range a {
			a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
			want += float64(a[i]) * float64(b[i])
		}
		tol := 1e-4 * math.Sqrt(float64(n)+1)
		if got := float64(dot(a, b)); math.Abs(got-want) > tol {
			t.Errorf("n=%d: dot %v, want %v (avx2 %v)", n, got, want, useAVX2)
		}
		if got := float64(dotGeneric(a, b)); math.Abs(got-want) > tol {
			t.Errorf("n=%d: dotGeneric %v, want %v", n, got, want)
		}
		if got := dotPf(a, b, b); got != dot(a, b) {
			t.Errorf("n=%d: dotPf %v, dot %v", n, got, dot(a, b))
		}
		// dotMany over 5 vectors of length n.
		if n == 0 {
			continue
		}
		data := make([]float32, 5*n)
		for i := range data {
			data[i] = float32(r.NormFloat64())
		}
		out, ref := make([]float32, 5), make([]float32, 5)
		dotMany(a, data, out)
		dotManyGeneric(a, data, ref)
		for i := range out {
			if math.Abs(float64(out[i]-ref[i])) > tol {
				t.Errorf("n=%d: dotMany[%d] %v, generic %v", n, i, out[i], ref[i])
			}
			if d := dot(a, data[i*n:(i+1)*n]); d != out[i] {
				t.Errorf("n=%d: dotMany[%d] %v differs from dot %v", n, i, out[i], d)
			}
		}
	}
}
