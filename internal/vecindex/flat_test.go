package vecindex

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"
)

func randUnit(r *rand.Rand, d int) []float32 {
	v := make([]float32, d)
	var n float64
	for i := range v {
		x := r.NormFloat64()
		v[i] = float32(x)
		n += x * x
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// flatCase checks Flat against the brute-force reference on a store that
// has ties, removals and replacements.
func flatCase(t *testing.T) {
	const d, n = 64, 1500
	defer func(saved int) { minParallelFloats = saved }(minParallelFloats)
	minParallelFloats = 4096 // shard even this small store
	r := rand.New(rand.NewPCG(3, 4))
	s := NewStore(d)
	f := NewFlat(s)
	ref := map[int64][]float32{}
	for i := range n {
		key := int64(i*7 - 1000) // negative and sparse keys too
		var v []float32
		if i >= 1400 {
			v = ref[int64((i-1400)*7-1000)] // exact duplicates: ties
		} else {
			v = randUnit(r, d)
		}
		if err := f.Add(key, v); err != nil {
			t.Fatal(err)
		}
		ref[key] = v
	}
	queries := make([][]float32, 0, 40)
	for range 8 {
		queries = append(queries, randUnit(r, d))
	}
	queries = append(queries, ref[-1000], ref[-993])
	accepts := map[string]func(int64) bool{
		"all":   nil,
		"even":  func(k int64) bool { return k%2 == 0 },
		"none":  func(int64) bool { return false },
		"three": func(k int64) bool { return k == -1000 || k == -993 || k == 6 },
	}
	check := func(stage string) {
		t.Helper()
		if f.Len() != len(ref) {
			t.Fatalf("%s: Len %d, want %d", stage, f.Len(), len(ref))
		}
		for name, acc := range accepts {
			for qi, q := range queries {
				all := brute(ref, q, len(ref), acc)
				for _, k := range []int{0, -1, 1, 10, 100, len(ref) + 5} {
					got := f.Search(q, k, acc)
					want := all[:min(max(k, 0), len(all))]
					if len(want) == 0 {
						want = nil
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s: k=%d accept=%s query %d:\n got %v\nwant %v", stage, k, name, qi, head(got), head(want))
					}
				}
			}
		}
	}
	check("initial")
	// The duplicates tie: the smaller key comes first.
	if h := f.Search(ref[-1000], 2, nil); len(h) != 2 || h[0].Key != -1000 || h[1].Key != 1400*7-1000 || h[0].Score != h[1].Score {
		t.Fatalf("tie order: %v", h)
	}
	for i := 0; i < n; i += 5 {
		key := int64(i*7 - 1000)
		if !f.Remove(key) {
			t.Fatalf("Remove(%d) = false", key)
		}
		delete(ref, key)
	}
	if f.Remove(-1000) {
		t.Fatal("second Remove reported true")
	}
	check("after removals")
	for i := 1; i < n; i += 9 {
		key := int64(i*7 - 1000)
		if _, ok := ref[key]; !ok {
			continue
		}
		v := randUnit(r, d)
		if err := f.Add(key, v); err != nil {
			t.Fatal(err)
		}
		ref[key] = v
	}
	for i := range 200 { // new keys fill the freed slots
		key := int64(1_000_000 + i)
		v := randUnit(r, d)
		if err := f.Add(key, v); err != nil {
			t.Fatal(err)
		}
		ref[key] = v
	}
	check("after replacements and reuse")
	checkGraph(t, s)
	if s.used > n {
		t.Fatalf("slots not reused: %d used for %d keys", s.used, len(ref))
	}
}

func head(h []Hit) []Hit {
	if len(h) > 5 {
		return h[:5]
	}
	return h
}

func TestFlatExact(t *testing.T) {
	for _, procs := range []int{1, 2, 7} {
		t.Run("procs"+string(rune('0'+procs)), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			flatCase(t)
		})
	}
}

func TestFlatExactGeneric(t *testing.T) {
	withGeneric(t, flatCase)
}

func TestFlatEdges(t *testing.T) {
	s := NewStore(4)
	f := NewFlat(s)
	q := []float32{1, 0, 0, 0}
	if h := f.Search(q, 10, nil); h != nil {
		t.Fatalf("empty store: %v", h)
	}
	if err := f.Add(1, []float32{1, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if err := f.Add(2, []float32{0, 1, 0, 0}); err != nil {
		t.Fatal(err)
	}
	bad := map[string][]float32{
		"short": {1, 0, 0},
		"long":  {1, 0, 0, 0, 0},
		"nil":   nil,
		"nan":   {float32(math.NaN()), 0, 0, 0},
		"inf":   {0, float32(math.Inf(-1)), 0, 0},
		"huge":  {3e38, 3e38, 0, 0},
	}
	for name, v := range bad {
		err := f.Add(1, v)
		if err == nil {
			t.Fatalf("%s: Add accepted %v", name, v)
		}
		if !errors.Is(err, ErrDimension) && !errors.Is(err, ErrNonFinite) {
			t.Fatalf("%s: error %v", name, err)
		}
		if err := s.AddBatch([]int64{7, 8}, [][]float32{{0, 0, 1, 0}, v}); err == nil {
			t.Fatalf("%s: AddBatch accepted it", name)
		}
		if name == "nan" || name == "inf" {
			if h := f.Search(v, 1, nil); h != nil {
				t.Fatalf("%s: Search with a bad query returned %v", name, h)
			}
		}
	}
	if s.Contains(7) || f.Len() != 2 {
		t.Fatal("a failed add changed the store")
	}
	if got, ok := s.Get(1); !ok || !reflect.DeepEqual(got, []float32{1, 0, 0, 0}) {
		t.Fatalf("Get(1) = %v, %v", got, ok)
	}
	got, _ := s.Get(1)
	got[0] = 5
	if again, _ := s.Get(1); again[0] != 1 {
		t.Fatal("Get returned the store's memory")
	}
	if _, ok := s.Get(3); ok {
		t.Fatal("Get(3) found something")
	}
	if h := f.Search([]float32{1, 0}, 1, nil); h != nil {
		t.Fatalf("short query: %v", h)
	}
	if err := s.AddBatch([]int64{1}, nil); err == nil {
		t.Fatal("AddBatch with mismatched lengths")
	}
	if h := f.Search(q, 5, nil); len(h) != 2 || h[0] != (Hit{1, 1}) || h[1] != (Hit{2, 0}) {
		t.Fatalf("Search = %v", h)
	}
	if f.Dim() != 4 || f.Store() != s {
		t.Fatal("Dim or Store")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("NewStore(0) did not panic")
		}
	}()
	NewStore(0)
}
