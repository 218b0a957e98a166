package flac

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// fixture is one committed FLAC file and the SHA-256 of its PCM as the
// reference decoder (flac -d) produced it: every sample left-justified in a
// signed 32-bit little-endian word.
type fixture struct {
	name string
	hash string
}

func fixtures(t testing.TB) []fixture {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "reference.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fixture
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 {
			t.Fatalf("bad reference.txt line %q", sc.Text())
		}
		out = append(out, fixture{name: fields[1], hash: fields[0]})
	}
	if len(out) < 30 {
		t.Fatalf("only %d fixtures in reference.txt", len(out))
	}
	return out
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// decodeInts decodes a whole stream to interleaved integer samples through
// the frame decoder (Read's float32 cannot hold 32-bit samples exactly).
// It returns the samples decoded before any error.
func decodeInts(d *Decoder) ([]int32, error) {
	var out []int32
	nc := d.channels
	for {
		for i := d.cur; i < d.blockLen; i++ {
			for c := range nc {
				out = append(out, d.ch[c][i])
			}
		}
		d.cur = d.blockLen
		if d.err != nil {
			return out, d.err
		}
		if err := d.decodeFrame(); err != nil {
			d.err = err
			if err == io.EOF {
				return out, nil
			}
			return out, err
		}
	}
}

// decodeFloats decodes a whole stream with Read and a dst of n samples.
func decodeFloats(d *Decoder, n int) ([]float32, error) {
	var out []float32
	buf := make([]float32, n)
	for {
		k, err := d.Read(buf)
		if k%d.Channels() != 0 {
			return out, fmt.Errorf("Read returned %d samples for %d channels", k, d.Channels())
		}
		if k > 0 && err != nil {
			return out, fmt.Errorf("Read returned %d samples and error %v", k, err)
		}
		out = append(out, buf[:k]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if k == 0 {
			return out, errors.New("Read returned 0, nil")
		}
	}
}

// leftJustifiedHash is the SHA-256 the reference hashes use.
func leftJustifiedHash(samples []int32, bps int) string {
	h := sha256.New()
	buf := make([]byte, 0, 4096)
	for _, v := range samples {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(v)<<(32-bps))
		if len(buf) == cap(buf) {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

// pcmMD5 is the MD5 FLAC stores in STREAMINFO: samples little-endian in
// ceil(bits/8) bytes.
func pcmMD5(samples []int32, bps int) [16]byte {
	h := md5.New()
	w := (bps + 7) / 8
	buf := make([]byte, 0, 4096)
	for _, v := range samples {
		for b := range w {
			buf = append(buf, byte(v>>(8*b)))
		}
		if len(buf) >= 4000 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	var sum [16]byte
	h.Sum(sum[:0])
	return sum
}

// TestFixtures decodes every fixture and checks the samples against the
// reference decoder's hash and against the MD5 in STREAMINFO, and that
// Read's float32 output is those samples scaled, for several dst sizes.
func TestFixtures(t *testing.T) {
	for _, fx := range fixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			data := readFixture(t, fx.name)
			d, err := NewDecoder(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			ints, err := decodeInts(d)
			if err != nil {
				t.Fatal(err)
			}
			bps, nc := d.BitsPerSample(), d.Channels()
			if got := int64(len(ints) / nc); got != d.TotalFrames() {
				t.Errorf("decoded %d frames, STREAMINFO says %d", got, d.TotalFrames())
			}
			if got := leftJustifiedHash(ints, bps); got != fx.hash {
				t.Errorf("PCM hash %s, reference decoder's %s", got, fx.hash)
			}
			if got := pcmMD5(ints, bps); got != d.md5 {
				t.Errorf("PCM MD5 %x, STREAMINFO's %x", got, d.md5)
			}
			scale := math.Ldexp(1, 1-bps)
			for _, n := range []int{nc, 3 * nc, 1000*nc + nc - 1, 1 << 16} {
				d, err := NewDecoder(bytes.NewReader(data))
				if err != nil {
					t.Fatal(err)
				}
				fl, err := decodeFloats(d, n)
				if err != nil {
					t.Fatalf("dst %d: %v", n, err)
				}
				if len(fl) != len(ints) {
					t.Fatalf("dst %d: Read gave %d samples, want %d", n, len(fl), len(ints))
				}
				for i, v := range fl {
					if want := float32(float64(ints[i]) * scale); v != want || v < -1 || v > 1 {
						t.Fatalf("dst %d: sample %d is %v, want %v", n, i, v, want)
					}
				}
			}
		})
	}
}

// needTool returns the path of a command-line tool, skipping the test when
// it is missing (failing instead when CI=true).
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required when CI=true: %v", name, err)
		}
		t.Skipf("%s not installed; skipping the comparison with it", name)
	}
	return p
}

