package vecindex

import (
	"bytes"
	"math"
	"reflect"
	"runtime"
	"slices"
	"testing"
)

func meanRecall(h *HNSW, f *Flat, qs [][]float32, k int, accept func(int64) bool) float64 {
	hit, tot := 0, 0
	for _, q := range qs {
		a, b := recall(h.Search(q, k, accept), f.Search(q, k, accept))
		hit += a
		tot += b
	}
	if tot == 0 {
		return 1
	}
	return float64(hit) / float64(tot)
}

// TestHNSWRecall: 20k clustered 512-d vectors at the default parameters
// (4k under the race detector, which slows graph building sevenfold).
func TestHNSWRecall(t *testing.T) {
	n := 20000
	if raceEnabled {
		n = 4000
	}
	const d = 512
	all := clustered(n+200, d, 100, 1, 11)
	vecs, qs := all[:n], all[n:]
	h := mustBuild(t, vecs, HNSWConfig{})
	s := h.Store()
	checkGraph(t, s)
	f := NewFlat(s)
	if h.Len() != n || f.Len() != n {
		t.Fatalf("Len %d %d", h.Len(), f.Len())
	}
	r := meanRecall(h, f, qs, 10, nil)
	t.Logf("n=%d recall@10 %.4f", n, r)
	if r < 0.95 {
		t.Errorf("recall@10 %.4f < 0.95", r)
	}

	// Memory: vectors, keys and graph within 1.3x the raw vector bytes.
	raw := float64(n * d * 4)
	mem := float64(s.MemoryBytes() + h.MemoryBytes())
	t.Logf("memory %.3fx raw (store %d, graph %d bytes)", mem/raw, s.MemoryBytes(), h.MemoryBytes())
	if mem > 1.3*raw {
		t.Errorf("memory %.3fx raw > 1.3", mem/raw)
	}

	// Filtered search: only accepted keys, and close to the exact
	// filtered answer.
	tenth := func(k int64) bool { return k%10 == 3 }
	for _, q := range qs[:50] {
		for _, hit := range h.Search(q, 10, tenth) {
			if !tenth(hit.Key) {
				t.Fatalf("filtered search returned key %d", hit.Key)
			}
		}
	}
	if r := meanRecall(h, f, qs, 10, tenth); r < 0.9 {
		t.Errorf("filtered recall@10 %.4f < 0.9", r)
	}
	// A filter that keeps 7 keys: the search goes on until it has seen
	// them all, and ranks them exactly.
	few := map[int64]bool{}
	for i := range 7 {
		few[int64(i*n/7+3)] = true
	}
	sel := func(k int64) bool { return few[k] }
	for _, q := range qs[:20] {
		got, want := h.Search(q, 10, sel), f.Search(q, 10, sel)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("selective filter:\n got %v\nwant %v", got, want)
		}
	}
	// Hits are best first with ties by key, and scores are exact.
	for _, q := range qs[:20] {
		hs := h.SearchEf(q, 25, 100, nil)
		if len(hs) != 25 {
			t.Fatalf("%d hits for k=25", len(hs))
		}
		for i, hit := range hs {
			if want := dot(q, vecs[hit.Key]); hit.Score != want {
				t.Fatalf("hit %v: score should be %v", hit, want)
			}
			if i > 0 && worse(hs[i-1], hit) {
				t.Fatalf("hits out of order: %v", hs)
			}
		}
	}
}

func smallIndex(t *testing.T, n, d int, cfg HNSWConfig) (*HNSW, [][]float32, [][]float32) {
	t.Helper()
	all := clustered(n+100, d, 20, 1, uint64(n*d))
	if cfg.EfConstruction == 0 {
		cfg.EfConstruction = 64
	}
	h := mustBuild(t, all[:n], cfg)
	return h, all[:n], all[n:]
}

