package flac

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzDecode decodes arbitrary input with a small dst: it must not panic
// or hang, Read must return whole frames of channels and finite samples,
// and errors must be sticky. Seeds: the fixtures (large ones cut short),
// truncated and bit-flipped variants, and synthetic streams.
//
//	go test -run XXX -fuzz FuzzDecode -fuzztime 2m ./internal/flac/
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.flac"))
	r := rand.New(rand.NewPCG(9, 10))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) > 24<<10 {
			data = data[:24<<10]
		}
		f.Add(data)
		f.Add(data[:len(data)/3])
		flipped := bytes.Clone(data)
		for range 3 {
			i := r.IntN(len(flipped))
			flipped[i] ^= 1 << r.IntN(8)
		}
		f.Add(flipped)
	}
	// A 32-bit stereo frame with a 33-bit side channel, and a variable
	// block size stream with escapes and long quotients.
	l := []int64{-1 << 31, 1<<31 - 1, 5, -5, 0, 100, -100, 7}
	rt := []int64{1<<31 - 1, -1 << 31, 3, 3, 0, -100, 100, 7}
	side := make([]int64, len(l))
	for i := range l {
		side[i] = l[i] - rt[i]
	}
	s := streamHeader(48000, 2, 32, 8, 16, true)
	f.Add(append(s, encodeFrame(f, false, 0, 8, 32, [][]int64{l, side}, []subframe{{kind: 1}, {kind: 1}})...))
	x := []int64{0, 5000, -5000, 32767, -32768, 0, 1, -1}
	s = streamHeader(44100, 1, 16, 0, 16, true)
	s = append(s, encodeFrame(f, true, 0, 0, 16, [][]int64{x}, []subframe{{kind: 2, order: 0, param: constParam(0)}})...)
	s = append(s, encodeFrame(f, true, 8, 0, 16, [][]int64{x}, []subframe{{kind: 2, order: 1, porder: 1, param: constParam(-1), escBits: 17}})...)
	f.Add(s)

	f.Fuzz(func(t *testing.T, data []byte) {
		// A decode that runs this long is a hang: crash so that the
		// fuzzer records the input.
		tm := time.AfterFunc(10*time.Second, func() { panic("fuzz input took over 10 s: a hang?") })
		defer tm.Stop()
		// Every other input skips the CRC checks, so that mutations reach
		// the subframe and residual decoders.
		for _, ignoreCRC := range []bool{false, true} {
			fuzzOne(t, data, ignoreCRC)
		}
	})
}

func fuzzOne(t *testing.T, data []byte, ignoreCRC bool) {
	d, err := NewDecoder(bytes.NewReader(data))
	if err != nil {
		return
	}
	d.ignoreCRC = ignoreCRC
	nc := d.Channels()
	if nc < 1 || nc > 8 || d.BitsPerSample() < 4 || d.BitsPerSample() > 32 || d.SampleRate() <= 0 {
		t.Fatalf("channels %d, bits %d, rate %d", nc, d.BitsPerSample(), d.SampleRate())
	}
	buf := make([]float32, 3*nc+1)
	for {
		n, err := d.Read(buf)
		if n < 0 || n > len(buf) || n%nc != 0 {
			t.Fatalf("Read returned %d samples for %d channels", n, nc)
		}
		for _, v := range buf[:n] {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("sample %v", v)
			}
		}
		if err != nil {
			if n != 0 {
				t.Fatalf("Read returned %d samples with %v", n, err)
			}
			if n2, err2 := d.Read(buf); n2 != 0 || err2 != err {
				t.Fatalf("Read after %v: %d, %v", err, n2, err2)
			}
			return
		}
		if n == 0 {
			t.Fatal("Read returned 0, nil")
		}
	}
}
