package mp3

import (
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

// TestCPUTimeVsFFmpeg compares the CPU time of decoding one-minute files with
// ffmpeg's (`ffmpeg -benchmark -threads 1 -i F -f null -`), best of 3 runs
// each. It runs only with MP3TIMING=1 (it takes a while):
//
//	MP3TIMING=1 go test -run TestCPUTimeVsFFmpeg -v ./internal/mp3/
//
// Extra files can be given in MP3TIMING_FILES (separated by ':').
func TestCPUTimeVsFFmpeg(t *testing.T) {
	if os.Getenv("MP3TIMING") == "" {
		t.Skip("set MP3TIMING=1 to measure CPU time against ffmpeg")
	}
	ff := requireTool(t, "ffmpeg")
	sox := requireTool(t, "sox")
	dir := t.TempDir()
	type input struct{ name, path string }
	var inputs []input
	mk := func(name string, soxArgs []string, ffArgs ...string) {
		wav := filepath.Join(dir, name+".wav")
		if out, err := exec.Command(sox, append([]string{"-n", "-r", "44100", "-c", "2", wav}, soxArgs...)...).CombinedOutput(); err != nil {
			t.Fatalf("sox: %v\n%s", err, out)
		}
		mp3 := filepath.Join(dir, name+".mp3")
		args := append([]string{"-v", "error", "-y", "-i", wav, "-c:a", "libmp3lame"}, ffArgs...)
		if out, err := exec.Command(ff, append(args, mp3)...).CombinedOutput(); err != nil {
			t.Fatalf("ffmpeg: %v\n%s", err, out)
		}
		inputs = append(inputs, input{name, mp3})
	}
	mk("pink_192k", []string{"synth", "60", "pinknoise", "vol", "0.5"}, "-b:a", "192k")
	// Speech-like/transient: gated noise bursts, formant-ish tones, clicks.
	mk("transient_vbr", []string{"synth", "60", "pinknoise", "sine", "180", "square", "3",
		"vol", "0.6", "tremolo", "5", "90", "highpass", "80"}, "-q:a", "2")
	for _, p := range filepath.SplitList(os.Getenv("MP3TIMING_FILES")) {
		inputs = append(inputs, input{filepath.Base(p), p})
	}
	re := regexp.MustCompile(`bench: utime=([0-9.]+)s stime=([0-9.]+)s`)
	for _, in := range inputs {
		data, err := os.ReadFile(in.path)
		if err != nil {
			t.Fatal(err)
		}
		ffRun := func() time.Duration {
			out, err := exec.Command(ff, "-hide_banner", "-benchmark", "-threads", "1", "-i", in.path, "-f", "null", "-").CombinedOutput()
			if err != nil {
				t.Fatalf("ffmpeg: %v\n%s", err, out)
			}
			m := re.FindSubmatch(out)
			if m == nil {
				t.Fatalf("no bench line in ffmpeg output:\n%s", out)
			}
			u, _ := strconv.ParseFloat(string(m[1]), 64)
			s, _ := strconv.ParseFloat(string(m[2]), 64)
			return time.Duration((u + s) * float64(time.Second))
		}
		buf := make([]float32, 8192)
		var samples int
		ourRun := func() time.Duration {
			prev := runtime.GOMAXPROCS(1)
			defer runtime.GOMAXPROCS(prev)
			runtime.GC()
			t0 := cpuTime()
			n, err := decodeDiscard(data, buf)
			if err != nil {
				t.Fatal(err)
			}
			samples = n
			return cpuTime() - t0
		}
		// Alternate the runs so that both see the same machine load.
		ffTime, ours := time.Duration(1<<62), time.Duration(1<<62)
		for i := 0; i < 3; i++ {
			ffTime = min(ffTime, ffRun())
			ours = min(ours, ourRun())
		}
		t.Logf("%-16s %7d KiB %9d samples: ours %6.3fs  ffmpeg %6.3fs  CPU ratio ours/ffmpeg %.2f (throughput %.2fx ffmpeg)",
			in.name, len(data)>>10, samples, ours.Seconds(), ffTime.Seconds(), ours.Seconds()/ffTime.Seconds(), ffTime.Seconds()/ours.Seconds())
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
