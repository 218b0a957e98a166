package flac

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// frameLayout decodes a whole stream and returns where each frame starts,
// how many samples per channel each holds, and where the frames end.
func frameLayout(t *testing.T, data []byte) (starts []int64, sizes []int, end int64, all []int32) {
	t.Helper()
	d, err := NewDecoder(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for {
		err := d.decodeFrame()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		starts = append(starts, d.frameOff)
		sizes = append(sizes, d.blockLen)
		for i := range d.blockLen {
			for c := range d.channels {
				all = append(all, d.ch[c][i])
			}
		}
	}
	return starts, sizes, d.br.offset(), all
}

// TestTruncated cuts fixtures at many points: the decoder must return
// every complete frame before the cut, exactly, and then an error
// wrapping io.ErrUnexpectedEOF; a cut inside the headers fails NewDecoder
// with io.ErrUnexpectedEOF.
func TestTruncated(t *testing.T) {
	for _, name := range []string{"s16_stereo_44k_c5.flac", "s24_stereo_96k.flac", "s16_6ch_48k.flac", "s16_stereo_44k_b192.flac", "s32_stereo_48k.flac"} {
		data := readFixture(t, name)
		starts, sizes, end, all := frameLayout(t, data)
		if end != int64(len(data)) {
			t.Fatalf("%s: frames end at %d of %d bytes", name, end, len(data))
		}
		cuts := []int64{0, 1, 4, 5, 8, 20, 41, 42, 43}
		for _, s := range starts {
			cuts = append(cuts, s-1, s, s+1, s+3, s+7)
		}
		for c := int64(0); c < int64(len(data)); c += int64(len(data))/97 + 1 {
			cuts = append(cuts, c)
		}
		cuts = append(cuts, int64(len(data))-2, int64(len(data))-1)
		for _, cut := range cuts {
			if cut < 0 || cut >= int64(len(data)) {
				continue
			}
			in := data[:cut]
			d, err := NewDecoder(bytes.NewReader(in))
			if err != nil {
				if !errors.Is(err, io.ErrUnexpectedEOF) || cut >= starts[0] {
					t.Errorf("%s cut at %d: NewDecoder: %v", name, cut, err)
				}
				continue
			}
			want := 0
			for i, s := range starts {
				frameEnd := end
				if i+1 < len(starts) {
					frameEnd = starts[i+1]
				}
				if frameEnd <= cut && s < cut {
					want += sizes[i] * d.Channels()
				}
			}
			got, err := decodeInts(d)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("%s cut at %d: err = %v, want io.ErrUnexpectedEOF", name, cut, err)
			}
			if len(got) != want || !slices.Equal(got, all[:len(got)]) {
				t.Errorf("%s cut at %d: %d samples, want %d (a prefix of the full decode)", name, cut, len(got), want)
			}
			// The same through Read.
			d, _ = NewDecoder(bytes.NewReader(in))
			fl, err := decodeFloats(d, 999*d.Channels())
			if !errors.Is(err, io.ErrUnexpectedEOF) || len(fl) != want {
				t.Errorf("%s cut at %d: Read gave %d samples (want %d), %v", name, cut, len(fl), want, err)
			}
			if k, err2 := d.Read(make([]float32, 64)); k != 0 || err2 != err {
				t.Errorf("%s cut at %d: Read after the error: %d, %v (first error %v)", name, cut, k, err2, err)
			}
		}
	}
}

