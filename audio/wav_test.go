package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// readF32 reads a raw little-endian float32 reference file.
func readF32(t *testing.T, path string) []float32 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// decodeAll decodes r with reads of size buf samples.
func decodeAll(t *testing.T, r io.Reader, buf int) (*Decoder, []float32, error) {
	t.Helper()
	d, err := NewDecoder(r)
	if err != nil {
		return nil, nil, err
	}
	var out []float32
	b := make([]float32, buf)
	for {
		n, err := d.Read(b)
		out = append(out, b[:n]...)
		if err == io.EOF {
			return d, out, nil
		}
		if err != nil {
			return d, out, err
		}
	}
}

func TestWAVFixturesMatchSox(t *testing.T) {
	for _, tc := range []struct {
		file, codec    string
		rate, ch, bits int
		tol            float64
	}{
		{"wav_u8", "pcm_u8", 48000, 2, 8, 0},
		{"wav_s16", "pcm_s16le", 48000, 2, 16, 0},
		{"wav_s24", "pcm_s24le", 48000, 2, 24, 0},
		{"wav_s32", "pcm_s32le", 48000, 2, 32, 0},
		{"wav_f32", "pcm_f32le", 48000, 2, 32, 0},
		{"wav_f64", "pcm_f64le", 48000, 2, 64, 0},
		{"wav_alaw", "pcm_alaw", 48000, 2, 8, 0},
		{"wav_mulaw", "pcm_mulaw", 48000, 2, 8, 0},
		{"wav_ext_51_s24", "pcm_s24le", 48000, 6, 24, 0},
		{"wav_rf64", "pcm_s16le", 16000, 1, 16, 0},
		{"wav_meta", "pcm_s16le", 48000, 1, 16, 0},
	} {
		t.Run(tc.file, func(t *testing.T) {
			want := readF32(t, filepath.Join("testdata", tc.file+".f32"))
			for _, seekable := range []bool{true, false} {
				data, err := os.ReadFile(filepath.Join("testdata", tc.file+".wav"))
				if err != nil {
					t.Fatal(err)
				}
				var r io.Reader = bytes.NewReader(data)
				if !seekable {
					r = struct{ io.Reader }{r}
				}
				d, got, err := decodeAll(t, r, 1000*tc.ch+tc.ch) // an odd buffer size
				if err != nil {
					t.Fatal(err)
				}
				info := d.Info()
				if info.Format != WAV || info.Codec != tc.codec || info.SampleRate != tc.rate || info.Channels != tc.ch || info.BitDepth != tc.bits {
					t.Errorf("info %+v", info)
				}
				if info.Frames != int64(len(want)/tc.ch) || d.FramesRead() != info.Frames {
					t.Errorf("frames: header %d, read %d, sox %d", info.Frames, d.FramesRead(), len(want)/tc.ch)
				}
				if len(got) != len(want) {
					t.Fatalf("%d samples, sox has %d", len(got), len(want))
				}
				for i := range got {
					if math.Abs(float64(got[i]-want[i])) > tc.tol {
						t.Fatalf("sample %d: %v, sox %v", i, got[i], want[i])
					}
				}
			}
		})
	}
}

func TestWAVMetadata(t *testing.T) {
	for _, seekable := range []bool{true, false} {
		data, _ := os.ReadFile("testdata/wav_meta.wav")
		var r io.Reader = bytes.NewReader(data)
		if !seekable {
			r = struct{ io.Reader }{r}
		}
		d, err := NewDecoder(r)
		if err != nil {
			t.Fatal(err)
		}
		m := d.Metadata()
		want := Metadata{Title: "Door slam, heavy wood", Description: "A heavy wooden door slams shut", Comment: "Recorded in a stone hallway",
			Artist: "Foley Team", Genre: "SFX", Copyright: "CC0 1.0"}
		m.Tags = nil
		if !reflect.DeepEqual(m, want) {
			t.Errorf("seekable=%v: metadata\n%+v\nwant\n%+v", seekable, m, want)
		}
		if !hasTag(d.Metadata(), "BEXT:Description") || !hasTag(d.Metadata(), "INFO:ISFT") {
			t.Errorf("raw tags missing: %+v", d.Metadata().Tags)
		}
	}
}

func hasTag(m Metadata, key string) bool {
	for _, t := range m.Tags {
		if t.Key == key {
			return true
		}
	}
	return false
}

// wavFile builds a WAV file from chunks; riffSize -1 computes it.
type chunk struct {
	id   string
	body []byte
	size int64 // -1: len(body)
	pad  bool  // write the pad byte of an odd-sized chunk
}

func buildWAV(kind string, chunks ...chunk) []byte {
	var b bytes.Buffer
	b.WriteString(kind)
	binary.Write(&b, binary.LittleEndian, uint32(0))
	b.WriteString("WAVE")
	for _, c := range chunks {
		b.WriteString(c.id)
		size := c.size
		if size < 0 {
			size = int64(len(c.body))
		}
		binary.Write(&b, binary.LittleEndian, uint32(size))
		b.Write(c.body)
		if len(c.body)%2 == 1 && c.pad {
			b.WriteByte(0)
		}
	}
	out := b.Bytes()
	binary.LittleEndian.PutUint32(out[4:], uint32(len(out)-8))
	return out
}

