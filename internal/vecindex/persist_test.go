package vecindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"reflect"
	"testing"
	"testing/iotest"
)

func graphBytes(t testing.TB, h *HNSW) []byte {
	t.Helper()
	var b bytes.Buffer
	n, err := h.WriteTo(&b)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(b.Len()) {
		t.Fatalf("WriteTo reported %d bytes, wrote %d", n, b.Len())
	}
	return b.Bytes()
}

func TestPersistRoundTrip(t *testing.T) {
	h, vecs, qs := smallIndex(t, 2000, 24, HNSWConfig{M: 12, EfSearch: 30, Seed: 77, MaxTombstoneFraction: -1})
	for i := 0; i < 100; i++ {
		h.Remove(int64(i * 7)) // tombstones travel too
	}
	data := graphBytes(t, h)

	// The caller reloads its vectors in another order: slots differ,
	// keys match.
	s2 := NewStore(24)
	for i := len(vecs) - 1; i >= 0; i-- {
		if i%7 == 0 && i < 700 {
			continue
		}
		if err := s2.Add(int64(i), vecs[i]); err != nil {
			t.Fatal(err)
		}
	}
	h2, err := ReadHNSW(s2, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	checkGraph(t, s2)
	if c, c2 := h.Config(), h2.Config(); c.M != c2.M || c.EfConstruction != c2.EfConstruction || c.EfSearch != c2.EfSearch || c.Seed != c2.Seed {
		t.Fatalf("config %+v, read back %+v", c, c2)
	}
	if h2.Len() != h.Len() || h2.Tombstones() != 0 {
		t.Fatalf("Len %d (want %d), Tombstones %d", h2.Len(), h.Len(), h2.Tombstones())
	}
	// The file's tombstones were compacted on reading; compact the
	// original too, and both graphs give the same answers.
	h.Compact()
	for _, q := range qs {
		if a, b := h.Search(q, 10, nil), h2.Search(q, 10, nil); !reflect.DeepEqual(a, b) {
			t.Fatalf("answers differ after reading:\n%v\n%v", a, b)
		}
	}
	// ReadFrom into an HNSW that has a graph already.
	s3 := NewStore(24)
	h3, err := NewHNSW(s3, HNSWConfig{M: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		h3.Add(int64(i), vecs[i])
	}
	data = graphBytes(t, h)
	n, err := h3.ReadFrom(bytes.NewReader(data))
	if err != nil || n != int64(len(data)) {
		t.Fatalf("ReadFrom: %d, %v", n, err)
	}
	checkGraph(t, s3)
	if h3.Config().M != 12 || h3.Len() != 50 {
		t.Fatalf("after ReadFrom: %+v, Len %d", h3.Config(), h3.Len())
	}
	for i := range 50 {
		if i%7 == 0 {
			continue // removed in h: not in its graph, linked anew
		}
		if hs := h3.Search(vecs[i], 1, nil); len(hs) != 1 || hs[0].Key != int64(i) {
			t.Fatalf("key %d not found after ReadFrom: %v", i, hs)
		}
	}
}

// TestPersistReconcile reads a graph into a store that has changed since:
// keys gone, vectors changed, keys added.
func TestPersistReconcile(t *testing.T) {
	h, vecs, _ := smallIndex(t, 1500, 16, HNSWConfig{})
	data := graphBytes(t, h)
	extra := clustered(200, 16, 20, 1, 99)
	changed := clustered(len(vecs), 16, 20, 1, 98)
	s := NewStore(16)
	want := map[int64][]float32{}
	for i, v := range vecs {
		switch {
		case i%10 == 0: // gone
			continue
		case i%10 == 1: // changed
			v = changed[i]
		}
		if err := s.Add(int64(i), v); err != nil {
			t.Fatal(err)
		}
		want[int64(i)] = v
	}
	for i, v := range extra {
		s.Add(int64(100000+i), v)
		want[int64(100000+i)] = v
	}
	h2, err := ReadHNSW(s, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	checkGraph(t, s)
	if h2.Len() != len(want) || h2.Tombstones() != 0 {
		t.Fatalf("Len %d want %d, Tombstones %d", h2.Len(), len(want), h2.Tombstones())
	}
	found := 0
	for k, v := range want {
		hs := h2.SearchEf(v, 1, 64, nil)
		if len(hs) == 1 && hs[0].Key == k {
			found++
		}
		for _, hit := range hs {
			if _, ok := want[hit.Key]; !ok {
				t.Fatalf("key %d, not in the store, returned", hit.Key)
			}
		}
	}
	if found < len(want)*98/100 {
		t.Fatalf("only %d of %d vectors find themselves", found, len(want))
	}
	// Write, read, write: the same bytes.
	d2 := graphBytes(t, h2)
	s3 := NewStore(16)
	for k, v := range want {
		s3.Add(k, v)
	}
	h3, err := ReadHNSW(s3, bytes.NewReader(d2))
	if err != nil {
		t.Fatal(err)
	}
	checkGraph(t, s3)
	if hs := h3.Search(want[100000], 1, nil); len(hs) != 1 || hs[0].Key != 100000 {
		t.Fatalf("after a second round trip: %v", hs)
	}
}

func TestReadFromRejects(t *testing.T) {
	h, vecs, _ := smallIndex(t, 60, 4, HNSWConfig{M: 4, EfConstruction: 16})
	data := graphBytes(t, h)
	before := h.Search(vecs[3], 5, nil)
	bad := func(name string, b []byte) {
		t.Helper()
		_, err := h.ReadFrom(bytes.NewReader(b))
		if err == nil {
			t.Fatalf("%s: accepted", name)
		}
		if !errors.Is(err, ErrFormat) {
			t.Fatalf("%s: error %v does not wrap ErrFormat", name, err)
		}
	}
	for i := range len(data) {
		bad("truncated", data[:i])
	}
	for i := range len(data) {
		b := bytes.Clone(data)
		b[i] ^= 0x10
		bad("bit flip", b)
	}
	bad("trailing byte", append(bytes.Clone(data), 0))
	// A store of another dimension.
	if _, err := ReadHNSW(NewStore(5), bytes.NewReader(data)); !errors.Is(err, ErrFormat) {
		t.Fatalf("dimension mismatch: %v", err)
	}
	// A lying node count: four billion nodes in a few bytes.
	b := bytes.Clone(data[:48])
	binary.LittleEndian.PutUint32(b[36:], 0xFFFFFFF0)
	bad("lying count", append(b, 1, 0))
	// A failing reader.
	if _, err := h.ReadFrom(iotest.TimeoutReader(bytes.NewReader(data))); err == nil {
		t.Fatal("reader error swallowed")
	}
	if after := h.Search(vecs[3], 5, nil); !reflect.DeepEqual(before, after) {
		t.Fatal("a failed ReadFrom changed the graph")
	}
	checkGraph(t, h.Store())
	// A valid empty graph.
	empty, _ := NewHNSW(NewStore(4), HNSWConfig{})
	eb := graphBytes(t, empty)
	s := NewStore(4)
	s.Add(1, vecs[0])
	h2, err := ReadHNSW(s, bytes.NewReader(eb))
	if err != nil {
		t.Fatal(err)
	}
	checkGraph(t, s)
	if hs := h2.Search(vecs[0], 1, nil); len(hs) != 1 || hs[0].Key != 1 {
		t.Fatalf("vector added before reading an empty graph: %v", hs)
	}
}

// fixCRC rewrites the trailing checksum so that fuzzed data reaches the
// checks after it.
func fixCRC(b []byte) []byte {
	if len(b) < 4 {
		return b
	}
	b = bytes.Clone(b)
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
	return b
}

func FuzzReadFrom(f *testing.F) {
	vecs := clustered(40, 4, 3, 1, 1)
	for _, n := range []int{0, 1, 2, 40} {
		s := NewStore(4)
		h, _ := NewHNSW(s, HNSWConfig{M: 2, EfConstruction: 8, MaxTombstoneFraction: -1})
		for i := range n {
			h.Add(int64(i), vecs[i])
		}
		if n > 2 {
			h.Remove(5)
		}
		var b bytes.Buffer
		h.WriteTo(&b)
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, b := range [][]byte{data, fixCRC(data)} {
			s := NewStore(4)
			for i := range 30 {
				s.Add(int64(i), vecs[i])
			}
			h, err := ReadHNSW(s, bytes.NewReader(b))
			if err != nil {
				if !errors.Is(err, ErrFormat) {
					t.Fatalf("error %v does not wrap ErrFormat", err)
				}
				continue
			}
			checkGraph(t, s)
			if h.Len() != 30 {
				t.Fatalf("Len %d", h.Len())
			}
			h.Search(vecs[0], 5, nil)
			h.Add(99, vecs[39])
			h.Remove(3)
			h.Compact()
			checkGraph(t, s)
			var out bytes.Buffer
			if _, err := h.WriteTo(&out); err != nil {
				t.Fatal(err)
			}
			if _, err := h.ReadFrom(io.MultiReader(bytes.NewReader(out.Bytes()))); err != nil {
				t.Fatalf("reading back what was written: %v", err)
			}
			checkGraph(t, s)
		}
	})
}
