// Command weaviate compares foley's two library backends on the same
// synthetic library: the embedded SQLite library (sqlite.Library) and a
// Weaviate class (weaviate.Library, batch writes over gRPC) on a local
// weaviate-server. It measures
//
//   - ingest: records/s of Upsert in batches of -batch records, into a new
//     SQLite library and a new Weaviate class, the latter with one writer
//     and with -writers concurrent writers;
//   - search: hybrid queries (2-3 words and a query vector, K 10) at
//     concurrency 1 and 16 on each backend, p50 and p99 latency and QPS,
//     and how alike the two rank (the share of top-10 ids they have in
//     common, for hybrid, vector-only and text-only queries);
//   - memory: the resident set of the Weaviate server after ingest and after
//     the searches, and of this process, which holds the SQLite library.
//
// The records have random unit vectors (model "bench/512") and captions and
// tags drawn from a small vocabulary of sound words, all from a fixed seed.
// Uniformly random 512-d vectors are the worst case of an HNSW index such as
// Weaviate's (no neighbourhood structure: an insert or search visits a
// growing share of the graph); -clusters draws them near a few random
// centres instead, more like real embeddings.
// weaviate-server is started in a temporary directory (it is found as
// internal/weaviatetest finds it: $FOLEY_WEAVIATE_SERVER, PATH, GOBIN,
// GOPATH/bin) unless -weaviate names a running server. The table goes to
// stdout, progress to stderr; nothing is written into the repository.
//
//	go run ./bench/weaviate                  # 100,000 records, 512-d, 2,000 queries
//	go run ./bench/weaviate -n 5000 -q 300   # a quick run
//	go run ./bench/weaviate -weaviate 127.0.0.1:8080 -grpc 127.0.0.1:50051 -pid 1234
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/weaviatetest"
	"github.com/foley-audio/foley/license"
	"github.com/foley-audio/foley/sqlite"
	"github.com/foley-audio/foley/weaviate"
)

// model names the embedder of the synthetic vectors.
const model = "bench/512"

// warmup is how many queries each backend answers before it is timed.
const warmup = 50

// agreeQueries is how many queries the vector-only and text-only rank
// agreement lines use.
const agreeQueries = 200

// vocab are the words of captions, tags and queries.
var vocab = []string{
	"door", "slam", "wood", "heavy", "creak", "rain", "roof", "wind", "gust", "dog", "bark", "glass", "break",
	"footsteps", "gravel", "metal", "impact", "water", "drip", "fire", "crackle", "thunder", "distant", "car",
	"engine", "horn", "bird", "chirp", "crowd", "murmur", "bell", "church", "clock", "tick", "keyboard", "typing",
	"whoosh", "swoosh", "click", "button", "paper", "rustle", "ocean", "wave", "splash", "river", "stream",
	"train", "whistle", "siren", "police", "explosion", "debris", "sword", "clang", "punch", "body", "fall",
	"zipper", "cloth", "leather", "squeak", "hum", "buzz",
}

