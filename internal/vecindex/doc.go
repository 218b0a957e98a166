// Package vecindex holds float32 vectors by int64 key and searches them by
// inner product: exactly (Flat) or approximately (HNSW).
//
// Vectors are expected to be L2-normalised, so that the inner product is the
// cosine; every vector of a Store has the Store's dimension. A Store keeps
// the vectors once, in pages of 1024 contiguous vectors each (no per-vector
// allocation, and growth never copies what is already stored). A Flat and an
// HNSW are views over a Store and can share one:
//
//	s := vecindex.NewStore(512)
//	exact := vecindex.NewFlat(s)
//	approx, err := vecindex.NewHNSW(s, vecindex.HNSWConfig{})
//	err = s.Add(42, v)        // or exact.Add or approx.Add: the same operation
//	hits := approx.Search(q, 10, nil)
//	check := exact.Search(q, 10, func(key int64) bool { return key%2 == 0 })
//
// Adding to the Store (through any of the three) also links the vector into
// the attached HNSW graph, so the two never disagree about what is stored.
// All types are safe for concurrent use.
package vecindex
