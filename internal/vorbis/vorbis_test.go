package vorbis

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// needTool returns the path of a command-line tool, or skips the test when it
// is missing (fails instead when CI=true).
func needTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required when CI=true: %v", name, err)
		}
		t.Skipf("%s not installed: %v", name, err)
	}
	return p
}

// ffmpegDecode decodes a file with ffmpeg to interleaved float32.
func ffmpegDecode(t testing.TB, path string) []float32 {
	t.Helper()
	ff := needTool(t, "ffmpeg")
	cmd := exec.Command(ff, "-hide_banner", "-loglevel", "error", "-threads", "1", "-i", path,
		"-f", "f32le", "-acodec", "pcm_f32le", "-")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ffmpeg %s: %v\n%s", path, err, stderr.String())
	}
	s := make([]float32, len(out)/4)
	for i := range s {
		s[i] = math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:]))
	}
	return s
}

// decodeAll decodes everything with reads of bufFrames frames.
func decodeAll(t testing.TB, r io.Reader, bufFrames int) (*Decoder, []float32, error) {
	t.Helper()
	d, err := NewDecoder(r)
	if err != nil {
		return nil, nil, err
	}
	buf := make([]float32, bufFrames*d.Channels())
	var out []float32
	for {
		n, err := d.Read(buf)
		if n%d.Channels() != 0 {
			t.Fatalf("Read returned %d samples, not a multiple of %d channels", n, d.Channels())
		}
		out = append(out, buf[:n]...)
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return d, out, err
		}
		if n == 0 {
			t.Fatal("Read returned 0, nil")
		}
	}
}

func clamp1(v float32) float64 {
	return math.Max(-1, math.Min(1, float64(v)))
}

// compare returns the max abs difference and the SNR (dB) of got vs want.
func compare(got, want []float32) (maxDiff, snr float64) {
	var sig, noise float64
	for i := range want {
		w := clamp1(want[i])
		e := float64(got[i]) - w
		sig += w * w
		noise += e * e
		maxDiff = math.Max(maxDiff, math.Abs(e))
	}
	if noise == 0 {
		return maxDiff, math.Inf(1)
	}
	return maxDiff, 10 * math.Log10(sig/noise)
}

func fixtures(t testing.TB) []string {
	files, err := filepath.Glob("testdata/*.ogg")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	var out []string
	for _, f := range files {
		b := filepath.Base(f)
		if strings.HasPrefix(b, "other_") {
			continue
		}
		out = append(out, f)
	}
	return out
}

// granuleInfo returns the last granule position of a file's first stream
// and whether all its audio is on the end-of-stream page (which ffmpeg 5.1
// does not trim as the granule position says).
func granuleInfo(t *testing.T, path string) (int, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pages := parsePages(data)
	serial := pages[0].serial
	last, onePage := -1, false
	seenAudio := false
	for _, p := range pages {
		if p.serial != serial {
			continue
		}
		if p.granule > 0 && !seenAudio {
			seenAudio = true
			onePage = p.flags&flagEOS != 0
		}
		if p.granule != -1 {
			last = int(p.granule)
		}
		if p.flags&flagEOS != 0 {
			break
		}
	}
	return last, onePage
}

func checkAgainstFFmpeg(t *testing.T, path string, wantFrames int, prefixOnly bool) {
	want := ffmpegDecode(t, path)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, got, err := decodeAll(t, f, 1000)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	ch := d.Channels()
	if wantFrames >= 0 && len(got) != wantFrames*ch {
		t.Errorf("decoded %d frames, the final granule position says %d", len(got)/ch, wantFrames)
	}
	if d.TotalFrames()*int64(ch) != int64(len(got)) {
		t.Errorf("TotalFrames %d, decoded %d frames", d.TotalFrames(), len(got)/ch)
	}
	n := len(want)
	if prefixOnly {
		n = min(len(got), len(want))
		t.Logf("ffmpeg returns %d frames, we return %d (granule: %d); comparing the first %d",
			len(want)/ch, len(got)/ch, wantFrames, n/ch)
	} else if len(got) != len(want) {
		t.Fatalf("%d samples, ffmpeg has %d (%d channels)", len(got), len(want), ch)
	}
	maxDiff, snr := compare(got[:n], want[:n])
	t.Logf("%s: %d Hz, %d ch, %d frames: max abs diff %.3g, SNR %.1f dB", filepath.Base(path),
		d.SampleRate(), ch, len(got)/ch, maxDiff, snr)
	if snr < 90 {
		t.Errorf("SNR %.1f dB < 90 dB (max abs diff %g)", snr, maxDiff)
	}
}

// TestAgainstFFmpeg compares every fixture with ffmpeg's float decode.
func TestAgainstFFmpeg(t *testing.T) {
	for _, path := range fixtures(t) {
		name := filepath.Base(path)
		if name == "chained.ogg" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			wantFrames, onePage := granuleInfo(t, path)
			if e, ok := expectedFrames[name]; !ok || e != wantFrames {
				t.Errorf("expected length table has %d, final granule position %d", e, wantFrames)
			}
			if onePage != ffmpegMistrims[name] {
				t.Errorf("ffmpegMistrims is wrong about this file")
			}
			checkAgainstFFmpeg(t, path, wantFrames, onePage)
		})
	}
}

// TestFreedesktopSounds decodes Debian's sound-theme-freedesktop files and
// compares them with ffmpeg.
func TestFreedesktopSounds(t *testing.T) {
	files, _ := filepath.Glob("/usr/share/sounds/freedesktop/stereo/*.oga")
	if len(files) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("/usr/share/sounds/freedesktop/stereo/*.oga missing (install sound-theme-freedesktop)")
		}
		t.Skip("sound-theme-freedesktop is not installed")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			wantFrames, onePage := granuleInfo(t, path)
			checkAgainstFFmpeg(t, path, wantFrames, onePage)
		})
	}
}

// expectedFrames are the stream lengths given by the last granule positions
// (libvorbisfile, e.g. `soxi -s`, agrees).
var expectedFrames = map[string]int{
	"burst44_q4.ogg":       63504,
	"comments_sox.ogg":     33075,
	"pink44_q5.ogg":        88200,
	"pink44_qm1_sox.ogg":   88200,
	"pink48_q10.ogg":       48000,
	"pink96_q6_sox.ogg":    96000,
	"saw32_q7.ogg":         32000,
	"short_1.ogg":          1,
	"short_100.ogg":        92,
	"short_1000_sox.ogg":   919,
	"six48_q4.ogg":         48000,
	"speech16_mono_q2.ogg": 32000,
	"square11_q1_sox.ogg":  11025,
	"sweep8_mono_q3.ogg":   16000,
	"tone22_mono_q0.ogg":   33075,
	"three22_q3.ogg":       11025,
	"eight32_q3.ogg":       16000,
}

// ffmpegMistrims lists the fixtures whose whole audio is on the last page:
// ffmpeg 5.1 does not trim them as the final granule position says (it
// returns a different number of samples, libvorbisfile agrees with us), so
// only the common prefix is compared.
var ffmpegMistrims = map[string]bool{
	"comments_sox.ogg":    true,
	"short_1.ogg":         true,
	"short_100.ogg":       true,
	"short_1000_sox.ogg":  true,
	"square11_q1_sox.ogg": true,
	"three22_q3.ogg":      true,
	"eight32_q3.ogg":      true,
}
