// Command ingest measures the library: files per second when indexing
// generated clips with the built-in embedder, and the time to open a large
// library and answer its first search (which loads the vectors).
//
//	go run ./bench/ingest                  # 2,000 clips, then a 1,000,000-record library
//	go run ./bench/ingest -clips 500 -records 100000
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/audio"
	"github.com/foley-audio/foley/embed"
	"github.com/foley-audio/foley/ingest"
	"github.com/foley-audio/foley/sqlite"
)

var words = []string{"door", "slam", "wood", "heavy", "rain", "roof", "wind", "gust", "dog", "bark", "glass", "break",
	"footsteps", "gravel", "metal", "impact", "water", "drip", "fire", "crackle", "thunder", "distant", "car", "engine"}

func main() {
	clips := flag.Int("clips", 2000, "generated clips to index")
	records := flag.Int("records", 1_000_000, "records of the large library (0 to skip)")
	keep := flag.String("dir", "", "work in this folder and keep it (default: a temporary one)")
	flag.Parse()
	ctx := context.Background()
	dir := *keep
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "foley-bench-ingest-"); err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
	}
	emb := embed.NewHash(0)
	fmt.Printf("cores %d\n", runtime.GOMAXPROCS(0))

	// 1. Index generated clips.
	sfx := filepath.Join(dir, "sfx")
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range *clips {
		name := fmt.Sprintf("%s_%s %s_%03d.wav", words[rng.IntN(len(words))], words[rng.IntN(len(words))], words[rng.IntN(len(words))], i)
		writeClip(filepath.Join(sfx, words[i%len(words)], name), 1+rng.Float64()*2, rng)
	}
	lib, err := sqlite.Open(ctx, filepath.Join(dir, "clips.db"), sqlite.Options{})
	if err != nil {
		fail(err)
	}
	start := time.Now()
	sum, err := ingest.Run(ctx, lib, emb, sfx, ingest.Options{License: "user-owned"})
	if err != nil {
		fail(err)
	}
	el := time.Since(start)
	fmt.Printf("index %d clips (1-3 s, 44.1 kHz mono WAV, built-in embedder): %.2f s, %.0f files/s (added %d, failed %d)\n",
		*clips, el.Seconds(), float64(sum.Added)/el.Seconds(), sum.Added, sum.Failed)
	start = time.Now()
	sum, _ = ingest.Run(ctx, lib, emb, sfx, ingest.Options{License: "user-owned"})
	fmt.Printf("re-index, nothing changed: %.2f s (%d unchanged)\n", time.Since(start).Seconds(), sum.Unchanged)
	lib.Close()

	// 2. A large library: open it; the first search loads its vectors, from
	// the database, then (after SaveIndex) from the snapshot.
	if *records == 0 {
		return
	}
	path := filepath.Join(dir, "large.db")
	if _, err := os.Stat(path); err != nil {
		if err := buildLarge(ctx, path, *records, emb); err != nil {
			fail(err)
		}
	} else {
		fmt.Printf("reusing %s\n", path)
	}
	os.Remove(path + ".vectors")
	q, _ := emb.EmbedText(ctx, []string{"heavy wooden door slam"})
	search := func(lib *sqlite.Library, text string) time.Duration {
		start := time.Now()
		if _, err := lib.Search(ctx, foley.SearchQuery{Text: text, Vector: q[0], Model: emb.Model(), K: 10}); err != nil {
			fail(err)
		}
		return time.Since(start)
	}
	for _, withSnapshot := range []bool{false, true} {
		start := time.Now()
		lib, err := sqlite.Open(ctx, path, sqlite.Options{Index: "exact"})
		if err != nil {
			fail(err)
		}
		opened := time.Since(start)
		first := search(lib, "heavy wooden door slam")
		var next []string
		for _, text := range []string{"rain on a roof", "glass break", "distant thunder"} {
			next = append(next, fmt.Sprintf("%.0f ms", float64(search(lib, text).Microseconds())/1000))
		}
		from := "the database"
		if withSnapshot {
			from = "the snapshot"
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		fmt.Printf("%d-record library: open %.3f s; first hybrid search, loading the vectors from %s, %.2f s; next hybrid searches %v (exact vectors); heap %.0f MiB\n",
			*records, opened.Seconds(), from, first.Seconds(), next, float64(m.HeapInuse)/(1<<20))
		if !withSnapshot {
			start = time.Now()
			files, err := lib.SaveIndex(ctx)
			if err != nil {
				fail(err)
			}
			fmt.Printf("SaveIndex wrote %v in %.2f s\n", files, time.Since(start).Seconds())
		}
		lib.Close()
		runtime.GC()
	}
}

func buildLarge(ctx context.Context, path string, n int, emb *embed.Hash) error {
	lib, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		return err
	}
	defer lib.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	start := time.Now()
	const batch = 2000
	entries := make([]sqlite.Entry, 0, batch)
	for i := range n {
		caption := fmt.Sprintf("%s %s %s %s", words[rng.IntN(len(words))], words[rng.IntN(len(words))], words[rng.IntN(len(words))], words[rng.IntN(len(words))])
		r := foley.SoundRecord{ID: fmt.Sprintf("r%07d", i), URI: fmt.Sprintf("/lib/%07d.wav", i), Caption: caption, DurationS: 1 + rng.Float64()*10,
			Format: "wav", License: foley.License{LicenseID: "CC0-1.0", RightsVerified: true}, EmbeddingModel: emb.Model()}
		entries = append(entries, sqlite.Entry{Record: r, Vector: emb.Embed(caption)})
		if len(entries) == batch || i == n-1 {
			if err := lib.Put(ctx, entries); err != nil {
				return err
			}
			entries = entries[:0]
		}
	}
	fmt.Printf("built a %d-record library in %.1f s\n", n, time.Since(start).Seconds())
	return nil
}

func writeClip(path string, secs float64, rng *rand.Rand) {
	os.MkdirAll(filepath.Dir(path), 0o755)
	n := int(secs * 44100)
	c := &audio.Clip{SampleRate: 44100, Channels: 1, Samples: make([]float32, n)}
	f0 := 100 + rng.Float64()*2000
	for i := range c.Samples {
		c.Samples[i] = float32(0.3*math.Sin(2*math.Pi*f0*float64(i)/44100) + 0.05*(rng.Float64()-0.5))
	}
	f, err := os.Create(path)
	if err != nil {
		fail(err)
	}
	defer f.Close()
	if err := c.WriteWAV16(f); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
