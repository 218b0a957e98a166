package vorbis

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode decodes arbitrary input with a small dst: no panic, sample
// counts are multiples of the channel count, samples are finite and in
// [-1, 1].
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.ogg")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) > 9000 {
			data = data[:9000] // keep the seeds quick; truncation is tested too
		}
		f.Add(data)
		f.Add(data[:len(data)*2/3])
		flipped := append([]byte(nil), data...)
		for i := 200; i < len(flipped); i += 997 {
			flipped[i] ^= 0x21
		}
		f.Add(flipped)
	}
	// Synthetic streams (with CRCs fixed so that the fuzzer reaches the
	// codec).
	pk := [][]byte{identHeader(1, 8000, 8, 8), commentHeader("test", "A=1"), minimalSetup(nil)}
	gr := []int64{0, 0, 0}
	for i := 0; i < 4; i++ {
		pk = append(pk, audioPacket(200, 220, []byte{0x55, 0xAA, 0x0F, 0xF0}))
		gr = append(gr, int64(i*128))
	}
	f.Add(joinPages(packetsToPages(7, pk, gr)))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzOne(t, data, false)
		// The same bytes with every page's CRC fixed, so that corrupt
		// codec data gets past the Ogg layer.
		if fixed := fixCRCs(data); fixed != nil {
			fuzzOne(t, fixed, true)
		}
	})
}

func fuzzOne(t *testing.T, data []byte, seek bool) {
	var r io.Reader = bytes.NewReader(data)
	if !seek {
		r = onlyReader{r}
	}
	d, err := NewDecoder(r)
	if err != nil {
		return
	}
	ch := d.Channels()
	if ch < 1 || ch > 255 {
		t.Fatalf("channels %d", ch)
	}
	buf := make([]float32, ch*3+1)
	total := 0
	for total < 4<<20 {
		n, err := d.Read(buf)
		if n%ch != 0 || n > len(buf) {
			t.Fatalf("Read returned %d samples with %d channels", n, ch)
		}
		for _, v := range buf[:n] {
			if math.IsNaN(float64(v)) || v > 1 || v < -1 {
				t.Fatalf("bad sample %v", v)
			}
		}
		total += n
		if err != nil {
			if n != 0 {
				t.Fatalf("Read returned %d samples with error %v", n, err)
			}
			n2, err2 := d.Read(buf)
			if n2 != 0 || err2 == nil || err2.Error() != err.Error() {
				t.Fatalf("error not sticky: %v then %d, %v", err, n2, err2)
			}
			return
		}
		if n == 0 {
			t.Fatal("Read returned 0, nil")
		}
	}
}

// fixCRCs rewrites the CRC of every page-like structure in data, or returns
// nil if data doesn't start with a page.
func fixCRCs(data []byte) []byte {
	if len(data) < 27 || string(data[:4]) != "OggS" {
		return nil
	}
	out := append([]byte(nil), data...)
	for off := 0; off+27 <= len(out) && string(out[off:off+4]) == "OggS"; {
		n := int(out[off+26])
		if off+27+n > len(out) {
			break
		}
		size := 0
		for _, l := range out[off+27 : off+27+n] {
			size += int(l)
		}
		end := off + 27 + n + size
		if end > len(out) {
			break
		}
		out[off+22], out[off+23], out[off+24], out[off+25] = 0, 0, 0, 0
		c := oggCRC(0, out[off:end])
		out[off+22], out[off+23], out[off+24], out[off+25] = byte(c), byte(c>>8), byte(c>>16), byte(c>>24)
		off = end
	}
	return out
}
