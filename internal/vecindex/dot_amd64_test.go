//go:build amd64 && !purego

package vecindex

import "testing"

// withGeneric runs f with the portable kernels instead of AVX2.
func withGeneric(t *testing.T, f func(t *testing.T)) {
	saved := useAVX2
	useAVX2 = false
	defer func() { useAVX2 = saved }()
	f(t)
}

func TestAVX2Detected(t *testing.T) {
	t.Logf("AVX2+FMA kernels: %v", useAVX2)
}
