// Command serve load-tests foley serve: it builds foley, serves the demo
// library on a free loopback port, and sends GET /v1/search from -c
// clients (32) for -d (30 s), with queries drawn from the demo's sounds.
// It reports throughput, p50 and p99 latency, errors, and the server's
// resident memory at the start, middle and end of the run.
//
//	go run ./bench/serve
//	go run ./bench/serve -c 64 -d 10s
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

var queries = []string{"door slam", "a heavy wooden door slams shut", "rain on a roof", "footsteps on gravel", "glass breaking",
	"dog barking", "church bell", "clock ticking", "fire crackling", "ocean waves", "wind gusts", "thunder", "keyboard typing",
	"ui click", "whoosh", "water dripping", "crowd murmur", "heartbeat", "metal clang", "paper rustle"}

func main() {
	conc := flag.Int("c", 32, "concurrent clients")
	dur := flag.Duration("d", 30*time.Second, "how long to send requests")
	flag.Parse()

	dir, err := os.MkdirTemp("", "foley-bench-serve-")
	check(err)
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "foley")
	build := exec.Command("go", "build", "-o", bin, "./cmd/foley")
	build.Stderr = os.Stderr
	check(build.Run())

	srv := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--log", "text")
	srv.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "FOLEY_LIBRARY=", "FOLEY_API_TOKEN=")
	stderr, err := srv.StderrPipe()
	check(err)
	check(srv.Start())
	defer srv.Process.Kill()
	base := ""
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "foley: serving on "); ok {
			base = u
			break
		}
	}
	if base == "" {
		check(fmt.Errorf("foley serve did not start"))
	}
	go io.Copy(io.Discard, stderr) // the request log

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *conc}}
	get := func(q string) (time.Duration, bool) {
		start := time.Now()
		res, err := client.Get(base + "/v1/search?k=10&q=" + url.QueryEscape(q))
		if err != nil {
			return time.Since(start), false
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return time.Since(start), res.StatusCode == 200
	}
	for _, q := range queries { // warm up: the first search loads the vectors
		get(q)
	}

	rss := []int{rssKiB(srv.Process.Pid)}
	var lats [][]time.Duration = make([][]time.Duration, *conc)
	var errs atomic.Int64
	stop := time.Now().Add(*dur)
	var wg sync.WaitGroup
	for i := range *conc {
		wg.Go(func() {
			for n := i; time.Now().Before(stop); n++ {
				d, ok := get(queries[n%len(queries)])
				if !ok {
					errs.Add(1)
				}
				lats[i] = append(lats[i], d)
			}
		})
	}
	time.Sleep(*dur / 2)
	rss = append(rss, rssKiB(srv.Process.Pid))
	wg.Wait()
	rss = append(rss, rssKiB(srv.Process.Pid))
	srv.Process.Signal(syscall.SIGTERM)
	srv.Wait()

	all := slices.Concat(lats...)
	slices.Sort(all)
	pct := func(p float64) time.Duration { return all[min(len(all)-1, int(p*float64(len(all))))] }
	fmt.Printf("GET /v1/search on the demo library, %d clients, %v\n", *conc, *dur)
	fmt.Printf("  requests %d, %.0f req/s, errors %d\n", len(all), float64(len(all))/dur.Seconds(), errs.Load())
	fmt.Printf("  latency p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", ms(pct(0.50)), ms(pct(0.99)), ms(all[len(all)-1]))
	fmt.Printf("  server RSS: start %d KiB, middle %d KiB, end %d KiB\n", rss[0], rss[1], rss[2])
	if errs.Load() > 0 || pct(0.99) > 50*time.Millisecond {
		fmt.Println("FAIL: want zero errors and p99 under 50 ms")
		os.Exit(1)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// rssKiB reads a process's resident set size from /proc (0 elsewhere).
func rssKiB(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	return 0
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/serve:", err)
		os.Exit(1)
	}
}
