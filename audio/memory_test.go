package audio

import (
	"encoding/binary"
	"io"
	"runtime"
	"testing"
)

// wavStream generates a long 16-bit stereo WAV on the fly, without a file,
// and records the largest heap seen while it is read.
type wavStream struct {
	header   []byte
	left     int64 // data bytes still to produce
	seed     uint32
	reads    int
	peakHeap uint64
}

func newWAVStream(rate int, seconds int64) *wavStream {
	data := seconds * int64(rate) * 4
	h := buildWAV("RIFF", fmtChunk(1, 2, rate, 16), chunk{id: "data", size: data})
	return &wavStream{header: h, left: data, seed: 1}
}

func (w *wavStream) Read(p []byte) (int, error) {
	if len(w.header) > 0 {
		n := copy(p, w.header)
		w.header = w.header[n:]
		return n, nil
	}
	if w.left == 0 {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), w.left)) &^ 1
	for i := 0; i < n; i += 2 {
		w.seed = w.seed*1664525 + 1013904223
		binary.LittleEndian.PutUint16(p[i:], uint16(w.seed>>16)/4)
	}
	w.left -= int64(n)
	if w.reads++; w.reads%256 == 0 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		w.peakHeap = max(w.peakHeap, m.HeapInuse)
	}
	return n, nil
}

// TestAnalyzeStreamsInBoundedMemory measures a 20-minute stream: the heap
// must stay far below the PCM's size (440 MB as float32).
func TestAnalyzeStreamsInBoundedMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("streams 20 minutes of audio")
	}
	runtime.GC() // forget what earlier tests left behind
	s := newWAVStream(48000, 20*60)
	d, err := NewDecoder(s)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Analyze(d, DefaultQC(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if f.Frames != 20*60*48000 || len(f.Peaks) != 1000 || f.LoudnessLUFS == nil {
		t.Errorf("facts: %d frames, %d peaks", f.Frames, len(f.Peaks))
	}
	if s.peakHeap > 64<<20 {
		t.Errorf("heap reached %d MiB while streaming", s.peakHeap>>20)
	}
	t.Logf("peak heap %.1f MiB for 20 minutes of stereo audio", float64(s.peakHeap)/(1<<20))
}
