package vorbis

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// onlyReader hides every method but Read (so the decoder can't seek).
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func decodeBytes(t testing.TB, data []byte, bufFrames int) (*Decoder, []float32, error) {
	t.Helper()
	return decodeAll(t, bytes.NewReader(data), bufFrames)
}

func isPrefix(a, b []float32) bool {
	if len(a) > len(b) {
		return false
	}
	for i, v := range a {
		if v != b[i] {
			return false
		}
	}
	return true
}

func TestComments(t *testing.T) {
	d, err := NewDecoder(bytes.NewReader(readFixture(t, "comments_sox.ogg")))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"TITLE=Test Tone",
		"DESCRIPTION=two sines with tremolo",
		"COMMENT=made by make-fixtures.sh",
		"ARTIST=foley",
		"GENRE=Sound Effect",
		"LICENSE=CC0",
	}
	if got := d.Comments(); !reflect.DeepEqual(got, want) {
		t.Errorf("Comments() = %q, want %q", got, want)
	}
	if d.BitsPerSample() != 0 || d.SampleRate() != 22050 || d.Channels() != 1 {
		t.Errorf("bits %d rate %d channels %d", d.BitsPerSample(), d.SampleRate(), d.Channels())
	}
	if !strings.HasPrefix(d.Vendor(), "Xiph.Org libVorbis") {
		t.Errorf("vendor %q", d.Vendor())
	}
	// A file from ffmpeg has only its ENCODER tag.
	d, err = NewDecoder(bytes.NewReader(readFixture(t, "pink44_q5.ogg")))
	if err != nil {
		t.Fatal(err)
	}
	if c := d.Comments(); len(c) != 1 || !strings.HasPrefix(c[0], "encoder=Lavc") {
		t.Errorf("Comments() = %q", c)
	}
	// No comments at all: nil.
	pk := [][]byte{identHeader(1, 8000, 8, 8), commentHeader("x"), minimalSetup(nil)}
	d, err = NewDecoder(bytes.NewReader(joinPages(packetsToPages(1, pk, []int64{0, 0, 0}))))
	if err != nil {
		t.Fatal(err)
	}
	if d.Comments() != nil {
		t.Errorf("Comments() = %q, want nil", d.Comments())
	}
}

func TestOtherCodecs(t *testing.T) {
	for file, codec := range map[string]string{
		"other_opus.ogg":   "Opus",
		"other_speex.ogg":  "Speex",
		"other_flac.ogg":   "FLAC",
		"other_theora.ogg": "Theora",
	} {
		_, err := NewDecoder(bytes.NewReader(readFixture(t, file)))
		want := "Ogg stream holds " + codec + ", not Vorbis"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", file, err, want)
		}
	}
}

