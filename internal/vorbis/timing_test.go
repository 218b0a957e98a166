package vorbis

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the user+system CPU time of this process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// decodeFileCPU decodes a file and returns the CPU time it took.
func decodeFileCPU(t testing.TB, path string) time.Duration {
	t.Helper()
	runtime.GC()
	start := cpuTime()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := NewDecoder(f)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]float32, 4096)
	for {
		_, err := d.Read(buf)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return cpuTime() - start
}

var ffUtime = regexp.MustCompile(`bench: utime=([0-9.]+)s stime=([0-9.]+)s`)

// ffmpegCPU returns ffmpeg's single-threaded decode CPU time (utime+stime).
func ffmpegCPU(t testing.TB, path string) time.Duration {
	t.Helper()
	ff := needTool(t, "ffmpeg")
	out, err := exec.Command(ff, "-hide_banner", "-benchmark", "-threads", "1", "-i", path, "-f", "null", "-").CombinedOutput()
	if err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, out)
	}
	m := ffUtime.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no bench line in ffmpeg output:\n%s", out)
	}
	u, _ := strconv.ParseFloat(string(m[1]), 64)
	s, _ := strconv.ParseFloat(string(m[2]), 64)
	return time.Duration((u + s) * float64(time.Second))
}

// makeBenchFiles creates the one-minute benchmark files (44.1 kHz stereo
// pink noise, and transient + speech-like material) in dir.
func makeBenchFiles(t testing.TB, dir string) []string {
	t.Helper()
	sox := needTool(t, "sox")
	ff := needTool(t, "ffmpeg")
	run := func(name string, args ...string) {
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
	}
	p := func(s string) string { return filepath.Join(dir, s) }
	pink := p("pink60.ogg")
	trans := p("speech60.ogg")
	if _, err := os.Stat(trans); err == nil {
		return []string{pink, trans}
	}
	run(sox, "-n", "-r", "44100", "-c", "2", "-b", "16", p("pink.wav"), "synth", "60", "pinknoise", "pinknoise", "vol", "0.5")
	run(ff, "-hide_banner", "-loglevel", "error", "-y", "-i", p("pink.wav"), "-c:a", "libvorbis", "-q:a", "5", pink)
	run(sox, "-n", "-r", "44100", "-c", "1", "-b", "16", p("b1.wav"), "synth", "0.03", "whitenoise", "vol", "0.9", "fade", "0", "0.03", "0.02", "pad", "0", "0.25")
	run(sox, p("b1.wav"), p("burst.wav"), "repeat", "214")
	run(sox, "-n", "-r", "44100", "-c", "1", "-b", "16", p("sp.wav"), "synth", "60", "sawtooth", "120-180", "sine", "700", "sine", "1200",
		"remix", "1v0.6,2v0.2,3v0.1", "tremolo", "4", "95", "vol", "0.8")
	run(sox, "-M", p("burst.wav"), p("sp.wav"), "-c", "2", p("mix.wav"), "trim", "0", "60")
	run(ff, "-hide_banner", "-loglevel", "error", "-y", "-i", p("mix.wav"), "-c:a", "libvorbis", "-q:a", "5", trans)
	for _, f := range []string{"pink.wav", "b1.wav", "burst.wav", "sp.wav", "mix.wav"} {
		os.Remove(p(f))
	}
	return []string{pink, trans}
}

// TestSpeedVsFFmpeg measures CPU time against ffmpeg on one-minute files,
// best of 3 each, run side by side. It runs only with VORBIS_SPEED=1 (set
// VORBIS_BENCH_DIR to keep the generated files between runs).
func TestSpeedVsFFmpeg(t *testing.T) {
	if os.Getenv("VORBIS_SPEED") != "1" {
		t.Skip("set VORBIS_SPEED=1 to measure speed against ffmpeg")
	}
	dir := os.Getenv("VORBIS_BENCH_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	for _, f := range makeBenchFiles(t, dir) {
		bestFF, bestGo := time.Duration(1<<62), time.Duration(1<<62)
		reps := 3
		if n, err := strconv.Atoi(os.Getenv("VORBIS_REPS")); err == nil && n > 0 {
			reps = n
		}
		for i := 0; i < reps; i++ {
			bestFF = min(bestFF, ffmpegCPU(t, f))
			bestGo = min(bestGo, decodeFileCPU(t, f))
		}
		t.Logf("%s: ffmpeg %v, vorbis %v: speed %.2fx ffmpeg", filepath.Base(f), bestFF, bestGo,
			float64(bestFF)/float64(bestGo))
	}
}

// BenchmarkDecode decodes the one-minute pink noise file (VORBIS_BENCH_DIR or
// a temporary directory).
func BenchmarkDecode(b *testing.B) {
	dir := os.Getenv("VORBIS_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	for _, f := range makeBenchFiles(b, dir) {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(f), func(b *testing.B) {
			buf := make([]float32, 4096)
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				d, err := NewDecoder(bytes.NewReader(data))
				if err != nil {
					b.Fatal(err)
				}
				for {
					_, err := d.Read(buf)
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