// TestCorrupt flips bits in frames: the decoder returns the frames before
// the damaged one and then an error that names the damaged frame.
func TestCorrupt(t *testing.T) {
	data := readFixture(t, "s16_stereo_44k_b1000.flac")
	starts, sizes, end, all := frameLayout(t, data)
	if len(starts) < 6 {
		t.Fatalf("only %d frames", len(starts))
	}
	frameEnd := func(i int) int64 {
		if i+1 < len(starts) {
			return starts[i+1]
		}
		return end
	}
	check := func(what string, frame int, in []byte, wantMsg string) {
		t.Helper()
		d, err := NewDecoder(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeInts(d)
		want := 0
		for _, s := range sizes[:frame] {
			want += 2 * s
		}
		if err == nil || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			t.Fatalf("%s: err = %v", what, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, fmt.Sprintf("frame %d ", frame)) || !strings.Contains(msg, wantMsg) {
			t.Errorf("%s: error %q does not name frame %d and %q", what, msg, frame, wantMsg)
		}
		if len(got) != want || !slices.Equal(got, all[:want]) {
			t.Errorf("%s: %d samples before the error, want %d", what, len(got), want)
		}
	}
	for frame := 1; frame < len(starts)-1; frame++ {
		s, e := starts[frame], frameEnd(frame)
		// The stored CRC-16.
		in := slices.Clone(data)
		in[e-1] ^= 0x10
		check("CRC-16 field", frame, in, "CRC-16 mismatch")
		// The frame number in the header: only CRC-8 can tell.
		in = slices.Clone(data)
		in[s+4] ^= 0x01
		check("header", frame, in, "CRC-8 mismatch")
		// Every 50th bit of the body: some error naming the frame.
		for bit := (s + 8) * 8; bit < (e-2)*8; bit += 50 {
			in = slices.Clone(data)
			in[bit/8] ^= 0x80 >> (bit % 8)
			check(fmt.Sprintf("bit %d", bit), frame, in, "")
		}
	}
}

// blocks splits a fixture into its fLaC marker, metadata blocks (with
// their headers) and frames.
func blocks(t *testing.T, data []byte) (meta [][]byte, frames []byte) {
	t.Helper()
	p := 4
	for {
		h := binary.BigEndian.Uint32(data[p:])
		n := int(h & 0xffffff)
		meta = append(meta, data[p:p+4+n])
		p += 4 + n
		if h>>31 != 0 {
			return meta, data[p:]
		}
	}
}

// join rebuilds a stream from metadata blocks, setting the last flag on
// the last one only.
func join(meta [][]byte, frames []byte) []byte {
	out := []byte("fLaC")
	for i, b := range meta {
		b = slices.Clone(b)
		b[0] &^= 0x80
		if i == len(meta)-1 {
			b[0] |= 0x80
		}
		out = append(out, b...)
	}
	return append(out, frames...)
}

func block(typ byte, body []byte) []byte {
	return append([]byte{typ, byte(len(body) >> 16), byte(len(body) >> 8), byte(len(body))}, body...)
}

// TestContainers covers what can surround the frames: ID3v2 tags before
// the marker, every metadata block type, an ID3v1 tag or junk after the
// last frame.
func TestContainers(t *testing.T) {
	data := readFixture(t, "comments.flac")
	d, _ := NewDecoder(bytes.NewReader(data))
	want, _ := decodeInts(d)
	wantComments := d.Comments()
	meta, frames := blocks(t, data)

	decode := func(what string, in []byte) ([]int32, []string, error) {
		d, err := NewDecoder(bytes.NewReader(in))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: NewDecoder: %w", what, err)
		}
		got, err := decodeInts(d)
		return got, d.Comments(), err
	}
	same := func(what string, in []byte) {
		t.Helper()
		got, comments, err := decode(what, in)
		if err != nil || !slices.Equal(got, want) || !slices.Equal(comments, wantComments) {
			t.Errorf("%s: %d samples (want %d), comments %q, %v", what, len(got), len(want), comments, err)
		}
	}

	id3 := append([]byte("ID3\x04\x00\x00\x00\x00\x01\x05"), make([]byte, 133)...)
	same("ID3v2", append(slices.Clone(id3), data...))
	footer := append([]byte("ID3\x04\x00\x10\x00\x00\x00\x05"), make([]byte, 15)...)
	same("ID3v2 with footer, twice", append(append(slices.Clone(footer), id3...), data...))

	extra := [][]byte{
		block(2, append([]byte("test"), bytes.Repeat([]byte{0xaa}, 300)...)), // APPLICATION
		block(5, make([]byte, 432)), // CUESHEET
		block(6, make([]byte, 40)),  // PICTURE
		block(9, []byte("reserved type")),
		block(1, nil), // empty PADDING
	}
	m := append([][]byte{meta[0]}, extra...)
	m = append(m, meta[1:]...)
	same("all block types", join(m, frames))

	same("ID3v1 after the frames", append(slices.Clone(data), append([]byte("TAG"), make([]byte, 125)...)...))
	same("junk after the promised samples", append(slices.Clone(data), "junk\x00\xff"...))

	// With no total in STREAMINFO the junk is an error after all the samples.
	noTotal := slices.Clone(data)
	noTotal[8+13] &^= 0x0f
	copy(noTotal[8+14:8+18], []byte{0, 0, 0, 0})
	got, _, err := decode("no total", noTotal)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("no total: %d samples, %v", len(got), err)
	}
	got, _, err = decode("no total, junk", append(noTotal, "junk"...))
	if err == nil || errors.Is(err, io.ErrUnexpectedEOF) || !slices.Equal(got, want) {
		t.Errorf("no total, junk: %d samples, %v", len(got), err)
	}

	// A damaged VORBIS_COMMENT keeps what it can and the audio decodes.
	vc := -1
	for i, b := range meta {
		if b[0]&0x7f == 4 {
			vc = i
		}
	}
	bad := slices.Clone(meta)
	bad[vc] = slices.Clone(meta[vc])
	binary.LittleEndian.PutUint32(bad[vc][len(bad[vc])-4-len("Zweiter Titel äöü")-len("TITLE="):], 1<<31)
	got, comments, err := decode("damaged comments", join(bad, frames))
	if err != nil || !slices.Equal(got, want) || !slices.Equal(comments, wantComments[:6]) {
		t.Errorf("damaged comments: %d samples, comments %q, %v", len(got), comments, err)
	}

	// Errors in the headers.
	for what, in := range map[string][]byte{
		"STREAMINFO too short":           join([][]byte{block(0, make([]byte, 20))}, frames),
		"two STREAMINFOs, then type 127": join([][]byte{meta[0], meta[0], block(127, nil)}, frames),
		"ID3v2 bad size":                 append([]byte("ID3\x04\x00\x00\x80\x00\x00\x00"), data...),
		"3 bits per sample": func() []byte {
			in := slices.Clone(data)
			in[8+12] &^= 0x01
			in[8+13] = in[8+13]&0x0f | 0x20
			return in
		}(),
	} {
		if _, err := NewDecoder(bytes.NewReader(in)); err == nil || errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: err = %v", what, err)
		}
	}
}