func TestNotOgg(t *testing.T) {
	inputs := map[string][]byte{
		"empty":   nil,
		"short":   []byte("Og"),
		"wav":     []byte("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00"),
		"garbage": bytes.Repeat([]byte{0xAB}, 1000),
		"flac":    []byte("fLaC\x00\x00\x00\x22"),
	}
	for name, in := range inputs {
		if _, err := NewDecoder(bytes.NewReader(in)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestSmallReads checks that any dst size gives the same samples.
func TestSmallReads(t *testing.T) {
	for _, name := range []string{"burst44_q4.ogg", "six48_q4.ogg", "sweep8_mono_q3.ogg"} {
		data := readFixture(t, name)
		_, ref, err := decodeBytes(t, data, 100000)
		if err != nil {
			t.Fatal(err)
		}
		d, err := NewDecoder(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		ch := d.Channels()
		rng := rand.New(rand.NewSource(1))
		var got []float32
		buf := make([]float32, 3000)
		for {
			n := ch + rng.Intn(40)
			if rng.Intn(10) == 0 {
				n = ch + rng.Intn(len(buf)-ch)
			}
			k, err := d.Read(buf[:n])
			if k%ch != 0 || k > n {
				t.Fatalf("Read(%d) = %d", n, k)
			}
			got = append(got, buf[:k]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(got, ref) {
			t.Errorf("%s: small reads differ from large reads (%d vs %d samples)", name, len(got), len(ref))
		}
		// Reads after the end keep returning io.EOF.
		if n, err := d.Read(buf); n != 0 || err != io.EOF {
			t.Errorf("Read after end = %d, %v", n, err)
		}
		// A dst shorter than one frame is an error, not a panic.
		if ch > 1 {
			if _, err := d.Read(buf[:ch-1]); err == nil {
				t.Errorf("%s: Read with %d samples: no error", name, ch-1)
			}
		}
		if _, err := d.Read(nil); err == nil {
			t.Errorf("Read(nil): no error")
		}
	}
}

func TestTotalFrames(t *testing.T) {
	data := readFixture(t, "pink44_q5.ogg")
	d, err := NewDecoder(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if d.TotalFrames() != 88200 {
		t.Errorf("TotalFrames = %d, want 88200", d.TotalFrames())
	}
	// Without Seek, the length is unknown.
	d, out, err := decodeAll(t, onlyReader{bytes.NewReader(data)}, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if d.TotalFrames() != 0 {
		t.Errorf("TotalFrames without Seek = %d, want 0", d.TotalFrames())
	}
	if len(out) != 88200*2 {
		t.Errorf("decoded %d samples", len(out))
	}
	// The read position is restored after the scan: decoding from a reader
	// that already consumed a prefix still works.
	prefix := []byte("JUNK")
	r := bytes.NewReader(append(prefix, data...))
	r.Seek(int64(len(prefix)), io.SeekStart)
	d, out2, err := decodeAll(t, r, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, out2) || d.TotalFrames() != 88200 {
		t.Errorf("decode after a prefix differs (TotalFrames %d)", d.TotalFrames())
	}
}

// TestTruncated cuts a file at many places: the decoder returns a prefix of
// the full decode, then an error wrapping io.ErrUnexpectedEOF.
func TestTruncated(t *testing.T) {
	for _, name := range []string{"pink96_q6_sox.ogg", "pink44_qm1_sox.ogg", "burst44_q4.ogg", "short_100.ogg"} {
		data := readFixture(t, name)
		_, ref, err := decodeBytes(t, data, 4096)
		if err != nil {
			t.Fatal(err)
		}
		step := len(data)/40 + 1
		cuts := []int{0, 1, 4, 27, 28, 58, len(data) - 1}
		for c := 100; c < len(data); c += step {
			cuts = append(cuts, c)
		}
		// Cut exactly at each page boundary too.
		for _, p := range parsePages(data)[1:] {
			cuts = append(cuts, p.offset)
		}
		for _, c := range cuts {
			d, got, err := decodeBytes(t, data[:c], 777)
			if !errors.Is(err, io.ErrUnexpectedEOF) && !(c < 28 && err != nil) {
				t.Errorf("%s cut at %d: error %v, want io.ErrUnexpectedEOF", name, c, err)
				continue
			}
			if d == nil {
				continue
			}
			if !isPrefix(got, ref) {
				t.Errorf("%s cut at %d: %d samples are not a prefix of the full decode", name, c, len(got))
			}
			// The error is sticky.
			buf := make([]float32, 64)
			if _, err2 := d.Read(buf); err2 == nil || err2.Error() != err.Error() {
				t.Errorf("%s cut at %d: second error %v, first %v", name, c, err2, err)
			}
		}
	}
	// A cut inside a page still returns the packets that are complete in
	// what is there: this file has all its audio on one page.
	data := readFixture(t, "comments_sox.ogg")
	_, ref, _ := decodeBytes(t, data, 4096)
	pages := parsePages(data)
	last := pages[len(pages)-1]
	for _, cut := range []int{last.offset + 27 + len(last.lacing) + 600, len(data) - 200} {
		_, got, err := decodeBytes(t, data[:cut], 4096)
		if !errors.Is(err, io.ErrUnexpectedEOF) || len(got) == 0 || !isPrefix(got, ref) {
			t.Errorf("cut inside the audio page at %d: %d samples (of %d), %v", cut, len(got), len(ref), err)
		}
	}
}

// TestCRC flips a bit in a page: the error names the page's byte offset and
// the audio before it is returned.
func TestCRC(t *testing.T) {
	data := readFixture(t, "pink96_q6_sox.ogg")
	_, ref, _ := decodeBytes(t, data, 4096)
	pages := parsePages(data)
	p := pages[5]
	bad := append([]byte(nil), data...)
	bad[p.offset+27+len(p.lacing)+10] ^= 0x10
	d, got, err := decodeBytes(t, bad, 4096)
	if d == nil || err == nil {
		t.Fatalf("no error (%v)", err)
	}
	want := fmt.Sprintf("page at byte offset %d: CRC mismatch", p.offset)
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
	if len(got) == 0 || !isPrefix(got, ref) {
		t.Errorf("%d samples before the bad page are not a prefix of the full decode", len(got))
	}
	// A bad CRC in the headers fails NewDecoder.
	bad = append([]byte(nil), data...)
	bad[pages[1].offset+40] ^= 1
	if _, err := NewDecoder(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("byte offset %d", pages[1].offset)) {
		t.Errorf("header CRC error: %v", err)
	}
}

// TestChained decodes a file of two chained streams: the first is decoded,
// then io.EOF.
func TestChained(t *testing.T) {
	_, first, err := decodeBytes(t, readFixture(t, "short_1000_sox.ogg"), 4096)
	if err != nil {
		t.Fatal(err)
	}
	d, got, err := decodeBytes(t, readFixture(t, "chained.ogg"), 4096)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, first) {
		t.Errorf("chained: %d samples, first stream alone %d", len(got), len(first))
	}
	if d.TotalFrames() != 919 {
		t.Errorf("TotalFrames = %d, want 919", d.TotalFrames())
	}
	// Without an EOS flag on the first stream, the next BOS page ends it.
	pages := parsePages(readFixture(t, "chained.ogg"))
	for i := range pages {
		pages[i].flags &^= flagEOS
	}
	_, got, err = decodeBytes(t, joinPages(pages), 4096)
	if err != nil || len(got) < len(first) {
		t.Errorf("chained without EOS: %d samples, %v", len(got), err)
	}
}

// TestMultiplexed interleaves a Theora stream with a Vorbis stream: the
// Vorbis stream is found and decoded.
func TestMultiplexed(t *testing.T) {
	vorbis := readFixture(t, "short_1000_sox.ogg")
	_, ref, err := decodeBytes(t, vorbis, 4096)
	if err != nil {
		t.Fatal(err)
	}
	vp := parsePages(vorbis)
	tp := parsePages(readFixture(t, "other_theora.ogg"))
	// BOS pages first (Theora's first), then the rest alternating.
	pages := []rawPage{tp[0], vp[0]}
	i, j := 1, 1
	for i < len(tp) || j < len(vp) {
		if i < len(tp) {
			pages = append(pages, tp[i])
			i++
		}
		if j < len(vp) {
			pages = append(pages, vp[j])
			j++
		}
	}
	_, got, err := decodeBytes(t, joinPages(pages), 4096)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, ref) {
		t.Errorf("multiplexed: %d samples, want %d", len(got), len(ref))
	}
}

// TestStartTrim lowers every granule position by x: the first x frames are
// trimmed (the first granule position implies a negative start).
func TestStartTrim(t *testing.T) {
	data := readFixture(t, "pink44_q5.ogg")
	_, ref, err := decodeBytes(t, data, 4096)
	if err != nil {
		t.Fatal(err)
	}
	const x = 1000
	pages := parsePages(data)
	for i := range pages {
		if pages[i].granule > 0 {
			pages[i].granule -= x
		}
	}
	d, got, err := decodeBytes(t, joinPages(pages), 4096)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, ref[2*x:]) {
		t.Errorf("start trim: %d samples, want %d", len(got), len(ref)-2*x)
	}
	if d.TotalFrames() != 88200-x {
		t.Errorf("TotalFrames %d, want %d", d.TotalFrames(), 88200-x)
	}
	// A positive start offset (a stream cut out of a longer one) trims
	// nothing at the start, and TotalFrames counts from the start.
	pages = parsePages(data)
	for i := range pages {
		if pages[i].granule > 0 {
			pages[i].granule += 5 * x
		}
	}
	d, got, err = decodeBytes(t, joinPages(pages), 4096)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, ref) {
		t.Errorf("positive start: %d samples, want %d", len(got), len(ref))
	}
	if d.TotalFrames() != 88200 {
		t.Errorf("positive start: TotalFrames %d, want 88200", d.TotalFrames())
	}
}

// minimalSetup returns a small valid setup header: one 2-entry VQ codebook,
// one floor 1 without partitions, one residue 2 and one mapping and mode.
// edit, if not nil, may change the codebook fields as they are written.
func minimalSetup(edit func(field string, v uint64) uint64) []byte {
	if edit == nil {
		edit = func(_ string, v uint64) uint64 { return v }
	}
	w := &bitWriter{}
	w.buf = append(w.buf, []byte("\x05vorbis")...)
	w.nbit = 7 * 8
	put := func(field string, v uint64, n uint) { w.write(edit(field, v), n) }
	put("books", 0, 8) // 1 codebook
	w.write(0x564342, 24)
	put("dims", 1, 16)
	entries := edit("entries", 2)
	w.write(entries, 24)
	ordered := edit("ordered", 0)
	w.write(ordered, 1)
	if ordered == 0 {
		w.write(0, 1) // not sparse
		for i := uint64(0); i < min(entries, 64); i++ {
			w.write(0, 5) // length 1
		}
	} else {
		put("firstlen", 0, 5)
		put("run", entries, 24)
	}
	put("lookup", 1, 4)
	put("min", 0xE0100000, 32) // minimum: float32Unpack -> -1
	w.write(0x60100000, 32)    // delta -> 1
	put("valuebits", 0, 4)
	w.write(0, 1)
	for i := 0; i < 2; i++ {
		w.write(uint64(i), 1)
	}
	w.write(0, 6)  // 1 time domain transform
	w.write(0, 16) // of type 0
	w.write(0, 6)  // 1 floor
	if edit("floortype", 1) == 0 {
		w.write(0, 16)    // type 0
		w.write(4, 8)     // order
		w.write(8000, 16) // rate
		w.write(64, 16)   // bark map size
		w.write(6, 6)     // amplitude bits
		w.write(100, 8)   // amplitude offset
		w.write(0, 4)     // 1 book
		w.write(0, 8)     // book 0
	} else {
		w.write(1, 16) // type 1
		w.write(0, 5)  // no partitions
		w.write(0, 2)  // multiplier 1
		w.write(7, 4)  // range bits
	}
	w.write(0, 6)  // 1 residue
	w.write(2, 16) // type 2
	w.write(0, 24)
	put("resend", 128, 24)
	put("psize", 15, 24)
	put("classes", 0, 6)
	w.write(0, 8) // classbook
	w.write(1, 3) // cascade: pass 0 only
	w.write(0, 1)
	w.write(0, 8)  // book 0
	w.write(0, 6)  // 1 mapping
	w.write(0, 16) // type 0
	w.write(0, 1)  // 1 submap
	w.write(0, 1)  // no coupling
	w.write(0, 2)
	w.write(0, 8)
	w.write(0, 8)  // floor 0
	w.write(0, 8)  // residue 0
	w.write(0, 6)  // 1 mode
	w.write(0, 1)  // short blocks
	w.write(0, 16) // window
	w.write(0, 16) // transform
	w.write(0, 8)  // mapping 0
	w.write(1, 1)  // framing
	return w.buf
}

// audioPacket builds an audio packet for minimalSetup: floor values y0, y1
// and residue bits.
func audioPacket(y0, y1 int, resid []byte) []byte {
	w := &bitWriter{}
	w.write(0, 1) // audio
	w.write(1, 1) // floor used
	w.write(uint64(y0), 8)
	w.write(uint64(y1), 8)
	for _, b := range resid {
		w.write(uint64(b), 8)
	}
	return w.buf
}

// TestFloor0 decodes a synthetic stream that uses floor 0 (no current
// encoder makes one): the output must be finite and not silent.
func TestFloor0(t *testing.T) {
	setup := minimalSetup(func(f string, v uint64) uint64 {
		switch f {
		case "floortype":
			return 0
		case "min":
			return 0x5FF00000 // 0.5: the LSP coefficients become 0.5, 1, 1.5, 2
		}
		return v
	})
	pk := [][]byte{identHeader(1, 8000, 8, 8), commentHeader("test"), setup}
	gr := []int64{0, 0, 0}
	for i := 0; i < 10; i++ {
		w := &bitWriter{}
		w.write(0, 1)  // audio
		w.write(40, 6) // amplitude
		w.write(0, 1)  // book number 0
		w.write(0, 4)  // four coefficient codewords
		for _, b := range []byte{0x55, 0xAA, 0x0F, 0xF0, 0x33, 0xCC, 0x99, 0x66} {
			w.write(uint64(b), 8)
		}
		pk = append(pk, w.buf)
		gr = append(gr, int64(i*128))
	}
	_, got, err := decodeBytes(t, joinPages(packetsToPages(9, pk, gr)), 100)
	if err != nil {
		t.Fatal(err)
	}
	var energy float64
	for _, v := range got {
		if math.IsNaN(float64(v)) || v > 1 || v < -1 {
			t.Fatalf("bad sample %v", v)
		}
		energy += float64(v) * float64(v)
	}
	if len(got) != 9*128 || energy == 0 {
		t.Errorf("%d samples, energy %g", len(got), energy)
	}
}

func TestSyntheticStream(t *testing.T) {
	pk := [][]byte{identHeader(1, 8000, 8, 8), commentHeader("test", "A=1"), minimalSetup(nil)}
	gr := []int64{0, 0, 0}
	for i := 0; i < 10; i++ {
		pk = append(pk, audioPacket(200, 220, []byte{0x55, 0xAA, 0x0F, 0xF0, 0x33, 0xCC, 0x99, 0x66}))
		gr = append(gr, int64(i*128))
	}
	data := joinPages(packetsToPages(7, pk, gr))
	d, got, err := decodeBytes(t, data, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 9*128 || d.TotalFrames() != 9*128 {
		t.Errorf("%d samples, TotalFrames %d, want %d", len(got), d.TotalFrames(), 9*128)
	}
	var energy float64
	for _, v := range got {
		energy += float64(v) * float64(v)
	}
	if energy == 0 {
		t.Error("synthetic stream decoded to silence")
	}
}

// TestLyingHeaders gives setup headers that claim huge sizes: they must fail
// (or decode) without allocating in proportion to the claims.
func TestLyingHeaders(t *testing.T) {
	cases := map[string]func(string, uint64) uint64{
		"huge ordered codebook": func(f string, v uint64) uint64 {
			switch f {
			case "entries":
				return 1<<23 - 1
			case "ordered":
				return 1
			case "firstlen":
				return 22 // length 23
			}
			return v
		},
		"huge unordered codebook": func(f string, v uint64) uint64 {
			if f == "entries" {
				return 1<<23 - 1
			}
			return v
		},
		"too large codebook": func(f string, v uint64) uint64 {
			if f == "entries" {
				return 1<<24 - 1
			}
			return v
		},
		"huge dimensions": func(f string, v uint64) uint64 {
			switch f {
			case "dims":
				return 1<<16 - 1
			case "entries":
				return 2
			}
			return v
		},
		"huge residue end": func(f string, v uint64) uint64 {
			if f == "resend" {
				return 1<<24 - 1
			}
			return v
		},
		"tiny partitions": func(f string, v uint64) uint64 {
			switch f {
			case "psize":
				return 0
			case "resend":
				return 1<<24 - 1
			}
			return v
		},
		"many value bits": func(f string, v uint64) uint64 {
			if f == "valuebits" {
				return 15
			}
			return v
		},
	}
	for name, edit := range cases {
		pk := [][]byte{identHeader(2, 44100, 8, 13), commentHeader("x"), minimalSetup(edit)}
		gr := []int64{0, 0, 0}
		for i := 0; i < 20; i++ {
			pk = append(pk, audioPacket(100, 50, []byte{0xFF, 0x00, 0x12}))
			gr = append(gr, int64(i*128))
		}
		data := joinPages(packetsToPages(3, pk, gr))
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.TotalAlloc
		d, out, err := decodeBytes(t, data, 333)
		runtime.ReadMemStats(&ms)
		alloc := ms.TotalAlloc - before
		t.Logf("%s: %d samples, err %v, allocated %d KiB", name, len(out), err, alloc>>10)
		if alloc > 32<<20 {
			t.Errorf("%s: allocated %d MiB", name, alloc>>20)
		}
		_ = d
	}
	// A comment header that claims 4 billion comments.
	c := commentHeader("v")
	c = append(c[:len(c)-5], 0xff, 0xff, 0xff, 0xff, 1)
	pk := [][]byte{identHeader(1, 8000, 8, 8), c, minimalSetup(nil)}
	if _, err := NewDecoder(bytes.NewReader(joinPages(packetsToPages(1, pk, []int64{0, 0, 0})))); err == nil {
		t.Error("lying comment count: no error")
	}
}
