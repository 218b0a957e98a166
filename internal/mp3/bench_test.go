package mp3

import (
	"io"
	"os"
	"testing"
)

// benchFile is the file BenchmarkDecode decodes: $MP3BENCH or a fixture.
func benchFile(b *testing.B) []byte {
	path := os.Getenv("MP3BENCH")
	if path == "" {
		path = "testdata/stereo_joint_44k_128.mp3"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("no benchmark input: %v", err)
	}
	return data
}

func decodeDiscard(data []byte, buf []float32) (int, error) {
	d, err := NewDecoder(bytesReader(data))
	if err != nil {
		return 0, err
	}
	total := 0
	for {
		n, err := d.Read(buf)
		total += n
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	data := benchFile(b)
	buf := make([]float32, 4096)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := decodeDiscard(data, buf); err != nil {
			b.Fatal(err)
		}
	}
}
