package mp3

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

type fixture struct {
	name       string
	sampleRate int
	channels   int
	xing       bool // has a Xing/Info header with a frame count
}

var fixtures = []fixture{
	{"stereo_joint_44k_128.mp3", 44100, 2, true},
	{"stereo_lr_48k_160.mp3", 48000, 2, true},
	{"mono_32k_vbr.mp3", 32000, 1, true},
	{"stereo_22k_vbr.mp3", 22050, 2, true},
	{"mono_24k_48.mp3", 24000, 1, true},
	{"mono_16k_32.mp3", 16000, 1, true},
	{"stereo_12k_vbr.mp3", 12000, 2, true},
	{"mono_11k_24.mp3", 11025, 1, true},
	{"mono_8k_16.mp3", 8000, 1, true},
	{"stereo_8k_vbr.mp3", 8000, 2, true},
	{"id3v1_44k_96.mp3", 44100, 2, true},
	{"sox_44k_128.mp3", 44100, 2, false},
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAgainstFFmpeg(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			data := readFixture(t, fx.name)
			// An odd read size exercises partial frames.
			d, got, err := decodeAll(data, 333*fx.channels)
			if err != nil {
				t.Fatal(err)
			}
			if d.SampleRate() != fx.sampleRate || d.Channels() != fx.channels || d.BitsPerSample() != 0 {
				t.Fatalf("got %d Hz %d ch %d bits", d.SampleRate(), d.Channels(), d.BitsPerSample())
			}
			want := ffmpegDecode(t, filepath.Join("testdata", fx.name))
			if len(got) != len(want) {
				t.Fatalf("got %d samples, ffmpeg %d", len(got), len(want))
			}
			if fx.xing {
				if d.TotalFrames() != int64(len(got)/fx.channels) {
					t.Errorf("TotalFrames %d, decoded %d", d.TotalFrames(), len(got)/fx.channels)
				}
			} else if d.TotalFrames() != 0 {
				t.Errorf("TotalFrames %d without a VBR header", d.TotalFrames())
			}
			st := compareSamples(got, want)
			t.Logf("%d frames/ch, max abs diff %.3g, SNR %.1f dB", len(got)/fx.channels, st.maxAbs, st.snr)
			if st.snr < 90 {
				t.Errorf("SNR %.1f dB against ffmpeg", st.snr)
			}
		})
	}
}

