//go:build unix

package flac

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// The speed comparison with ffmpeg runs only when FLAC_SPEED=1, because it
// takes a while and needs sox, flac and ffmpeg:
//
//	FLAC_SPEED=1 go test -run TestSpeedVsFFmpeg -v ./internal/flac/
//
// It makes one-minute 44.1 kHz stereo 16-bit files (pink noise, speech-like
// and transient material) with sox and flac at the default compression,
// and compares the CPU time of ffmpeg -threads 1 with this decoder's at
// GOMAXPROCS=1, best of three each. FLAC_SPEED_FILES (colon-separated
// paths) adds files of your own.

// speedMaterial are the sox effects chains for the one-minute files.
var speedMaterial = []struct{ name, sox string }{
	{"pink", "synth 60 pinknoise vol 0.5"},
	{"speech", "synth 60 sawtooth 130 sawtooth 195 band 900 700 tremolo 3.7 95 vol 0.7"},
	{"transient", "synth 0.25 pinknoise fade p 0 0.25 0.245 pad 0 0.25 repeat 119"},
}

func TestSpeedVsFFmpeg(t *testing.T) {
	if os.Getenv("FLAC_SPEED") != "1" {
		t.Skip("set FLAC_SPEED=1 to compare CPU time with ffmpeg")
	}
	for _, tool := range []string{"sox", "flac", "ffmpeg"} {
		needTool(t, tool)
	}
	dir := t.TempDir()
	var files []string
	for _, m := range speedMaterial {
		wav := filepath.Join(dir, m.name+".wav")
		fl := filepath.Join(dir, m.name+".flac")
		args := append([]string{"-n", "-r", "44100", "-c", "2", "-b", "16", wav}, splitFields(m.sox)...)
		if out, err := exec.Command("sox", args...).CombinedOutput(); err != nil {
			t.Fatalf("sox %v: %v\n%s", args, err, out)
		}
		if out, err := exec.Command("flac", "-s", "-f", "-o", fl, wav).CombinedOutput(); err != nil {
			t.Fatalf("flac: %v\n%s", err, out)
		}
		files = append(files, fl)
	}
	if extra := os.Getenv("FLAC_SPEED_FILES"); extra != "" {
		files = append(files, filepath.SplitList(extra)...)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ff, mine := time.Duration(1<<62), time.Duration(1<<62)
		for range 3 {
			ff = min(ff, ffmpegCPU(t, f))
			mine = min(mine, decodeCPU(t, data))
		}
		t.Logf("%-14s %6.1f s audio  %7.1f KiB  ffmpeg %6.1f ms  flac %6.1f ms  ratio (ours/ffmpeg) %.2f  throughput %.2fx ffmpeg",
			filepath.Base(f), audioSeconds(t, data), float64(len(data))/1024,
			ff.Seconds()*1000, mine.Seconds()*1000, mine.Seconds()/ff.Seconds(), ff.Seconds()/mine.Seconds())
	}
}

func splitFields(s string) []string {
	return regexp.MustCompile(`\s+`).Split(s, -1)
}

var ffmpegUtime = regexp.MustCompile(`bench: utime=([0-9.]+)s stime=([0-9.]+)s`)

// ffmpegCPU is ffmpeg's own report of its user CPU time for decoding f.
func ffmpegCPU(t *testing.T, f string) time.Duration {
	out, err := exec.Command("ffmpeg", "-hide_banner", "-benchmark", "-threads", "1", "-i", f, "-f", "null", "-").CombinedOutput()
	if err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, out)
	}
	m := ffmpegUtime.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no bench line in ffmpeg output:\n%s", out)
	}
	u, _ := strconv.ParseFloat(string(m[1]), 64)
	return time.Duration(u * float64(time.Second))
}

// decodeCPU is the user+system CPU time of this process for one decode of
// data, at GOMAXPROCS=1 (so it includes the garbage collector).
func decodeCPU(t *testing.T, data []byte) time.Duration {
	runtime.GC()
	before := cpuTime()
	decodeAll(t, data)
	return cpuTime() - before
}

func decodeAll(t testing.TB, data []byte) int {
	d, err := NewDecoder(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]float32, 8192)
	total := 0
	for {
		n, err := d.Read(buf)
		total += n
		if err == io.EOF {
			return total
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func audioSeconds(t *testing.T, data []byte) float64 {
	d, err := NewDecoder(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return float64(d.TotalFrames()) / float64(d.SampleRate())
}

// BenchmarkDecode decodes the file named by FLAC_BENCH_FILE, or else the
// largest committed fixture.
func BenchmarkDecode(b *testing.B) {
	f := os.Getenv("FLAC_BENCH_FILE")
	if f == "" {
		f = filepath.Join("testdata", "s16_stereo_44k_c5.flac")
	}
	data, err := os.ReadFile(f)
	if err != nil {
		b.Skipf("no benchmark input: %v", err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		decodeAll(b, data)
	}
	// CPU time is steadier than wall time on a shared machine.
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