func main() {
	n := flag.Int("n", 100_000, "records in the library")
	dim := flag.Int("dim", 512, "vector dimensions")
	batch := flag.Int("batch", 1000, "records per Upsert call (the Weaviate library sends them 200 objects a request)")
	writers := flag.Int("writers", 4, "concurrent writers of the second Weaviate ingest (1 to skip it)")
	nq := flag.Int("q", 2000, "timed queries per backend and concurrency")
	seed := flag.Uint64("seed", 1, "seed of the records and queries")
	host := flag.String("weaviate", "", "HOST:PORT of a running Weaviate server to use instead of starting one")
	grpcHost := flag.String("grpc", "", "HOST:PORT of that server's gRPC API (batch writes go over REST without it)")
	pid := flag.Int("pid", 0, "process id of that server, to report its memory")
	clusters := flag.Int("clusters", 0, "draw the vectors near this many random centres (cosine about 0.7 to theirs) instead of uniformly; 0: uniformly")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: go run ./bench/weaviate [flags]\n\n"+
			"Compares the SQLite and Weaviate library backends: ingest throughput, hybrid search\n"+
			"latency and QPS at concurrency 1 and 16, rank agreement, and memory. Starts\n"+
			"weaviate-server in a temporary directory unless -weaviate is given.\n\nFlags:\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	switch {
	case flag.NArg() > 0:
		usage("unexpected arguments %q", flag.Args())
	case *n < 1 || *dim < 1 || *batch < 1 || *writers < 1 || *nq < 1:
		usage("-n, -dim, -batch, -writers and -q must be at least 1")
	case *clusters < 0:
		usage("-clusters must not be negative")
	case *host == "" && (*grpcHost != "" || *pid != 0):
		usage("-grpc and -pid go with -weaviate")
	}
	b := &bench{n: *n, dim: *dim, batch: *batch, writers: *writers, nq: *nq, seed: *seed, space: newSpace(*dim, *clusters, *seed)}
	began := time.Now()

	// Interrupted: clean up (stop the server, remove the temp dir) and go.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sigs
		interrupted.Store(true)
		progress("%v: cleaning up", s)
		cleanup()
		os.Exit(130)
	}()
	defer cleanup()

	ctx := context.Background()
	root, err := os.MkdirTemp("", "foley-bench-weaviate-")
	check(err)
	atCleanup(func() { os.RemoveAll(root) })
	b.root = root

	if *host == "" {
		if _, err := weaviatetest.Binary(); err != nil {
			fmt.Fprintf(os.Stderr, "bench/weaviate: weaviate-server not found (%v)\ninstall it with: %s\n", err, weaviatetest.InstallHint)
			cleanup()
			os.Exit(1)
		}
		progress("starting weaviate-server in %s", filepath.Join(root, "weaviate"))
		t := time.Now()
		node, err := weaviatetest.Launch(filepath.Join(root, "weaviate"))
		check(err)
		atCleanup(node.Stop) // runs before the directory is removed
		b.host, b.grpc, b.pid, b.dataDir = node.Host, node.GRPC, node.PID(), node.Dir
		progress("weaviate-server (pid %d) ready in %.1f s at %s, gRPC %s", b.pid, time.Since(t).Seconds(), b.host, b.grpc)
		b.classes = [2]string{"BenchOne", "BenchMany"}
	} else {
		b.host, b.grpc, b.pid, b.external = *host, *grpcHost, *pid, true
		stamp := strconv.FormatInt(time.Now().Unix(), 36)
		b.classes = [2]string{"FoleyBench" + stamp + "One", "FoleyBench" + stamp + "Many"}
		// Our classes go when we do, whatever happens.
		atCleanup(func() {
			for _, c := range b.classes {
				b.dropClass(c)
			}
		})
	}
	b.version = b.serverVersion()
	b.load[0] = loadAvg()
	b.run(ctx)
	b.load[1] = loadAvg()
	b.report(os.Stdout, time.Since(began))
}

// bench holds the settings and the measurements.
type bench struct {
	n, dim, batch, writers, nq int
	seed                       uint64
	space                      *space

	root              string
	host, grpc        string
	pid               int
	dataDir           string // the launched server's data; "" for -weaviate
	external          bool
	classes           [2]string // for the 1-writer and the many-writer ingest
	version           string
	windex            string // the Weaviate class's vector index settings
	load              [2]string
	queries           []query
	sqliteKind        string // the vector index SQLite searched with
	sqliteFirst       time.Duration
	ingest            []ingestResult
	indexWait         [2]time.Duration
	searches          []searchResult
	agree             [3]float64 // hybrid, vector-only, text-only
	agreeN            [3]int
	wmem              []memRow
	self              memStat
	selfHeap          uint64
	sqliteDisk, wDisk int64
}

type query struct {
	text   string
	vector []float32
}

type ingestResult struct {
	backend string
	writers int
	dur     time.Duration
}

type searchResult struct {
	backend  string
	conc     int
	p50, p99 time.Duration
	qps      float64
	errs     int
}

type memRow struct {
	when string
	mem  memStat
}