// TestAgainstFlacTool decodes the 8/16/24/32-bit fixtures with flac -d at
// test time and compares sample by sample, reporting the first difference.
func TestAgainstFlacTool(t *testing.T) {
	flacTool := needTool(t, "flac")
	for _, fx := range fixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			data := readFixture(t, fx.name)
			d, err := NewDecoder(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			bps, nc := d.BitsPerSample(), d.Channels()
			if bps%8 != 0 {
				t.Skipf("flac cannot write %d-bit raw; TestFixtures covers it", bps)
			}
			ints, err := decodeInts(d)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(flacTool, "-s", "-d", "-c", "--force-raw-format", "--endian=little", "--sign=signed", "-")
			cmd.Stdin = bytes.NewReader(data)
			raw, err := cmd.Output()
			if err != nil {
				t.Fatalf("flac -d: %v", err)
			}
			w := bps / 8
			if len(raw) != len(ints)*w {
				t.Fatalf("flac -d gave %d samples, we %d", len(raw)/w, len(ints))
			}
			for i := range ints {
				var v int32
				for b := range w {
					v |= int32(raw[i*w+b]) << (8 * b)
				}
				v = v << (32 - bps) >> (32 - bps)
				if v != ints[i] {
					t.Fatalf("sample %d (frame %d, channel %d): flac -d %d, we %d", i, i/nc, i%nc, v, ints[i])
				}
			}
		})
	}
}

func TestStreamInfo(t *testing.T) {
	for _, tc := range []struct {
		name          string
		rate, ch, bps int
		total         int64
	}{
		{"s16_stereo_44k_c5.flac", 44100, 2, 16, 13230},
		{"u8_mono_8k.flac", 8000, 1, 8, 2400},
		{"u8_mono_11025.flac", 11025, 1, 8, 2205},
		{"s16_mono_12k.flac", 12000, 1, 16, 2400},
		{"s16_mono_37800.flac", 37800, 1, 16, 7560},
		{"s24_stereo_96k.flac", 96000, 2, 24, 19200},
		{"s24_stereo_192k.flac", 192000, 2, 24, 9600},
		{"s16_6ch_48k.flac", 48000, 6, 16, 9600},
		{"s16_8ch_22k.flac", 22050, 8, 16, 2205},
		{"s24_3ch_32k.flac", 32000, 3, 24, 3200},
		{"s32_stereo_48k.flac", 48000, 2, 32, 4800},
		{"s4_1ch_8000.flac", 8000, 1, 4, 800},
		{"s12_1ch_16000.flac", 16000, 1, 12, 1600},
		{"s20_2ch_48000.flac", 48000, 2, 20, 4800},
	} {
		d, err := NewDecoder(bytes.NewReader(readFixture(t, tc.name)))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if d.SampleRate() != tc.rate || d.Channels() != tc.ch || d.BitsPerSample() != tc.bps || d.TotalFrames() != tc.total {
			t.Errorf("%s: rate %d channels %d bits %d total %d, want %d %d %d %d", tc.name,
				d.SampleRate(), d.Channels(), d.BitsPerSample(), d.TotalFrames(), tc.rate, tc.ch, tc.bps, tc.total)
		}
	}
}

func TestComments(t *testing.T) {
	d, err := NewDecoder(bytes.NewReader(readFixture(t, "comments.flac")))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"TITLE=Door slam, heavy oak",
		"DESCRIPTION=A heavy wooden door slams shut",
		"COMMENT=recorded at 2 m",
		"ARTIST=Foley Test",
		"GENRE=Sound Effect",
		"LICENSE=CC0-1.0",
		"TITLE=Zweiter Titel äöü",
	}
	if got := d.Comments(); !slices.Equal(got, want) {
		t.Errorf("Comments() = %q, want %q", got, want)
	}
	// picture.flac has a VORBIS_COMMENT block with only a vendor string,
	// a PICTURE, a SEEKTABLE and padding.
	d, err = NewDecoder(bytes.NewReader(readFixture(t, "picture.flac")))
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Comments(); got != nil {
		t.Errorf("Comments() = %q, want nil", got)
	}
	ints, err := decodeInts(d)
	if err != nil || len(ints) != 4410 {
		t.Errorf("picture.flac: %d samples, %v", len(ints), err)
	}
}

