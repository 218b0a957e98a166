package mp3

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"testing"
)

// decodeAll decodes data with reads of size bufLen.
func decodeAll(data []byte, bufLen int) (*Decoder, []float32, error) {
	d, err := NewDecoder(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	var out []float32
	buf := make([]float32, bufLen)
	for {
		n, err := d.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return d, out, nil
		}
		if err != nil {
			return d, out, err
		}
	}
}

// ffmpegDecode returns ffmpeg's float decode of the file, clamped to [-1, 1].
func ffmpegDecode(t testing.TB, path string) []float32 {
	t.Helper()
	ff := requireTool(t, "ffmpeg")
	cmd := exec.Command(ff, "-v", "error", "-i", path, "-f", "f32le", "-acodec", "pcm_f32le", "-")
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ffmpeg %s: %v\n%s", path, err, stderr.String())
	}
	b := stdout.Bytes()
	out := make([]float32, len(b)/4)
	for i := range out {
		v := math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		out[i] = float32(math.Max(-1, math.Min(1, float64(v))))
	}
	return out
}

// requireTool returns the path of an external tool, skipping the test when
// it is missing (failing when CI=true).
func requireTool(t testing.TB, name string) string {
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

type cmpStats struct {
	maxAbs float64
	snr    float64
}

func compareSamples(got, want []float32) cmpStats {
	var sig, noise, maxAbs float64
	for i := range want {
		w := float64(want[i])
		e := float64(got[i]) - w
		sig += w * w
		noise += e * e
		if math.Abs(e) > maxAbs {
			maxAbs = math.Abs(e)
		}
	}
	snr := math.Inf(1)
	if noise > 0 {
		snr = 10 * math.Log10(sig/noise)
	}
	return cmpStats{maxAbs, snr}
}

// TestDevCompare compares the decode of any file with ffmpeg's:
//
//	MP3DEV=/path/to/file.mp3 go test -run TestDevCompare -v ./internal/mp3/
func TestDevCompare(t *testing.T) {
	path := os.Getenv("MP3DEV")
	if path == "" {
		t.Skip("MP3DEV not set")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, got, err := decodeAll(data, 4096)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatal(err)
	}
	want := ffmpegDecode(t, path)
	t.Logf("sr %d ch %d total %d; got %d want %d samples", d.SampleRate(), d.Channels(), d.TotalFrames(), len(got), len(want))
	n := min(len(got), len(want))
	st := compareSamples(got[:n], want[:n])
	t.Logf("max abs %.3g snr %.1f dB", st.maxAbs, st.snr)
	// first differing region
	for i := 0; i < n; i++ {
		if math.Abs(float64(got[i]-want[i])) > 1e-3 {
			t.Logf("first big diff at %d (frame %d): got %v want %v", i, i/d.Channels()/1152, got[i:min(i+4, n)], want[i:min(i+4, n)])
			break
		}
	}
}