// run does the measuring.
func (b *bench) run(ctx context.Context) {
	b.queries = makeQueries(b.space, b.nq, b.seed)

	// SQLite.
	recs, vecs := makeRecords(b.space, b.n, b.seed)
	dbPath := filepath.Join(b.root, "sqlite", "library.db")
	lib, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
	check(err)
	atCleanup(func() { lib.Close() })
	progress("sqlite: ingesting %d records", b.n)
	d, err := ingest(ctx, []foley.Library{lib}, recs, vecs, b.batch, "sqlite")
	check(err)
	b.ingest = append(b.ingest, ingestResult{"sqlite", 1, d})
	count(ctx, lib, b.n)

	// Weaviate, one writer, into the class the searches use.
	wl, err := b.openWeaviate(ctx, b.classes[0])
	check(err)
	progress("weaviate: ingesting %d records with 1 writer into %s", b.n, b.classes[0])
	d, err = ingest(ctx, []foley.Library{wl}, recs, vecs, b.batch, "weaviate")
	check(err)
	b.ingest = append(b.ingest, ingestResult{"weaviate", 1, d})
	b.indexWait[0] = b.waitIndexed(ctx, wl)
	b.windex = b.indexConfig(b.classes[0])

	// The records are no longer needed: what this process holds from now
	// on is the SQLite library (and the queries).
	recs, vecs = nil, nil
	freeMemory()
	b.sample("after ingest (1 writer)")

	// Search.
	fmt.Fprintln(os.Stderr)
	stores := []struct {
		name string
		lib  foley.Library
	}{{"sqlite", lib}, {"weaviate", wl}}
	results := make([][][]string, len(stores)) // by backend, query: the ids at concurrency 1
	for i, s := range stores {
		t := time.Now()
		if _, err := s.lib.Search(ctx, b.search(b.queries[0])); err != nil {
			check(fmt.Errorf("%s: %w", s.name, err))
		}
		if s.name == "sqlite" {
			b.sqliteFirst = time.Since(t)
			b.sqliteKind = lib.IndexKind()
			progress("sqlite: the first search (loading %d vectors into memory, %s index) took %.2f s", b.n, b.sqliteKind, b.sqliteFirst.Seconds())
		}
		warm := makeQueries(b.space, warmup, b.seed+1000)
		for _, q := range warm {
			if _, err := s.lib.Search(ctx, b.search(q)); err != nil {
				check(fmt.Errorf("%s: warm-up: %w", s.name, err))
			}
		}
		for _, conc := range []int{1, 16} {
			progress("%s: %d queries at concurrency %d", s.name, len(b.queries), conc)
			r, ids := runSearches(ctx, s.lib, b.queries, conc, b.search)
			r.backend = s.name
			b.searches = append(b.searches, r)
			if r.errs > 0 {
				progress("%s: %d of %d searches failed", s.name, r.errs, len(b.queries))
			}
			if conc == 1 {
				results[i] = ids
			}
		}
	}
	b.agree[0], b.agreeN[0] = overlap(results[0], results[1])
	m := min(agreeQueries, len(b.queries))
	for j, mode := range []string{"vector", "text"} {
		var both [2][][]string
		for i, s := range stores {
			for _, q := range b.queries[:m] {
				sq := b.search(q)
				if mode == "vector" {
					sq.Text = ""
				} else {
					sq.Vector, sq.Model = nil, ""
				}
				res, err := s.lib.Search(ctx, sq)
				if err != nil {
					check(fmt.Errorf("%s: %s-only search: %w", s.name, mode, err))
				}
				both[i] = append(both[i], ids(res))
			}
		}
		b.agree[j+1], b.agreeN[j+1] = overlap(both[0], both[1])
	}
	freeMemory()
	b.sample("after the searches")
	b.self = memOf("self")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.selfHeap = ms.HeapInuse
	b.sqliteDisk = dirSize(filepath.Dir(dbPath))
	if b.dataDir != "" {
		b.wDisk = dirSize(b.dataDir)
	}

	// Weaviate, several writers, into a new class once the first is gone.
	if b.writers > 1 {
		fmt.Fprintln(os.Stderr)
		b.dropClass(b.classes[0])
		recs, vecs = makeRecords(b.space, b.n, b.seed)
		libs := make([]foley.Library, b.writers)
		for i := range libs {
			if libs[i], err = b.openWeaviate(ctx, b.classes[1]); err != nil {
				check(err)
			}
		}
		progress("weaviate: ingesting %d records with %d writers into %s", b.n, b.writers, b.classes[1])
		d, err = ingest(ctx, libs, recs, vecs, b.batch, "weaviate")
		check(err)
		b.ingest = append(b.ingest, ingestResult{"weaviate", b.writers, d})
		b.indexWait[1] = b.waitIndexed(ctx, libs[0].(*weaviate.Library))
		recs, vecs = nil, nil
		b.sample(fmt.Sprintf("after the %d-writer ingest (first class dropped)", b.writers))
	}
}

