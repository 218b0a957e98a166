// Command search is the Go side of bench/search/run.sh: it loads the
// vectors bench.py generated into an internal/vecindex Store and measures
// Flat (exact) or HNSW (approximate) search, printing one JSON object.
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/foley-audio/foley/internal/vecindex"
)

type meta struct {
	Dim     int   `json:"dim"`
	Queries int   `json:"queries"`
	Sizes   []int `json:"sizes"`
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "search:", err)
	os.Exit(1)
}

// hwmKiB is the peak resident set size of the process so far.
func hwmKiB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			v, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return v
		}
	}
	return 0
}

// readVecs reads up to n vectors of dim floats from path, handing them to
// fn in chunks (the buffer is reused).
func readVecs(path string, n, dim int, fn func(first int, vecs [][]float32) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	const chunk = 4096
	raw := make([]byte, chunk*dim*4)
	flat := make([]float32, chunk*dim)
	vecs := make([][]float32, chunk)
	for first := 0; first < n; first += chunk {
		m := min(chunk, n-first)
		if _, err := io.ReadFull(r, raw[:m*dim*4]); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for i := range m * dim {
			flat[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		for i := range m {
			vecs[i] = flat[i*dim : (i+1)*dim]
		}
		if err := fn(first, vecs[:m]); err != nil {
			return err
		}
	}
	return nil
}

func readGT(path string, nq int) ([][]int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < nq*10*4 {
		return nil, fmt.Errorf("%s: short", path)
	}
	gt := make([][]int64, nq)
	for i := range gt {
		gt[i] = make([]int64, 10)
		for j := range 10 {
			gt[i][j] = int64(int32(binary.LittleEndian.Uint32(b[4*(i*10+j):])))
		}
	}
	return gt, nil
}

func recall(got [][]vecindex.Hit, gt [][]int64) float64 {
	hit := 0
	for i, hs := range got {
		for _, h := range hs {
			if slices.Contains(gt[i], h.Key) {
				hit++
			}
		}
	}
	return float64(hit) / float64(10*len(got))
}

type result struct {
	Side        string          `json:"side"`
	Index       string          `json:"index"`
	N           int             `json:"n"`
	Dim         int             `json:"dim"`
	Threads     int             `json:"threads"`
	M           int             `json:"M,omitempty"`
	EfC         int             `json:"ef_construction,omitempty"`
	BuildS      float64         `json:"build_s,omitempty"`
	EfSearch    int             `json:"ef_search,omitempty"`
	Sweep       map[int]float64 `json:"sweep,omitempty"`
	Queries     int             `json:"queries"`
	P50         float64         `json:"p50_ms"`
	P99         float64         `json:"p99_ms"`
	QPS         float64         `json:"qps"`
	Recall      float64         `json:"recall"`
	HWMLoadKiB  int64           `json:"hwm_load_kib"`
	HWMBuildKiB int64           `json:"hwm_build_kib,omitempty"`
	HWMKiB      int64           `json:"hwm_kib"`
	StoreBytes  int64           `json:"store_bytes"`
	GraphBytes  int64           `json:"graph_bytes,omitempty"`
	IndexBytes  int64           `json:"index_bytes"`
	HeapInuse   uint64          `json:"heap_inuse_bytes"`
}

func latStats(r *result, lat []time.Duration) {
	var sum time.Duration
	for _, l := range lat {
		sum += l
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	pct := func(p float64) float64 {
		// linear interpolation, as numpy.percentile
		x := p / 100 * float64(len(s)-1)
		lo := int(x)
		hi := min(lo+1, len(s)-1)
		f := x - float64(lo)
		return (float64(s[lo])*(1-f) + float64(s[hi])*f) / 1e6
	}
	r.Queries = len(lat)
	r.P50, r.P99 = pct(50), pct(99)
	r.QPS = float64(len(lat)) / sum.Seconds()
}

func main() {
	dir := flag.String("dir", "", "data directory written by bench.py gen")
	n := flag.Int("n", 100000, "vectors to load (the first n of base.f32)")
	mode := flag.String("mode", "flat", "flat or hnsw")
	threads := flag.Int("threads", runtime.NumCPU(), "GOMAXPROCS")
	nq := flag.Int("queries", 1000, "queries to time")
	m := flag.Int("m", 16, "HNSW M")
	efc := flag.Int("efc", 200, "HNSW efConstruction")
	target := flag.Float64("target", 0.95, "recall@10 the HNSW ef is tuned to")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the timed searches")
	flag.Parse()
	runtime.GOMAXPROCS(*threads)

	var md meta
	b, err := os.ReadFile(filepath.Join(*dir, "meta.json"))
	if err != nil {
		fail(err)
	}
	if err := json.Unmarshal(b, &md); err != nil {
		fail(err)
	}
	d := md.Dim
	res := result{Side: "foley-" + *mode, N: *n, Dim: d, Threads: *threads}

	s := vecindex.NewStore(d)
	keys := make([]int64, 4096)
	err = readVecs(filepath.Join(*dir, "base.f32"), *n, d, func(first int, vecs [][]float32) error {
		for i := range vecs {
			keys[i] = int64(first + i)
		}
		return s.AddBatch(keys[:len(vecs)], vecs)
	})
	if err != nil {
		fail(err)
	}
	runtime.GC()
	res.HWMLoadKiB = hwmKiB()

	var queries [][]float32
	err = readVecs(filepath.Join(*dir, "queries.f32"), min(*nq, md.Queries), d, func(_ int, vecs [][]float32) error {
		for _, v := range vecs {
			queries = append(queries, slices.Clone(v))
		}
		return nil
	})
	if err != nil {
		fail(err)
	}
	gt, err := readGT(filepath.Join(*dir, fmt.Sprintf("gt_%d.i32", *n)), len(queries))
	if err != nil {
		fail(err)
	}

	var search func(q []float32) []vecindex.Hit
	var h *vecindex.HNSW
	switch *mode {
	case "flat":
		res.Index = "Flat"
		f := vecindex.NewFlat(s)
		search = func(q []float32) []vecindex.Hit { return f.Search(q, 10, nil) }
	case "hnsw":
		res.Index = "HNSW"
		res.M, res.EfC = *m, *efc
		t0 := time.Now()
		h, err = vecindex.NewHNSW(s, vecindex.HNSWConfig{M: *m, EfConstruction: *efc})
		if err != nil {
			fail(err)
		}
		res.BuildS = time.Since(t0).Seconds()
		runtime.GC()
		res.HWMBuildKiB = hwmKiB()
		// Tune ef: the smallest of the ladder reaching the target,
		// measured with the queries spread over all threads.
		res.Sweep = map[int]float64{}
		chosen := 0
		for _, ef := range []int{10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256, 320, 384, 512, 768, 1024} {
			got := make([][]vecindex.Hit, len(queries))
			var wg sync.WaitGroup
			for w := range *threads {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := w; i < len(queries); i += *threads {
						got[i] = h.SearchEf(queries[i], 10, ef, nil)
					}
				}()
			}
			wg.Wait()
			r := recall(got, gt)
			res.Sweep[ef] = r
			chosen = ef
			if r >= *target {
				break
			}
		}
		res.EfSearch = chosen
		h.SetEfSearch(chosen)
		search = func(q []float32) []vecindex.Hit { return h.Search(q, 10, nil) }
	default:
		fail(fmt.Errorf("unknown mode %q", *mode))
	}

	for i := range min(5, len(queries)) { // warm up
		search(queries[i])
	}
	if *cpuprofile != "" {
		stop := startProfile(*cpuprofile)
		defer stop()
	}
	lat := make([]time.Duration, len(queries))
	got := make([][]vecindex.Hit, len(queries))
	for i, q := range queries {
		t := time.Now()
		got[i] = search(q)
		lat[i] = time.Since(t)
	}
	latStats(&res, lat)
	res.Recall = recall(got, gt)

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res.HeapInuse = ms.HeapInuse
	res.StoreBytes = s.MemoryBytes()
	if h != nil {
		res.GraphBytes = h.MemoryBytes()
	}
	res.IndexBytes = res.StoreBytes + res.GraphBytes
	res.HWMKiB = hwmKiB()
	json.NewEncoder(os.Stdout).Encode(res)
}