// TestReaders decodes through readers that return little at a time or
// data with io.EOF, which must not change the result.
func TestReaders(t *testing.T) {
	data := readFixture(t, "s16_stereo_44k_b1000.flac")
	d, _ := NewDecoder(bytes.NewReader(data))
	want, err := decodeInts(d)
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]io.Reader{
		"onebyte": iotest.OneByteReader(bytes.NewReader(data)),
		"half":    iotest.HalfReader(bytes.NewReader(data)),
		"dataeof": iotest.DataErrReader(bytes.NewReader(data)),
	} {
		d, err := NewDecoder(r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := decodeInts(d)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: %d samples (want %d), %v", name, len(got), len(want), err)
		}
	}
	// A reader error other than EOF is reported, wrapped.
	boom := errors.New("boom")
	r := io.MultiReader(bytes.NewReader(data[:len(data)/2]), iotest.ErrReader(boom))
	d, err = NewDecoder(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeInts(d)
	if !errors.Is(err, boom) || !slices.Equal(got, want[:len(got)]) {
		t.Errorf("failing reader: %d samples, %v", len(got), err)
	}
}

func TestReadErrors(t *testing.T) {
	d, err := NewDecoder(bytes.NewReader(readFixture(t, "s16_6ch_48k.flac")))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 5} {
		if k, err := d.Read(make([]float32, n)); k != 0 || err == nil {
			t.Errorf("Read with %d-sample dst: %d, %v", n, k, err)
		}
	}
	if k, err := d.Read(make([]float32, 6)); k != 6 || err != nil {
		t.Errorf("Read with one frame: %d, %v", k, err)
	}
	if _, err := decodeFloats(d, 7); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if k, err := d.Read(make([]float32, 6)); k != 0 || err != io.EOF {
			t.Errorf("Read after the end: %d, %v", k, err)
		}
	}
}

func TestNotFLAC(t *testing.T) {
	for name, in := range map[string][]byte{
		"wav":               []byte("RIFF\x24\x00\x00\x00WAVEfmt "),
		"ogg":               []byte("OggS\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00"),
		"mp3":               {0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0},
		"nofirststreaminfo": append([]byte("fLaC\x84\x00\x00\x04"), 0, 0, 0, 0),
	} {
		if _, err := NewDecoder(bytes.NewReader(in)); err == nil || errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: err = %v, want a format error", name, err)
		}
	}
	for name, in := range map[string][]byte{
		"empty":  nil,
		"magic":  []byte("fLa"),
		"header": []byte("fLaC\x00\x00\x00"),
		"info":   []byte("fLaC\x80\x00\x00\x22\x10\x00\x10\x00"),
		"id3":    []byte("ID3\x04\x00\x00\x00\x00\x01\x00"),
	} {
		if _, err := NewDecoder(bytes.NewReader(in)); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: err = %v, want io.ErrUnexpectedEOF", name, err)
		}
	}
	if _, err := NewDecoder(nil); err == nil {
		t.Error("nil reader accepted")
	}
}

func TestCRC(t *testing.T) {
	bytewise := func(crc uint16, p []byte) uint16 {
		for _, b := range p {
			for i := 7; i >= 0; i-- {
				bit := (crc>>15)&1 ^ uint16(b>>i)&1
				crc <<= 1
				if bit != 0 {
					crc ^= 0x8005
				}
			}
		}
		return crc
	}
	data := readFixture(t, "s16_stereo_44k_c5.flac")
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 1000, len(data)} {
		for _, start := range []uint16{0, 0x1234} {
			if got, want := crc16(start, data[:n]), bytewise(start, data[:n]); got != want {
				t.Errorf("crc16 of %d bytes from %#x: %#x, want %#x", n, start, got, want)
			}
		}
	}
	// CRC-8 of "123456789" is 0xF4 for this polynomial.
	if got := crc8(0, []byte("123456789")); got != 0xf4 {
		t.Errorf("crc8 check value %#x, want 0xf4", got)
	}
	if got := crc16(0, []byte("123456789")); got != 0xfee8 {
		t.Errorf("crc16 check value %#x, want 0xfee8", got)
	}
}
