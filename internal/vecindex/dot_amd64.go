//go:build amd64 && !purego

package vecindex

import "unsafe"

// useAVX2 says whether the AVX2+FMA kernels run. It is decided once from
// CPUID and XGETBV (the CPU has AVX2 and FMA, and the OS saves the YMM
// registers); tests switch it off to check the portable code.
var useAVX2 = detectAVX2()

func detectAVX2() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const (
		fma     = 1 << 12
		osxsave = 1 << 27
		avx     = 1 << 28
	)
	if ecx1&(fma|osxsave|avx) != fma|osxsave|avx {
		return false
	}
	xcr0, _ := xgetbv()
	if xcr0&6 != 6 { // XMM and YMM state saved by the OS
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

//go:noescape
func dotAVX2(a, b *float32, n int) float32

//go:noescape
func dotPfAVX2(a, b, next *float32, n int) float32

//go:noescape
func dotManyAVX2(q, data *float32, d int, out *float32, n int)

// dot is the inner product of a and b (len(b) >= len(a)).
func dot(a, b []float32) float32 {
	if useAVX2 && len(a) > 0 {
		_ = b[len(a)-1]
		return dotAVX2(unsafe.SliceData(a), unsafe.SliceData(b), len(a))
	}
	return dotGeneric(a, b)
}

// dotPf is dot(a, b) that also prefetches next (as long as a) into the
// cache, for the vector to be scored after b. It gives the same result as
// dot.
func dotPf(a, b, next []float32) float32 {
	if useAVX2 && len(a) > 0 {
		_ = b[len(a)-1]
		_ = next[len(a)-1]
		return dotPfAVX2(unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(next), len(a))
	}
	return dotGeneric(a, b)
}

// dotMany sets out[i] to the inner product of q with the i-th vector of
// data (len(q) floats each), for i < len(out).
func dotMany(q, data []float32, out []float32) {
	if useAVX2 && len(q) > 0 && len(out) > 0 {
		_ = data[len(out)*len(q)-1]
		dotManyAVX2(unsafe.SliceData(q), unsafe.SliceData(data), len(q), unsafe.SliceData(out), len(out))
		return
	}
	dotManyGeneric(q, data, out)
}
