package flac

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// BenchmarkRice times the Rice decoder alone: 32768 codes with parameter
// 10, the hot loop of every FLAC decode.
func BenchmarkRice(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	w := &bitWriter{}
	const n = 4096
	const k = 10
	for range 8 * n {
		v := int64(r.NormFloat64() * 1500)
		u := uint64(v<<1) ^ uint64(v>>63)
		w.unary(u >> k)
		w.write(u&(1<<k-1), k)
	}
	data := append(w.buf, make([]byte, 64)...)
	dst := make([]int32, n)
	b.SetBytes(8 * n)
	br := newBitReader(bytes.NewReader(data))
	br.refill()
	for b.Loop() {
		br.pos, br.n, br.cache = 0, 0, 0
		for range 8 {
			br.rice(dst, k)
		}
	}
}