func fmtChunk(encoding, channels, rate, bits int) chunk {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint16(b[0:], uint16(encoding))
	binary.LittleEndian.PutUint16(b[2:], uint16(channels))
	binary.LittleEndian.PutUint32(b[4:], uint32(rate))
	binary.LittleEndian.PutUint32(b[8:], uint32(rate*channels*bits/8))
	binary.LittleEndian.PutUint16(b[12:], uint16(channels*bits/8))
	binary.LittleEndian.PutUint16(b[14:], uint16(bits))
	return chunk{id: "fmt ", body: b, size: -1}
}

func pcm16(vals ...int16) []byte {
	b := make([]byte, 2*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	}
	return b
}

func infoList(pairs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("INFO")
	for i := 0; i+1 < len(pairs); i += 2 {
		b.WriteString(pairs[i])
		v := pairs[i+1] + "\x00"
		binary.Write(&b, binary.LittleEndian, uint32(len(v)))
		b.WriteString(v)
		if len(v)%2 == 1 {
			b.WriteByte(0)
		}
	}
	return b.Bytes()
}

func TestWAVChunkLayouts(t *testing.T) {
	samples := pcm16(0, 16384, -16384, 32767, -32768, 1)
	want := []float32{0, 0.5, -0.5, 32767.0 / 32768, -1, 1.0 / 32768}
	for _, tc := range []struct {
		name string
		data []byte
		meta string // expected title, when any
	}{
		{"plain", buildWAV("RIFF", fmtChunk(1, 1, 8000, 16), chunk{id: "data", body: samples, size: -1}), ""},
		{"odd chunk with pad byte", buildWAV("RIFF", fmtChunk(1, 1, 8000, 16), chunk{id: "junk", body: []byte("abc"), size: -1, pad: true}, chunk{id: "data", body: samples, size: -1}), ""},
		{"odd chunk without pad byte", buildWAV("RIFF", fmtChunk(1, 1, 8000, 16), chunk{id: "junk", body: []byte("abc"), size: -1}, chunk{id: "data", body: samples, size: -1}), ""},
		{"LIST before data", buildWAV("RIFF", fmtChunk(1, 1, 8000, 16), chunk{id: "LIST", body: infoList("INAM", "Rain"), size: -1}, chunk{id: "data", body: samples, size: -1}), "Rain"},
		{"LIST after data", buildWAV("RIFF", fmtChunk(1, 1, 8000, 16), chunk{id: "data", body: samples, size: -1}, chunk{id: "LIST", body: infoList("INAM", "Thunder", "ICMT", "odd"), size: -1}), "Thunder"},
		{"odd data then LIST", buildWAV("RIFF", fmtChunk(1, 1, 8000, 8), chunk{id: "data", body: []byte{128, 192, 64}, size: -1, pad: true}, chunk{id: "LIST", body: infoList("INAM", "Knock"), size: -1}), "Knock"},
		{"streamed data size", buildWAV("RIFF", fmtChunk(1, 1, 8000, 16), chunk{id: "data", body: samples, size: 0xFFFFFFFF}), ""},
		{"zero data size", buildWAV("RIFF", fmtChunk(1, 1, 8000, 16), chunk{id: "data", body: samples, size: 0}), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, seekable := range []bool{true, false} {
				var r io.Reader = bytes.NewReader(tc.data)
				if !seekable {
					r = struct{ io.Reader }{r}
				}
				d, got, err := decodeAll(t, r, 4)
				if err != nil {
					t.Fatalf("seekable=%v: %v", seekable, err)
				}
				w := want
				if strings.HasPrefix(tc.name, "odd data") {
					w = []float32{0, 0.5, -0.5}
				}
				if !equalF32(got, w) {
					t.Errorf("seekable=%v: samples %v, want %v", seekable, got, w)
				}
				if tc.meta != "" && (seekable || !strings.Contains(tc.name, "after") && !strings.Contains(tc.name, "then")) && d.Metadata().Title != tc.meta {
					t.Errorf("seekable=%v: title %q, want %q", seekable, d.Metadata().Title, tc.meta)
				}
			}
		})
	}
}

func equalF32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestWAVTruncated(t *testing.T) {
	full := buildWAV("RIFF", fmtChunk(1, 2, 8000, 16), chunk{id: "data", body: pcm16(1, 2, 3, 4, 5, 6), size: -1})
	for _, tc := range []struct {
		name   string
		data   []byte
		frames int
		detail string
	}{
		{"missing frames", full[:len(full)-4], 2, "ends 4 bytes early"},
		{"inside a frame", full[:len(full)-2], 2, "ends 2 bytes early"},
		{"data claims 4 GiB", buildWAV("RIFF", fmtChunk(1, 2, 8000, 16), chunk{id: "data", body: pcm16(1, 2, 3, 4), size: 0xFFFFFFF0}), 2, "declares 4294967280 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, got, err := decodeAll(t, bytes.NewReader(tc.data), 2)
			var te *TruncatedError
			if !errors.As(err, &te) || !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("error %v, want a truncation", err)
			}
			if !strings.Contains(err.Error(), tc.detail) {
				t.Errorf("error %q lacks %q", err, tc.detail)
			}
			if len(got) != 2*tc.frames || d.FramesRead() != int64(tc.frames) {
				t.Errorf("decoded %d samples (%d frames), want %d frames", len(got), d.FramesRead(), tc.frames)
			}
			if n, err2 := d.Read(make([]float32, 8)); n != 0 || err2 != err {
				t.Errorf("after the error: %d, %v", n, err2)
			}
		})
	}
}