func TestHNSWTombstones(t *testing.T) {
	h, vecs, qs := smallIndex(t, 3000, 32, HNSWConfig{MaxTombstoneFraction: -1})
	s := h.Store()
	f := NewFlat(s)
	removed := map[int64]bool{}
	for i := 0; i < len(vecs); i += 3 {
		if !h.Remove(int64(i)) {
			t.Fatalf("Remove(%d) = false", i)
		}
		removed[int64(i)] = true
	}
	if h.Tombstones() != 1000 || h.Len() != 2000 {
		t.Fatalf("Tombstones %d Len %d", h.Tombstones(), h.Len())
	}
	checkGraph(t, s)
	for _, q := range append(qs, vecs[0], vecs[3]) {
		for _, hit := range h.SearchEf(q, 50, 100, nil) {
			if removed[hit.Key] {
				t.Fatalf("removed key %d returned", hit.Key)
			}
		}
	}
	if r := meanRecall(h, f, qs, 10, nil); r < 0.9 {
		t.Errorf("recall with tombstones %.4f", r)
	}
	used := s.used
	if got := h.Compact(); got != 1000 {
		t.Fatalf("Compact took out %d nodes, want 1000", got)
	}
	if h.Tombstones() != 0 || h.Len() != 2000 {
		t.Fatalf("after Compact: Tombstones %d Len %d", h.Tombstones(), h.Len())
	}
	checkGraph(t, s)
	if r := meanRecall(h, f, qs, 10, nil); r < 0.9 {
		t.Errorf("recall after Compact %.4f", r)
	}
	for i := range 1000 {
		if err := h.Add(int64(10000+i), vecs[(i*3)%len(vecs)]); err != nil {
			t.Fatal(err)
		}
	}
	if s.used != used {
		t.Fatalf("slots not reused: %d, was %d", s.used, used)
	}
	checkGraph(t, s)
	if r := meanRecall(h, f, qs, 10, nil); r < 0.9 {
		t.Errorf("recall after refilling %.4f", r)
	}

	// Remove everything, compact, start again.
	for _, k := range slices.Collect(func(yield func(int64) bool) {
		s.mu.RLock()
		keys := make([]int64, 0, len(s.slots))
		for k := range s.slots {
			keys = append(keys, k)
		}
		s.mu.RUnlock()
		for _, k := range keys {
			if !yield(k) {
				return
			}
		}
	}) {
		h.Remove(k)
	}
	if h.Len() != 0 || h.Search(qs[0], 5, nil) != nil {
		t.Fatal("search in an emptied index found something")
	}
	h.Compact()
	checkGraph(t, s)
	if h.entry.Load() != entryNone {
		t.Fatal("entry point left in an empty graph")
	}
	if err := h.Add(1, vecs[1]); err != nil {
		t.Fatal(err)
	}
	if hs := h.Search(vecs[1], 3, nil); len(hs) != 1 || hs[0].Key != 1 {
		t.Fatalf("after emptying and adding: %v", hs)
	}
	checkGraph(t, s)
}

func TestHNSWAutoCompact(t *testing.T) {
	h, _, _ := smallIndex(t, 1000, 16, HNSWConfig{})
	for i := range 100 {
		h.Remove(int64(i))
	}
	if got := h.Tombstones(); got != 100 {
		t.Fatalf("Tombstones %d, want 100 (at the threshold, not above)", got)
	}
	h.Remove(100)
	if got := h.Tombstones(); got != 0 {
		t.Fatalf("Tombstones %d after crossing the threshold", got)
	}
	checkGraph(t, h.Store())
}

func TestHNSWReplace(t *testing.T) {
	h, vecs, qs := smallIndex(t, 500, 16, HNSWConfig{MaxTombstoneFraction: -1})
	nv := qs[0]
	if err := h.Add(7, nv); err != nil {
		t.Fatal(err)
	}
	if h.Len() != 500 || h.Tombstones() != 1 {
		t.Fatalf("Len %d Tombstones %d", h.Len(), h.Tombstones())
	}
	if hs := h.Search(nv, 1, nil); len(hs) != 1 || hs[0].Key != 7 || hs[0].Score != dot(nv, nv) {
		t.Fatalf("new vector not found: %v", hs)
	}
	for _, hit := range h.SearchEf(vecs[7], 500, 500, nil) {
		if hit.Key == 7 && hit.Score != dot(vecs[7], nv) {
			t.Fatalf("key 7 returned with its old vector's score %v", hit.Score)
		}
	}
	if got, _ := h.Store().Get(7); !reflect.DeepEqual(got, nv) {
		t.Fatal("Get returns the old vector")
	}
	checkGraph(t, h.Store())
}

