//go:build !amd64 || purego

package vecindex

const useAVX2 = false

// dot is the inner product of a and b (len(b) >= len(a)).
func dot(a, b []float32) float32 { return dotGeneric(a, b) }

// dotPf is dot(a, b); next is the vector to be scored after b (a hint).
func dotPf(a, b, next []float32) float32 { return dotGeneric(a, b) }

// dotMany sets out[i] to the inner product of q with the i-th vector of
// data (len(q) floats each), for i < len(out).
func dotMany(q, data []float32, out []float32) { dotManyGeneric(q, data, out) }
