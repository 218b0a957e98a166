// Command verify measures concurrent verification and the verdict cache:
// it builds foley, serves a fake audio LM that answers each question in
// -delay (200 ms), and times `foley verify --level listen` over -n clips
// (64) at -concurrency (8) against the ideal, ceil(n/concurrency) rounds of
// delay; then runs the same command again and counts the server calls it
// made (the verdict cache should answer them all).
//
//	go run ./bench/verify
//	go run ./bench/verify -n 256 -concurrency 32
//	go run ./bench/verify -- --rate 50      # more foley verify flags
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/foley-audio/foley/audio"
	"github.com/foley-audio/foley/internal/fakeaudiolm"
)

func main() {
	n := flag.Int("n", 64, "candidates to verify")
	conc := flag.Int("concurrency", 8, "foley verify --concurrency")
	delay := flag.Duration("delay", 200*time.Millisecond, "how long the fake audio LM takes to answer")
	flag.Parse()
	extra := flag.Args() // more foley verify flags, e.g. -- --no-cache

	dir, err := os.MkdirTemp("", "foley-bench-verify-")
	check(err)
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "foley")
	build := exec.Command("go", "build", "-o", bin, "./cmd/foley")
	build.Stderr = os.Stderr
	check(build.Run())

	list := shortlist(dir, *n)
	fake := fakeaudiolm.Start("Qwen/Qwen2-Audio-7B-Instruct", func(q string, samples int) float64 {
		if strings.Contains(q, "door") {
			return 0.9
		}
		return 0.1
	})
	defer fake.Close()
	fake.Delay = *delay

	env := append(os.Environ(), "FOLEY_AUDIOLM_URL="+fake.BaseURL(), "FOLEY_AUDIOLM_MODEL=Qwen/Qwen2-Audio-7B-Instruct",
		"ANTHROPIC_API_KEY=", "FOLEY_LLM_URL=", "OTEL_EXPORTER_OTLP_ENDPOINT=", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=")
	verify := func() time.Duration {
		args := []string{"verify", "a heavy door slams", "-c", list, "--level", "listen", "--json",
			"--concurrency", fmt.Sprint(*conc), "--library", filepath.Join(dir, "library.db")}
		cmd := exec.Command(bin, append(args, extra...)...)
		cmd.Env = env
		cmd.Stderr = os.Stderr
		start := time.Now()
		out, err := cmd.Output()
		check(err)
		el := time.Since(start)
		var rows []struct {
			Verdict *struct{ Match bool } `json:"verdict"`
		}
		check(json.Unmarshal(out, &rows))
		for _, r := range rows {
			if r.Verdict == nil || !r.Verdict.Match {
				check(fmt.Errorf("a candidate was not verified: %s", out))
			}
		}
		return el
	}

	ideal := time.Duration(math.Ceil(float64(*n)/float64(*conc))) * *delay
	first := verify()
	calls := fake.Calls()
	second := verify()
	again := fake.Calls() - calls
	fmt.Printf("verify %d clips, concurrency %d, audio LM answering in %v\n", *n, *conc, *delay)
	fmt.Printf("  first run:  %6.3f s  (ideal %.3f s)  ratio %.3fx  server calls %d\n", first.Seconds(), ideal.Seconds(), first.Seconds()/ideal.Seconds(), calls)
	fmt.Printf("  second run: %6.3f s  server calls %d (cached)\n", second.Seconds(), again)
	if first.Seconds() > 1.2*ideal.Seconds() || again != 0 || calls != int64(*n) {
		fmt.Println("FAIL: want at most 1.2x the ideal, one call per clip, and no call on the second run")
		os.Exit(1)
	}
}

// shortlist writes n distinct one-second clips and a CC0 shortlist of them.
func shortlist(dir string, n int) string {
	var cands []map[string]any
	for i := range n {
		path := filepath.Join(dir, fmt.Sprintf("door%03d.wav", i))
		c := &audio.Clip{SampleRate: 48000, Channels: 2, Samples: make([]float32, 2*48000)}
		for k := range c.Samples {
			c.Samples[k] = float32(0.2 * math.Sin(float64(k*(i+1))*0.01))
		}
		f, err := os.Create(path)
		check(err)
		check(c.WriteWAV16(f))
		check(f.Close())
		cands = append(cands, map[string]any{
			"sound": map[string]any{"id": fmt.Sprintf("door-%03d", i), "uri": path, "caption": "a heavy door slams", "tags": []string{"door"},
				"license": map[string]any{"license_id": "CC0-1.0", "rights_verified": true}},
			"origin": "retrieved", "clap_score": 0.6,
		})
	}
	b, err := json.Marshal(cands)
	check(err)
	list := filepath.Join(dir, "shortlist.json")
	check(os.WriteFile(list, b, 0o644))
	return list
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/verify:", err)
		os.Exit(1)
	}
}
