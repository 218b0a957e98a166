package vecindex

import (
	"bytes"
	"io"
	"sync"
	"sync/atomic"
	"testing"
)

// TestConcurrent runs searches (HNSW and Flat, filtered or not) beside
// adds, batch adds, replacements, removals, compactions and persistence on
// one store; run it with -race.
func TestConcurrent(t *testing.T) {
	const d = 16
	vecs := clustered(2400, d, 10, 1, 21)
	s := NewStore(d)
	h, err := NewHNSW(s, HNSWConfig{M: 8, EfConstruction: 40, MaxTombstoneFraction: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	f := NewFlat(s)
	if err := h.Build(keysOf(400), vecs[:400]); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	run := func(fn func(i int)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				fn(i)
			}
		}()
	}
	var searches atomic.Int64
	for w := range 2 {
		run(func(i int) {
			q := vecs[(i*7+w)%len(vecs)]
			for _, hit := range h.Search(q, 5, func(k int64) bool { return k%3 != 0 }) {
				if hit.Key%3 == 0 {
					t.Errorf("filter ignored: %d", hit.Key)
				}
			}
			f.Search(q, 5, nil)
			searches.Add(1)
		})
	}
	var writers sync.WaitGroup
	writers.Add(3)
	go func() { // one at a time
		defer writers.Done()
		for i := 400; i < 1400; i++ {
			if err := h.Add(int64(i), vecs[i]); err != nil {
				t.Error(err)
			}
			if i%5 == 0 {
				h.Remove(int64(i - 300))
			}
		}
	}()
	go func() { // in batches, replacing some keys
		defer writers.Done()
		for lo := 1400; lo < 2400; lo += 100 {
			keys := keysOf(2400)[lo : lo+100]
			if err := s.AddBatch(keys, vecs[lo:lo+100]); err != nil {
				t.Error(err)
			}
			s.AddBatch([]int64{int64(lo - 1000)}, [][]float32{vecs[lo]})
		}
	}()
	go func() { // persistence and compaction
		defer writers.Done()
		for range 4 {
			var b bytes.Buffer
			if _, err := h.WriteTo(&b); err != nil {
				t.Error(err)
			}
			h.Compact()
			if _, err := h.ReadFrom(&b); err != nil {
				t.Error(err)
			}
			h.Tombstones()
			h.MemoryBytes()
			s.MemoryBytes()
		}
	}()
	writers.Wait()
	stop.Store(true)
	wg.Wait()
	checkGraph(t, s)
	if searches.Load() == 0 {
		t.Fatal("no search ran")
	}
	// Every stored key is found by its own vector.
	s.mu.RLock()
	want := map[int64][]float32{}
	for k, slot := range s.slots {
		want[k] = append([]float32(nil), s.vec(slot)...)
	}
	s.mu.RUnlock()
	missed := 0
	for k, v := range want {
		if hs := h.SearchEf(v, 1, 100, nil); len(hs) != 1 || hs[0].Key != k {
			if fs := f.Search(v, 1, nil); len(fs) == 1 && fs[0].Key == k {
				missed++ // not a duplicate vector: a real miss
			}
		}
	}
	if missed > len(want)/100 {
		t.Fatalf("%d of %d keys not found by their own vector", missed, len(want))
	}
	var b bytes.Buffer
	h.WriteTo(&b)
	if _, err := h.ReadFrom(io.LimitReader(&b, int64(b.Len()))); err != nil {
		t.Fatal(err)
	}
	checkGraph(t, s)
}