// search is the library query of q.
func (b *bench) search(q query) foley.SearchQuery {
	return foley.SearchQuery{Text: q.text, Vector: q.vector, Model: model, K: 10}
}

// openWeaviate opens the library in class on the server.
func (b *bench) openWeaviate(ctx context.Context, class string) (*weaviate.Library, error) {
	loc := weaviate.Location{Host: b.host, Class: class, GRPC: b.grpc}
	return weaviate.Open(ctx, loc.String(), weaviate.Options{})
}

// sample records the Weaviate server's memory, when its pid is known.
func (b *bench) sample(when string) {
	if b.pid == 0 {
		return
	}
	m := memOf(strconv.Itoa(b.pid))
	b.wmem = append(b.wmem, memRow{when, m})
	progress("weaviate-server %s: VmRSS %.0f MiB, VmHWM %.0f MiB", when, mib(m.rss), mib(m.hwm))
}

// makeRecords generates n records and their vectors from seed.
func makeRecords(sp *space, n int, seed uint64) ([]foley.SoundRecord, [][]float32) {
	dim := sp.dim
	// The words and the vectors have a generator each, so that -clusters
	// changes only the vectors.
	rng, vrng := rand.New(rand.NewPCG(seed, 1)), rand.New(rand.NewPCG(seed, 4))
	// Caption words follow Zipf's law, so that BM25 sees common and rare
	// words; tags are uniform.
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	lic := license.Normalize(foley.License{LicenseID: "CC0-1.0", RightsVerified: true})
	recs := make([]foley.SoundRecord, n)
	flat := make([]float32, n*dim)
	vecs := make([][]float32, n)
	for i := range recs {
		words := make([]string, 3+rng.IntN(5))
		for j := range words {
			words[j] = vocab[zipf.Uint64()]
		}
		tags := make([]string, 2+rng.IntN(3))
		for j := range tags {
			tags[j] = vocab[rng.IntN(len(vocab))]
		}
		recs[i] = foley.SoundRecord{
			ID:             fmt.Sprintf("b%07d", i),
			URI:            fmt.Sprintf("/bench/sfx/b%07d.wav", i),
			Caption:        strings.Join(words, " "),
			Tags:           tags,
			DurationS:      math.Round((0.2+rng.Float64()*30)*1000) / 1000,
			Format:         "wav",
			License:        lic,
			EmbeddingModel: model,
		}
		vecs[i] = sp.draw(vrng, flat[i*dim:(i+1)*dim:(i+1)*dim])
	}
	return recs, vecs
}

// makeQueries generates n queries of 2-3 distinct words and a vector.
func makeQueries(sp *space, n int, seed uint64) []query {
	rng, vrng := rand.New(rand.NewPCG(seed, 2)), rand.New(rand.NewPCG(seed, 5))
	qs := make([]query, n)
	for i := range qs {
		idx := rng.Perm(len(vocab))[:2+rng.IntN(2)]
		words := make([]string, len(idx))
		for j, k := range idx {
			words[j] = vocab[k]
		}
		qs[i] = query{text: strings.Join(words, " "), vector: sp.draw(vrng, make([]float32, sp.dim))}
	}
	return qs
}

// space draws unit vectors: uniformly on the sphere, or near one of its
// centres.
type space struct {
	dim     int
	centres [][]float32
}

// newSpace is a space of dim dimensions with clusters random centres (none:
// uniform), from seed.
func newSpace(dim, clusters int, seed uint64) *space {
	s := &space{dim: dim}
	rng := rand.New(rand.NewPCG(seed, 3))
	for range clusters {
		s.centres = append(s.centres, unitVector(rng, make([]float32, dim), nil))
	}
	return s
}

// draw fills v with a random unit vector and returns it. Near a centre,
// the noise has about the centre's length, so the cosine between the two is
// about 0.7.
func (s *space) draw(rng *rand.Rand, v []float32) []float32 {
	if len(s.centres) == 0 {
		return unitVector(rng, v, nil)
	}
	return unitVector(rng, v, s.centres[rng.IntN(len(s.centres))])
}

// unitVector fills v with centre (nil: zero) plus normal noise of about unit
// length, normalised, and returns it.
func unitVector(rng *rand.Rand, v, centre []float32) []float32 {
	scale := 1.0
	if centre != nil {
		scale = 1 / math.Sqrt(float64(len(v)))
	}
	var sum float64
	for i := range v {
		x := rng.NormFloat64() * scale
		if centre != nil {
			x += float64(centre[i])
		}
		v[i] = float32(x)
		sum += x * x
	}
	inv := 1 / math.Sqrt(sum)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
	return v
}

