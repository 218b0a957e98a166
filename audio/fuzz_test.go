package audio

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// seedFiles adds every fixture, and cut and corrupted copies of it.
func seedFiles(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.*")
	for _, name := range files {
		if filepath.Ext(name) == ".f32" || filepath.Ext(name) == ".sh" {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		data = data[:min(len(data), 16<<10)]
		f.Add(data)
		f.Add(data[:len(data)/2])
		flipped := bytes.Clone(data)
		flipped[len(flipped)/3] ^= 0x5A
		f.Add(flipped)
	}
}

// FuzzDecode runs the whole decoder on arbitrary input: it must not panic,
// hang or allocate by what a header claims, and what it returns must be
// whole frames of finite samples.
func FuzzDecode(f *testing.F) {
	seedFiles(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, r := range []io.Reader{bytes.NewReader(data), struct{ io.Reader }{bytes.NewReader(data)}} {
			d, err := NewDecoder(r)
			if err != nil {
				continue
			}
			info := d.Info()
			if info.Channels < 1 || info.SampleRate < 1 {
				t.Fatalf("decoder with info %+v", info)
			}
			buf := make([]float32, 3*info.Channels)
			total := 0
			for range 1 << 20 {
				n, err := d.Read(buf)
				if n%info.Channels != 0 {
					t.Fatalf("%d samples for %d channels", n, info.Channels)
				}
				for _, v := range buf[:n] {
					if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
						t.Fatalf("sample %v", v)
					}
				}
				total += n
				if err != nil {
					break
				}
			}
			if total > 64*len(data)+1<<16 {
				t.Fatalf("%d samples out of %d bytes", total, len(data))
			}
		}
	})
}

// FuzzID3 reads arbitrary ID3v2 tags.
func FuzzID3(f *testing.F) {
	f.Add(id3Tag(3, 0, id3Frame(3, "TIT2", []byte("\x01\xff\xfeD\x00"))))
	f.Add(id3Tag(4, 0x40, id3Frame(4, "TXXX", []byte("\x03a\x00b"))))
	f.Add(id3Tag(2, 0, id3Frame(2, "COM", []byte("\x00eng\x00x"))))
	f.Add(id3Tag(3, 0x80, id3Frame(3, "COMM", []byte("\x01eng\xff\xfe\x00\x00\xff\xfex\x00"))))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 10 {
			return
		}
		data = append([]byte("ID3"), data[3:]...)
		readID3v2(bufio.NewReader(bytes.NewReader(data)))
	})
}
