package vecindex

import (
	"math"
	"math/rand/v2"
	"testing"
)

// clustered makes n unit vectors of dimension d around c cluster centres:
// centre + noise, normalised. Deterministic in seed.
func clustered(n, d, c int, noise float64, seed uint64) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 7))
	centres := make([][]float64, c)
	for i := range centres {
		centres[i] = make([]float64, d)
		var norm float64
		for j := range centres[i] {
			x := r.NormFloat64()
			centres[i][j] = x
			norm += x * x
		}
		norm = math.Sqrt(norm)
		for j := range centres[i] {
			centres[i][j] /= norm
		}
	}
	out := make([][]float32, n)
	sd := noise / math.Sqrt(float64(d))
	for i := range out {
		ctr := centres[r.IntN(c)]
		v := make([]float32, d)
		var norm float64
		for j := range v {
			x := ctr[j] + sd*r.NormFloat64()
			v[j] = float32(x)
			norm += x * x
		}
		inv := float32(1 / math.Sqrt(norm))
		for j := range v {
			v[j] *= inv
		}
		out[i] = v
	}
	return out
}

// brute is the reference exact search over a key→vector map.
func brute(vecs map[int64][]float32, q []float32, k int, accept func(int64) bool) []Hit {
	var all []Hit
	for key, v := range vecs {
		if accept != nil && !accept(key) {
			continue
		}
		sc := dot(q, v)
		all = append(all, Hit{Key: key, Score: sc})
	}
	sortHits(all)
	if k < 0 {
		k = 0
	}
	if len(all) > k {
		all = all[:k]
	}
	if len(all) == 0 {
		return nil
	}
	return all
}

func recall(got, want []Hit) (hit, total int) {
	in := make(map[int64]bool, len(want))
	for _, w := range want {
		in[w.Key] = true
	}
	for _, g := range got {
		if in[g.Key] {
			hit++
		}
	}
	return hit, len(want)
}

func keysOf(n int) []int64 {
	k := make([]int64, n)
	for i := range k {
		k[i] = int64(i)
	}
	return k
}

func mustBuild(t testing.TB, vecs [][]float32, cfg HNSWConfig) *HNSW {
	t.Helper()
	s := NewStore(len(vecs[0]))
	h, err := NewHNSW(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Build(keysOf(len(vecs)), vecs); err != nil {
		t.Fatal(err)
	}
	return h
}