// ingest upserts recs in batches of size batch, each library a writer
// taking the next batch, and returns the wall time.
func ingest(ctx context.Context, libs []foley.Library, recs []foley.SoundRecord, vecs [][]float32, batch int, name string) (time.Duration, error) {
	batches := (len(recs) + batch - 1) / batch
	var next, done atomic.Int64
	var mu sync.Mutex
	var firstErr error
	start := time.Now()
	var wg sync.WaitGroup
	stopProgress := ticker(func() {
		d := min(int(done.Load())*batch, len(recs))
		progress("  %d of %d records, %.0f records/s", d, len(recs), float64(d)/time.Since(start).Seconds())
	})
	for _, lib := range libs {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= batches {
					return
				}
				mu.Lock()
				failed := firstErr != nil
				mu.Unlock()
				if failed {
					return
				}
				lo, hi := i*batch, min((i+1)*batch, len(recs))
				if err := lib.Upsert(ctx, recs[lo:hi], vecs[lo:hi]); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("%s: upserting records %d..%d: %w", name, lo, hi-1, err)
					}
					mu.Unlock()
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	stopProgress()
	d := time.Since(start)
	if firstErr != nil {
		return d, firstErr
	}
	progress("%s: %d records with %d writer(s) in %.1f s, %.0f records/s", name, len(recs), len(libs), d.Seconds(), float64(len(recs))/d.Seconds())
	return d, nil
}

// count checks that lib holds n records.
func count(ctx context.Context, lib foley.Library, n int) {
	c, err := lib.Count(ctx)
	check(err)
	if c != n {
		check(fmt.Errorf("the library holds %d records, want %d", c, n))
	}
}

