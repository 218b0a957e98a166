// Command decode times foley's decoders: it decodes each file given to the
// end through audio.Open, on one thread, and prints the CPU time of the best
// of several runs as JSON lines. bench/decode/run.sh runs it beside ffmpeg.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"
	"time"

	"github.com/foley-audio/foley/audio"
)

type result struct {
	File       string  `json:"file"`
	Format     string  `json:"format"`
	Codec      string  `json:"codec"`
	Frames     int64   `json:"frames"`
	CPUSeconds float64 `json:"cpu_seconds"`
	Wall       float64 `json:"wall_seconds"`
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func decode(path string) (result, error) {
	d, err := audio.Open(path)
	if err != nil {
		return result{}, err
	}
	defer d.Close()
	buf := make([]float32, 4096*d.Info().Channels)
	for {
		_, err := d.Read(buf)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return result{}, err
		}
	}
	i := d.Info()
	return result{File: path, Format: string(i.Format), Codec: i.Codec, Frames: d.FramesRead()}, nil
}

func main() {
	runs := flag.Int("runs", 3, "runs per file; the best is reported")
	flag.Parse()
	runtime.GOMAXPROCS(1)
	enc := json.NewEncoder(os.Stdout)
	for _, path := range flag.Args() {
		var best result
		for i := range *runs {
			runtime.GC()
			c0, w0 := cpuTime(), time.Now()
			r, err := decode(path)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			r.CPUSeconds, r.Wall = (cpuTime() - c0).Seconds(), time.Since(w0).Seconds()
			if i == 0 || r.CPUSeconds < best.CPUSeconds {
				best = r
			}
		}
		enc.Encode(best)
	}
}