// TestReference compares with a committed ffmpeg decode (no tools needed).
func TestReference(t *testing.T) {
	_, got, err := decodeAll(readFixture(t, "mono_8k_16.mp3"), 100)
	if err != nil {
		t.Fatal(err)
	}
	raw := readFixture(t, "mono_8k_16.f32")
	want := make([]float32, len(raw)/4)
	for i := range want {
		want[i] = clamp(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
	}
	if len(got) != len(want) {
		t.Fatalf("got %d samples, want %d", len(got), len(want))
	}
	if st := compareSamples(got, want); st.snr < 90 {
		t.Fatalf("SNR %.1f dB", st.snr)
	}
}

// TestChirp24k checks 24 kHz decoding against the source signal: ffmpeg 5.1
// uses a wrong scalefactor band boundary there (330 instead of 332) and
// mis-decodes this file, so it cannot be the reference.
func TestChirp24k(t *testing.T) {
	sox := requireTool(t, "sox")
	src, err := exec.Command(sox, "-n", "-r", "24000", "-c", "1", "-t", "f32", "-", "synth", "1.5", "sine", "5000:9000", "vol", "0.5").Output()
	if err != nil {
		t.Fatal(err)
	}
	ref := make([]float32, len(src)/4)
	for i := range ref {
		ref[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
	}
	_, got, err := decodeAll(readFixture(t, "chirp_24k_64.mp3"), 4096)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ref) {
		t.Fatalf("got %d samples, source has %d", len(got), len(ref))
	}
	st := compareSamples(got, ref)
	t.Logf("SNR against the source: %.1f dB", st.snr)
	if st.snr < 20 {
		t.Errorf("SNR against the source %.1f dB", st.snr)
	}
}

// frames splits an MP3 file (after its ID3v2 tag) into frames.
func splitFrames(t *testing.T, data []byte) (head []byte, frames [][]byte, tail []byte) {
	t.Helper()
	d, err := NewDecoder(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	_ = d
	p := 0
	if string(data[:3]) == "ID3" {
		p = 10 + int(data[6])<<21 | int(data[7])<<14 | int(data[8])<<7 | int(data[9])
	}
	head = data[:p]
	for p+4 <= len(data) {
		h, ok := parseHeader(binary.BigEndian.Uint32(data[p:]))
		if !ok || h.frameSize == 0 || p+h.frameSize > len(data) {
			break
		}
		frames = append(frames, data[p:p+h.frameSize])
		p += h.frameSize
	}
	return head, frames, data[p:]
}

func TestJunkBetweenFrames(t *testing.T) {
	for _, name := range []string{"stereo_joint_44k_128.mp3", "mono_16k_32.mp3"} {
		data := readFixture(t, name)
		_, clean, err := decodeAll(data, 4096)
		if err != nil {
			t.Fatal(err)
		}
		head, frames, tail := splitFrames(t, data)
		rng := rand.New(rand.NewSource(1))
		var junky []byte
		junky = append(junky, head...)
		for i, f := range frames {
			junky = append(junky, f...)
			if i > 0 && i%3 == 0 {
				n := 1 + rng.Intn(300)
				for k := 0; k < n; k++ {
					junky = append(junky, byte(rng.Intn(256)))
				}
				if i%2 == 0 {
					// a fake sync word followed by garbage
					junky = append(junky, 0xff, 0xfb, 0x90, 0x64, 1, 2, 3)
				}
			}
		}
		junky = append(junky, tail...)
		_, got, err := decodeAll(junky, 1000)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != len(clean) {
			t.Fatalf("%s: junk changed the length: %d vs %d", name, len(got), len(clean))
		}
		for i := range got {
			if got[i] != clean[i] {
				t.Fatalf("%s: sample %d differs", name, i)
			}
		}
	}
}

func TestTrailingTags(t *testing.T) {
	data := readFixture(t, "stereo_joint_44k_128.mp3")
	_, clean, err := decodeAll(data, 4096)
	if err != nil {
		t.Fatal(err)
	}
	// APEv2 tag with header and footer, then an ID3v1 tag.
	item := []byte("\x05\x00\x00\x00\x00\x00\x00\x00Title\x00Hello")
	size := uint32(len(item) + 32)
	ape := func(flags uint32) []byte {
		b := []byte("APETAGEX")
		b = binary.LittleEndian.AppendUint32(b, 2000)
		b = binary.LittleEndian.AppendUint32(b, size)
		b = binary.LittleEndian.AppendUint32(b, 1)
		b = binary.LittleEndian.AppendUint32(b, flags)
		return append(b, make([]byte, 8)...)
	}
	var tagged []byte
	tagged = append(tagged, data...)
	tagged = append(tagged, ape(1<<31|1<<29)...)
	tagged = append(tagged, item...)
	tagged = append(tagged, ape(1<<31)...)
	id3v1 := make([]byte, 128)
	copy(id3v1, "TAG\xff\xfb\x90\x64 title")
	id3v1[127] = 0xff
	tagged = append(tagged, id3v1...)
	// And an ID3v2.4 tag with a footer in front.
	id3 := []byte{'I', 'D', '3', 4, 0, 0x10, 0, 0, 1, 0} // 128 bytes + footer
	id3 = append(id3, make([]byte, 128)...)
	id3 = append(id3, '3', 'D', 'I', 4, 0, 0x10, 0, 0, 1, 0)
	tagged = append(id3, tagged...)
	_, got, err := decodeAll(tagged, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(clean) {
		t.Fatalf("tags changed the length: %d vs %d", len(got), len(clean))
	}
	for i := range got {
		if got[i] != clean[i] {
			t.Fatalf("sample %d differs", i)
		}
	}
}

func TestTruncated(t *testing.T) {
	data := readFixture(t, "stereo_22k_vbr.mp3")
	_, full, err := decodeAll(data, 4096)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{len(data) - 1, len(data) - 200, len(data) / 2, len(data)/3 + 7} {
		d, got, err := decodeAll(data[:cut], 777)
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("cut at %d: err = %v, want ErrUnexpectedEOF", cut, err)
		}
		if len(got) == 0 || len(got) > len(full) || len(got)%d.Channels() != 0 {
			t.Fatalf("cut at %d: %d samples of %d", cut, len(got), len(full))
		}
		for i := range got {
			if got[i] != full[i] {
				t.Fatalf("cut at %d: sample %d differs", cut, i)
			}
		}
		// The error is sticky.
		if _, err2 := d.Read(make([]float32, 64)); err2 == nil || err2.Error() != err.Error() {
			t.Fatalf("second error %v, want %v", err2, err)
		}
	}
	// Truncated inside the ID3v2 tag.
	if _, err := NewDecoder(bytes.NewReader(data[:20])); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated ID3v2: %v", err)
	}
}

func TestRejects(t *testing.T) {
	_, err := NewDecoder(bytes.NewReader(readFixture(t, "layer2.mp2")))
	if err == nil || !strings.Contains(err.Error(), "Layer II") {
		t.Fatalf("Layer II: %v", err)
	}
	rng := rand.New(rand.NewSource(2))
	noise := make([]byte, 100000)
	rng.Read(noise)
	for i := range noise {
		if noise[i] == 0xff {
			noise[i] = 0
		}
	}
	for _, in := range [][]byte{nil, []byte("RIFF....WAVEfmt "), noise} {
		if _, err := NewDecoder(bytes.NewReader(in)); err == nil {
			t.Fatalf("accepted %d bytes of non-MP3", len(in))
		}
	}
	// Free format: a Layer III header with bitrate index 0.
	ff := append([]byte{0xff, 0xfb, 0x00, 0x64}, make([]byte, 500)...)
	if _, err := NewDecoder(bytes.NewReader(ff)); err == nil || !strings.Contains(err.Error(), "free-format") {
		t.Fatalf("free format: %v", err)
	}
}

func TestSmallDst(t *testing.T) {
	data := readFixture(t, "stereo_joint_44k_128.mp3")
	_, full, err := decodeAll(data, 4096)
	if err != nil {
		t.Fatal(err)
	}
	d, got, err := decodeAll(data, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(full) {
		t.Fatalf("%d vs %d samples", len(got), len(full))
	}
	if _, err := d.Read(make([]float32, 1)); err == nil {
		t.Fatal("Read with len(dst) < channels succeeded")
	}
	d, err = NewDecoder(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := d.Read(make([]float32, 1)); err == nil || n != 0 {
		t.Fatalf("short dst: n=%d err=%v", n, err)
	}
	if n, err := d.Read(make([]float32, 3)); err != nil || n != 2 {
		t.Fatalf("dst of 3: n=%d err=%v", n, err)
	}
	if d.Comments() != nil {
		t.Fatal("Comments not nil")
	}
}

// TestCorruptFrames flips bits in the audio data: decoding must not panic
// and samples must stay finite and in range.
func TestCorruptFrames(t *testing.T) {
	data := readFixture(t, "stereo_joint_44k_128.mp3")
	rng := rand.New(rand.NewSource(3))
	for iter := 0; iter < 100; iter++ {
		b := append([]byte(nil), data...)
		for k := 0; k < 1+rng.Intn(50); k++ {
			i := 100 + rng.Intn(len(b)-100)
			b[i] ^= byte(1 << rng.Intn(8))
		}
		checkDecode(t, b)
	}
}

func checkDecode(t testing.TB, data []byte) {
	d, err := NewDecoder(bytes.NewReader(data))
	if err != nil {
		return
	}
	ch := d.Channels()
	if ch != 1 && ch != 2 {
		t.Fatalf("channels %d", ch)
	}
	buf := make([]float32, 3*ch)
	total := 0
	for {
		n, err := d.Read(buf)
		if n%ch != 0 {
			t.Fatalf("n=%d not a multiple of %d", n, ch)
		}
		for _, v := range buf[:n] {
			if math.IsNaN(float64(v)) || v > 1 || v < -1 {
				t.Fatalf("bad sample %v", v)
			}
		}
		total += n
		if err != nil {
			break
		}
		if n == 0 {
			t.Fatal("Read returned 0, nil")
		}
		if total > 100*len(data)*ch+1<<20 {
			t.Fatal("too many samples")
		}
	}
}

func FuzzDecode(f *testing.F) {
	names, _ := filepath.Glob("testdata/*.mp3")
	rng := rand.New(rand.NewSource(4))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) > 12000 {
			b = b[:12000]
		}
		f.Add(b)
		f.Add(b[:len(b)/3])
		c := append([]byte(nil), b...)
		for k := 0; k < 20; k++ {
			i := rng.Intn(len(c))
			c[i] ^= byte(1 << rng.Intn(8))
		}
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecode(t, data)
	})
}