// waitIndexed waits until the class counts every record and the server's
// vector indexing queue of the class is empty (with ASYNC_INDEXING, objects
// are searchable by vector only once indexed), and returns how long that
// took after the last write.
func (b *bench) waitIndexed(ctx context.Context, lib *weaviate.Library) time.Duration {
	start := time.Now()
	deadline := start.Add(15 * time.Minute)
	last := ""
	for {
		c, err := lib.Count(ctx)
		check(err)
		status, queued, err := b.indexStatus(lib.Class())
		state := fmt.Sprintf("count %d of %d, vector queue %d, indexing %s", c, b.n, queued, status)
		if err != nil {
			state = fmt.Sprintf("count %d of %d, indexing status unknown: %v", c, b.n, err)
		}
		if c == b.n && (err != nil || (queued == 0 && status == "READY")) {
			if err != nil {
				progress("weaviate: %s", state)
			}
			d := time.Since(start)
			progress("weaviate: %d records counted and indexed %.2f s after the last write", c, d.Seconds())
			return d
		}
		if c > b.n {
			check(fmt.Errorf("weaviate: the class holds %d records, want %d", c, b.n))
		}
		if time.Now().After(deadline) {
			check(fmt.Errorf("weaviate: not indexed after %v: %s", time.Since(start).Round(time.Second), state))
		}
		if state != last {
			progress("weaviate: waiting: %s", state)
			last = state
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// indexStatus returns the vector indexing status of class's shards
// (READY when every one is) and their vector queue length, from
// GET /v1/nodes?output=verbose.
func (b *bench) indexStatus(class string) (string, int64, error) {
	body, err := b.rest(http.MethodGet, "/v1/nodes?output=verbose&collection="+class)
	if err != nil {
		return "", 0, err
	}
	var v struct {
		Nodes []struct {
			Shards []struct {
				Class                string `json:"class"`
				VectorIndexingStatus string `json:"vectorIndexingStatus"`
				VectorQueueLength    int64  `json:"vectorQueueLength"`
			} `json:"shards"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return "", 0, err
	}
	status, queued, shards := "READY", int64(0), 0
	for _, n := range v.Nodes {
		for _, s := range n.Shards {
			if s.Class != class {
				continue
			}
			shards++
			queued += s.VectorQueueLength
			if s.VectorIndexingStatus != "READY" {
				status = s.VectorIndexingStatus
			}
		}
	}
	if shards == 0 {
		return "", 0, fmt.Errorf("/v1/nodes lists no shard of %s", class)
	}
	return status, queued, nil
}

// indexConfig describes the vector index of class, from its schema.
func (b *bench) indexConfig(class string) string {
	body, err := b.rest(http.MethodGet, "/v1/schema/"+class)
	if err != nil {
		return "?"
	}
	var v struct {
		VectorIndexType   string `json:"vectorIndexType"`
		VectorIndexConfig struct {
			Distance       string `json:"distance"`
			EfConstruction int    `json:"efConstruction"`
			MaxConnections int    `json:"maxConnections"`
			Ef             int    `json:"ef"`
			DynamicEfMin   int    `json:"dynamicEfMin"`
			DynamicEfMax   int    `json:"dynamicEfMax"`
			DynamicEfFact  int    `json:"dynamicEfFactor"`
			PQ             struct {
				Enabled bool `json:"enabled"`
			} `json:"pq"`
			BQ struct {
				Enabled bool `json:"enabled"`
			} `json:"bq"`
			SQ struct {
				Enabled bool `json:"enabled"`
			} `json:"sq"`
			RQ struct {
				Enabled bool `json:"enabled"`
			} `json:"rq"`
		} `json:"vectorIndexConfig"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return "?"
	}
	c := v.VectorIndexConfig
	ef := strconv.Itoa(c.Ef)
	if c.Ef < 0 {
		ef = fmt.Sprintf("dynamic %d..%d (%d x limit)", c.DynamicEfMin, c.DynamicEfMax, c.DynamicEfFact)
	}
	q := "none"
	for _, x := range []struct {
		name string
		on   bool
	}{{"PQ", c.PQ.Enabled}, {"BQ", c.BQ.Enabled}, {"SQ", c.SQ.Enabled}, {"RQ", c.RQ.Enabled}} {
		if x.on {
			q = x.name
		}
	}
	return fmt.Sprintf("%s, %s distance, efConstruction %d, maxConnections %d, ef %s, quantization %s",
		v.VectorIndexType, c.Distance, c.EfConstruction, c.MaxConnections, ef, q)
}

// loadAvg is the 1-, 5- and 15-minute load average, from /proc/loadavg.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// serverVersion is the server's version, from /v1/meta.
func (b *bench) serverVersion() string {
	body, err := b.rest(http.MethodGet, "/v1/meta")
	if err != nil {
		check(fmt.Errorf("weaviate at %s: %w", b.host, err))
	}
	var v struct {
		Version string `json:"version"`
	}
	json.Unmarshal(body, &v)
	return v.Version
}

// dropClass deletes a library class and its side classes, if they exist.
func (b *bench) dropClass(class string) {
	for _, c := range []string{class, class + "_Meta", class + "_Verdicts", class + "_Failures"} {
		if _, err := b.rest(http.MethodDelete, "/v1/schema/"+c); err != nil {
			progress("weaviate: deleting class %s: %v", c, err)
		}
	}
}

var restClient = &http.Client{Timeout: 60 * time.Second}

// rest sends a body-less request to the server's REST API and returns the
// answer of a 2xx status.
func (b *bench) rest(method, path string) ([]byte, error) {
	req, err := http.NewRequest(method, "http://"+b.host+path, nil)
	if err != nil {
		return nil, err
	}
	if key := os.Getenv(weaviate.EnvAPIKey); key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := restClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(body)))
	}
	return body, nil
}

// runSearches runs qs from conc goroutines and returns the latencies'
// summary and each query's result ids.
func runSearches(ctx context.Context, lib foley.Library, qs []query, conc int, mk func(query) foley.SearchQuery) (searchResult, [][]string) {
	lat := make([]time.Duration, len(qs))
	out := make([][]string, len(qs))
	var next, errs atomic.Int64
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	start := time.Now()
	stop := ticker(func() {
		progress("  %d of %d queries, %.0f QPS", min(int(next.Load()), len(qs)), len(qs), float64(min(int(next.Load()), len(qs)))/time.Since(start).Seconds())
	})
	defer stop()
	for range conc {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(qs) {
					return
				}
				t := time.Now()
				res, err := lib.Search(ctx, mk(qs[i]))
				lat[i] = time.Since(t)
				if err != nil {
					if errs.Add(1) == 1 {
						mu.Lock()
						firstErr = err
						mu.Unlock()
					}
					continue
				}
				out[i] = ids(res)
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)
	if firstErr != nil {
		progress("search error: %v", firstErr)
	}
	slices.Sort(lat)
	return searchResult{conc: conc, p50: percentile(lat, 50), p99: percentile(lat, 99),
		qps: float64(len(qs)) / wall.Seconds(), errs: int(errs.Load())}, out
}

// percentile of sorted durations, interpolated linearly (as numpy).
func percentile(s []time.Duration, p float64) time.Duration {
	x := p / 100 * float64(len(s)-1)
	lo := int(x)
	hi := min(lo+1, len(s)-1)
	f := x - float64(lo)
	return time.Duration(float64(s[lo])*(1-f) + float64(s[hi])*f)
}

func ids(cs []foley.Candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Sound.ID
	}
	return out
}