// TestHugeClaims gives headers that claim far more than the input holds:
// the decoder fails with io.ErrUnexpectedEOF without allocating for the
// claims.
func TestHugeClaims(t *testing.T) {
	info := readFixture(t, "u8_mono_8k.flac")[4 : 4+38]
	big := func(typ byte) []byte { return []byte{typ, 0xff, 0xff, 0xff} }
	vcCount := append(block(4, nil)[:1], 0x00, 0x01, 0x00)        // 256-byte block...
	vcCount = append(vcCount, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff) // ...empty vendor, 2^32-1 comments
	vcCount = append(vcCount, make([]byte, 248)...)               // and the input ends
	for what, in := range map[string][]byte{
		"16 MiB comments": append(append([]byte("fLaC"), info...), append(big(4), make([]byte, 1000)...)...),
		"16 MiB picture":  append(append([]byte("fLaC"), info...), append(big(6), make([]byte, 1000)...)...),
		"4G comments":     append(append([]byte("fLaC"), info...), vcCount...),
		"2 GiB ID3v2":     append([]byte("ID3\x04\x00\x00\x7f\x7f\x7f\x7f"), make([]byte, 1000)...),
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := NewDecoder(bytes.NewReader(in))
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Errorf("%s: allocated %d bytes", what, alloc)
		}
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: err = %v", what, err)
		}
	}
}