func TestHNSWDeterministic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	vecs := clustered(800, 16, 10, 1, 5)
	write := func(seed uint64) []byte {
		h := mustBuild(t, vecs, HNSWConfig{EfConstruction: 40, Seed: seed})
		var b bytes.Buffer
		if _, err := h.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	a, b, c := write(1), write(1), write(2)
	if !bytes.Equal(a, b) {
		t.Fatal("the same seed built different graphs")
	}
	if bytes.Equal(a, c) {
		t.Fatal("different seeds built the same graph")
	}
	// Levels follow the geometric law: about 1/M of the keys above 0.
	h := newHNSW(NewStore(1), HNSWConfig{M: 16, Seed: 9})
	above := 0
	for k := range int64(100000) {
		if h.levelOf(k) > 0 {
			above++
		}
	}
	if above < 5500 || above > 7000 {
		t.Fatalf("%d of 100000 keys above level 0, want about 6250", above)
	}
}

func TestHNSWEdges(t *testing.T) {
	s := NewStore(8)
	for _, cfg := range []HNSWConfig{{M: 1}, {M: 5000}, {EfSearch: -1}, {EfConstruction: maxEf + 1}, {MaxTombstoneFraction: math.NaN()}} {
		if _, err := NewHNSW(s, cfg); err == nil {
			t.Fatalf("NewHNSW accepted %+v", cfg)
		}
	}
	// Vectors already in the store are linked by NewHNSW.
	vecs := clustered(300, 8, 5, 1, 1)
	for i, v := range vecs {
		if err := s.Add(int64(i), v); err != nil {
			t.Fatal(err)
		}
	}
	h, err := NewHNSW(s, HNSWConfig{EfConstruction: 50})
	if err != nil {
		t.Fatal(err)
	}
	checkGraph(t, s)
	if _, err := NewHNSW(s, HNSWConfig{}); err == nil {
		t.Fatal("a second HNSW on one store")
	}
	if hs := h.Search(vecs[5], 1, nil); len(hs) != 1 || hs[0].Key != 5 {
		t.Fatalf("self search: %v", hs)
	}
	for _, q := range [][]float32{nil, vecs[0][:7], {1, 2, 3, 4, 5, 6, 7, float32(math.NaN())}} {
		if h.Search(q, 3, nil) != nil {
			t.Fatalf("bad query %v found something", q)
		}
	}
	// A huge but finite query may overflow scores: still a ranked answer.
	huge := []float32{3e38, -3e38, 3e38, -3e38, 3e38, -3e38, 3e38, -3e38}
	for _, hs := range [][]Hit{h.Search(huge, 10, nil), NewFlat(s).Search(huge, 10, nil)} {
		if len(hs) != 10 {
			t.Fatalf("huge query: %d hits", len(hs))
		}
		for i := 1; i < len(hs); i++ {
			if hs[i].Score != hs[i].Score || worse(hs[i-1], hs[i]) {
				t.Fatalf("huge query: hits out of order %v", hs)
			}
		}
	}
	if h.Search(vecs[0], 0, nil) != nil || h.Search(vecs[0], -2, nil) != nil {
		t.Fatal("k <= 0 found something")
	}
	// k above n: every reachable node once (the pruning heuristic may
	// leave a few nodes without in-links, so not necessarily all 300).
	all := h.SearchEf(vecs[0], 400, 1, nil)
	seen := map[int64]bool{}
	for _, hit := range all {
		if seen[hit.Key] {
			t.Fatalf("key %d twice", hit.Key)
		}
		seen[hit.Key] = true
	}
	if len(all) < 270 || len(all) > 300 {
		t.Fatalf("k above n: %d hits", len(all))
	}
	h.SetEfSearch(0)
	if c := h.Config(); c.EfSearch != 1 || c.M != DefaultM || c.EfConstruction != 50 {
		t.Fatalf("Config %+v", c)
	}
	if h.Dim() != 8 || h.Store() != s {
		t.Fatal("Dim or Store")
	}
	if err := h.Build([]int64{1, 2}, [][]float32{vecs[0]}); err == nil {
		t.Fatal("Build with mismatched lengths")
	}
	empty, _ := NewHNSW(NewStore(8), HNSWConfig{})
	if empty.Search(vecs[0], 5, nil) != nil {
		t.Fatal("empty graph found something")
	}
}

func TestHNSWGeneric(t *testing.T) {
	withGeneric(t, func(t *testing.T) {
		h, _, qs := smallIndex(t, 1500, 48, HNSWConfig{})
		if r := meanRecall(h, NewFlat(h.Store()), qs, 10, nil); r < 0.95 {
			t.Errorf("recall with the portable kernels %.4f", r)
		}
	})
}