// overlap is the mean, over the queries both answered, of the share of ids
// the two top lists have in common (of the longer list), and how many
// queries that is.
func overlap(a, b [][]string) (float64, int) {
	var sum float64
	n := 0
	for i := range min(len(a), len(b)) {
		if a[i] == nil || b[i] == nil {
			continue
		}
		l := max(len(a[i]), len(b[i]))
		n++
		if l == 0 {
			sum++
			continue
		}
		shared := 0
		for _, id := range a[i] {
			if slices.Contains(b[i], id) {
				shared++
			}
		}
		sum += float64(shared) / float64(l)
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), n
}

// memStat is a process's resident set, now and at its peak, in KiB.
type memStat struct{ rss, hwm int64 }

// memOf reads VmRSS and VmHWM of /proc/PID/status (PID "self" for this
// process); zeros elsewhere.
func memOf(pid string) memStat {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		progress("memory of %s: %v", pid, err)
		return memStat{}
	}
	var m memStat
	for _, line := range strings.Split(string(b), "\n") {
		for _, f := range []struct {
			key string
			dst *int64
		}{{"VmRSS:", &m.rss}, {"VmHWM:", &m.hwm}} {
			if rest, ok := strings.CutPrefix(line, f.key); ok {
				if fs := strings.Fields(rest); len(fs) > 0 {
					*f.dst, _ = strconv.ParseInt(fs[0], 10, 64)
				}
			}
		}
	}
	return m
}

// freeMemory returns the garbage to the operating system, so that this
// process's resident set is what it still uses.
func freeMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}

func mib(kib int64) float64 { return float64(kib) / 1024 }