func TestWAVBadHeaders(t *testing.T) {
	ext := make([]byte, 40)
	copy(ext, fmtChunk(0xFFFE, 2, 8000, 16).body)
	binary.LittleEndian.PutUint16(ext[16:], 22)
	binary.LittleEndian.PutUint16(ext[24:], 2) // ADPCM sub-format
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"no data chunk", buildWAV("RIFF", fmtChunk(1, 1, 8000, 16)), "no data chunk"},
		{"data before fmt", buildWAV("RIFF", chunk{id: "data", body: pcm16(1), size: -1}), "before any fmt"},
		{"zero channels", buildWAV("RIFF", fmtChunk(1, 0, 8000, 16), chunk{id: "data", body: pcm16(1), size: -1}), "0 channels"},
		{"zero rate", buildWAV("RIFF", fmtChunk(1, 1, 0, 16), chunk{id: "data", body: pcm16(1), size: -1}), "sample rate of 0"},
		{"ADPCM", buildWAV("RIFF", fmtChunk(2, 1, 8000, 4), chunk{id: "data", body: pcm16(1), size: -1}), "0x0002 (Microsoft ADPCM)"},
		{"extensible ADPCM", buildWAV("RIFF", chunk{id: "fmt ", body: ext, size: -1}, chunk{id: "data", body: pcm16(1), size: -1}), "0x0002"},
		{"short fmt", buildWAV("RIFF", chunk{id: "fmt ", body: []byte{1, 0}, size: -1}, chunk{id: "data", body: pcm16(1), size: -1}), "fmt chunk is 2 bytes"},
		{"fmt chunk claims 4 GiB", buildWAV("RIFF", chunk{id: "fmt ", body: fmtChunk(1, 1, 8000, 16).body, size: 0xFFFFFFFF}), "truncat"},
		{"a chunk claims 4 GiB before data", buildWAV("RIFF", fmtChunk(1, 1, 8000, 16), chunk{id: "junk", body: []byte("x"), size: 0xFFFFFFFF}), "skipping the \"junk\" chunk"},
		{"header cut short", []byte("RIFF\x10\x00\x00\x00WAVEfm"), "chunk header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewDecoder(bytes.NewReader(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestLyingHeaderDoesNotAllocate decodes a 1 KiB file whose headers claim
// gigabytes and checks that memory use follows the input, not the claims.
func TestLyingHeaderDoesNotAllocate(t *testing.T) {
	files := [][]byte{
		buildWAV("RIFF", fmtChunk(1, 2, 48000, 16), chunk{id: "data", body: make([]byte, 1000), size: 0xFFFFFFF0}),
		buildWAV("RIFF", fmtChunk(1, 2, 48000, 16), chunk{id: "LIST", body: []byte("INFO"), size: 0xFFFFFFF0}),
		buildWAV("RIFF", fmtChunk(1, 2, 48000, 16), chunk{id: "bext", body: []byte("x"), size: 1 << 20}),
		append([]byte("ID3\x04\x00\x00\x7f\x7f\x7f\x7fTIT2\x7f\x7f\x7f\x7f\x00\x00"), make([]byte, 1000)...),
	}
	for i, data := range files {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		d, err := NewDecoder(bytes.NewReader(data))
		if err == nil {
			ReadAll(d, 0)
		}
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
			t.Errorf("file %d: %d bytes allocated for a %d-byte input", i, grew, len(data))
		}
	}
}

func TestWAVReadBufferTooSmall(t *testing.T) {
	d, err := NewDecoder(bytes.NewReader(buildWAV("RIFF", fmtChunk(1, 2, 8000, 16), chunk{id: "data", body: pcm16(1, 2), size: -1})))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Read(make([]float32, 1)); err == nil || !strings.Contains(err.Error(), "smaller than one frame") {
		t.Errorf("1-sample buffer for 2 channels: %v", err)
	}
}

func TestFloatWAVSanitised(t *testing.T) {
	body := make([]byte, 16)
	for i, v := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 1.5} {
		binary.LittleEndian.PutUint32(body[4*i:], math.Float32bits(v))
	}
	_, got, err := decodeAll(t, bytes.NewReader(buildWAV("RIFF", fmtChunk(3, 1, 8000, 32), chunk{id: "data", body: body, size: -1})), 16)
	if err != nil || !equalF32(got, []float32{0, 1, -1, 1.5}) {
		t.Errorf("got %v, %v; want NaN→0, ±Inf→±1, overs kept", got, err)
	}
}