// dirSize is the size of the files under dir.
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// report prints the table.
func (b *bench) report(out io.Writer, total time.Duration) {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	left := func(format string, args ...any) {
		w.Flush()
		fmt.Fprintf(out, format+"\n", args...)
	}
	server := "weaviate-server started by the bench, 1 node"
	if b.external {
		server = "the server at " + b.host
	}
	batches := "gRPC"
	if b.grpc == "" {
		batches = "REST"
	}
	left("SQLite (embedded) vs Weaviate %s (%s; batch writes over %s)", b.version, server, batches)
	vectors := "uniformly random"
	if k := len(b.space.centres); k > 0 {
		vectors = fmt.Sprintf("clustered (%d centres)", k)
	}
	left("%d records, %d-d %s unit vectors (%s), captions and tags from %d sound words; %d cores, Go %s",
		b.n, b.dim, vectors, model, len(vocab), runtime.NumCPU(), strings.TrimPrefix(runtime.Version(), "go"))
	left("load average at the start %s, at the end %s", b.load[0], b.load[1])
	left("vector index: sqlite %s (sqlite.Options{}); weaviate %s", b.sqliteKind, b.windex)
	left("")

	left("ingest: Upsert of %d records a call (Weaviate: %d objects a batch request)", b.batch, weaviate.BatchSize)
	fmt.Fprintln(w, "backend\twriters\ttime s\trecords/s\tweaviate/sqlite\t")
	var base float64
	for _, r := range b.ingest {
		rate := float64(b.n) / r.dur.Seconds()
		ratio := ""
		if r.backend == "sqlite" {
			base = rate
		} else if base > 0 {
			ratio = fmt.Sprintf("%.2fx", rate/base)
		}
		fmt.Fprintf(w, "%s\t%d\t%.1f\t%.0f\t%s\t\n", r.backend, r.writers, r.dur.Seconds(), rate, ratio)
	}
	w.Flush()
	wait := fmt.Sprintf("weaviate: every record counted and indexed %.2f s after the last write (1 writer)", b.indexWait[0].Seconds())
	if len(b.ingest) > 2 {
		wait += fmt.Sprintf(", %.2f s (%d writers)", b.indexWait[1].Seconds(), b.writers)
	}
	left("%s; not included above", wait)
	left("sqlite: the first search loaded the vectors (%s index) in %.2f s; not included above (Weaviate indexes while it ingests)", b.sqliteKind, b.sqliteFirst.Seconds())
	left("")

	left("search: hybrid (2-3 words + vector), K 10, %d queries after %d warm-up, the same queries on both", b.nq, warmup)
	fmt.Fprintln(w, "backend\tconcurrency\tp50 ms\tp99 ms\tQPS\terrors\t")
	byKey := map[string]searchResult{}
	for _, r := range b.searches {
		byKey[fmt.Sprint(r.backend, r.conc)] = r
		fmt.Fprintf(w, "%s\t%d\t%.2f\t%.2f\t%.0f\t%d\t\n", r.backend, r.conc, ms(r.p50), ms(r.p99), r.qps, r.errs)
	}
	for _, conc := range []int{1, 16} {
		s, wv := byKey[fmt.Sprint("sqlite", conc)], byKey[fmt.Sprint("weaviate", conc)]
		fmt.Fprintf(w, "weaviate/sqlite\t%d\t%.2fx\t%.2fx\t%.2fx\t\t\n", conc, ms(wv.p50)/ms(s.p50), ms(wv.p99)/ms(s.p99), wv.qps/s.qps)
	}
	w.Flush()
	left("rank agreement, top-10 ids shared (mean): hybrid %.3f (%d queries), vector only %.3f, text only %.3f (%d queries)",
		b.agree[0], b.agreeN[0], b.agree[1], b.agree[2], b.agreeN[1])
	left("")

	left("memory (resident, MiB)")
	fmt.Fprintln(w, "process\twhen\tVmRSS\tVmHWM\t")
	for _, m := range b.wmem {
		fmt.Fprintf(w, "weaviate-server\t%s\t%.0f\t%.0f\t\n", m.when, mib(m.mem.rss), mib(m.mem.hwm))
	}
	if len(b.wmem) == 0 {
		fmt.Fprintf(w, "weaviate-server\t(give -pid to measure)\t\t\t\n")
	}
	fmt.Fprintf(w, "bench (SQLite library)\tafter the searches\t%.0f\t%.0f\t\n", mib(b.self.rss), mib(b.self.hwm))
	w.Flush()
	left("bench: Go heap in use %.0f MiB after the searches; its VmHWM includes the generated records (freed before ingest ended)", float64(b.selfHeap)/(1<<20))
	disk := fmt.Sprintf("disk: sqlite %.0f MiB", float64(b.sqliteDisk)/(1<<20))
	if b.dataDir != "" {
		disk += fmt.Sprintf(", weaviate data dir %.0f MiB (after the 1-writer ingest and the searches)", float64(b.wDisk)/(1<<20))
	}
	left("%s", disk)
	left("")
	left("total run time %.1f s", total.Seconds())
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// The cleanups run once, last added first, at the end, on failure or on
// interrupt.
var (
	cleanMu  sync.Mutex
	cleanups []func()
	cleaned  bool
	// interrupted is set on a signal: the errors that follow (the server
	// is gone) are not reported, and the signal handler exits.
	interrupted atomic.Bool
)

func atCleanup(f func()) {
	cleanMu.Lock()
	defer cleanMu.Unlock()
	cleanups = append(cleanups, f)
}

func cleanup() {
	cleanMu.Lock()
	defer cleanMu.Unlock()
	if cleaned {
		return
	}
	cleaned = true
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
}

// ticker calls f every 10 s until the returned stop is called.
func ticker(f func()) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(10 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				f()
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

func check(err error) {
	if err == nil {
		return
	}
	if interrupted.Load() {
		select {} // the signal handler cleans up and exits
	}
	fmt.Fprintln(os.Stderr, "bench/weaviate:", err)
	var pe *foley.PartialError
	if errors.As(err, &pe) {
		fmt.Fprintf(os.Stderr, "bench/weaviate: %d of %d records refused\n", len(pe.Failed), pe.Total)
	}
	cleanup()
	os.Exit(1)
}

func usage(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench/weaviate: "+format+"\n", args...)
	flag.Usage()
	os.Exit(2)
}
