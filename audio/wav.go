package audio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// WAV encodings.
const (
	wavPCM        = 0x0001
	wavFloat      = 0x0003
	wavALaw       = 0x0006
	wavMuLaw      = 0x0007
	wavExtensible = 0xFFFE
)

// Bounds on what a WAV header may claim.
const (
	maxChannels   = 64
	maxSampleRate = 1 << 22 // 4 MHz
	maxMetaChunk  = 1 << 20 // LIST, bext and fmt chunks larger than this are skipped
	wavBufBytes   = 64 << 10
)

// wavDecoder streams PCM from the data chunk of a RIFF/WAVE, RF64 or BW64
// file.
type wavDecoder struct {
	br        *bufio.Reader
	channels  int
	rate      int
	bits      int // significant bits per sample
	size      int // bytes per sample in the file
	encoding  int // wavPCM, wavFloat, wavALaw or wavMuLaw
	frames    int64
	remaining int64 // data bytes left; -1 until the end of the input
	declared  int64 // data bytes the header declared; -1 unknown
	buf       []byte
	err       error
	meta      Metadata
}

// wavFmt is what a fmt chunk says.
type wavFmt struct {
	encoding, channels, rate, blockAlign, bits, validBits int
}

// newWAV reads the headers up to the data chunk. When r can seek, chunks
// after the data (a LIST at the end is common) are read for metadata too.
func newWAV(r io.Reader) (*wavDecoder, error) {
	br := bufio.NewReaderSize(r, wavBufBytes)
	var hdr [12]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return nil, fmt.Errorf("wav: reading the RIFF header: %w", eofAsTruncation(err))
	}
	rf64 := string(hdr[:4]) != "RIFF"
	d := &wavDecoder{br: br, remaining: -1, declared: -1}
	var (
		fmtc          *wavFmt
		ds64Data      int64 = -1
		ds64Frames    int64 = -1
		pos           int64 = 12
		dataStart     int64 = -1
		dataSize      int64 = -1
		sawData       bool
		seeker, canSk = r.(io.Seeker)
	)
	for {
		var ch [8]byte
		if _, err := io.ReadFull(br, ch[:]); err != nil {
			if sawData {
				break // the end of the chunks after the data
			}
			if errors.Is(err, io.EOF) {
				return nil, errors.New("wav: no data chunk")
			}
			return nil, fmt.Errorf("wav: reading a chunk header: %w", eofAsTruncation(err))
		}
		id := string(ch[:4])
		size := int64(binary.LittleEndian.Uint32(ch[4:]))
		pos += 8
		if sawData && id == "data" {
			break
		}
		switch {
		case id == "data" && !sawData:
			if fmtc == nil {
				return nil, errors.New("wav: the data chunk comes before any fmt chunk")
			}
			if rf64 && size == 0xFFFFFFFF && ds64Data >= 0 {
				size = ds64Data
			}
			if size == 0xFFFFFFFF || size == 0 {
				size = -1 // a stream whose writer never came back to fill in the size
			}
			dataStart, dataSize = pos, size
			if !canSk || size < 0 {
				return d.start(fmtc, dataSize, ds64Frames)
			}
			sawData = true
			next := pos + size + size&1
			if _, err := seeker.Seek(next, io.SeekStart); err != nil {
				return nil, fmt.Errorf("wav: %w", err)
			}
			br.Reset(r)
			pos = next
			continue
		case id == "ds64" && rf64:
			b, err := readChunk(br, size, 28)
			if err != nil {
				return nil, fmt.Errorf("wav: ds64 chunk: %w", err)
			}
			if len(b) >= 24 {
				ds64Data = clampSize(binary.LittleEndian.Uint64(b[8:]))
				ds64Frames = clampSize(binary.LittleEndian.Uint64(b[16:]))
			}
		case id == "fmt " && fmtc == nil:
			b, err := readChunk(br, size, 40)
			if err != nil {
				return nil, fmt.Errorf("wav: fmt chunk: %w", err)
			}
			if fmtc, err = parseWAVFmt(b); err != nil {
				return nil, err
			}
		case id == "LIST" && size <= maxMetaChunk:
			b, err := readChunk(br, size, maxMetaChunk)
			if err != nil {
				return nil, fmt.Errorf("wav: LIST chunk: %w", err)
			}
			parseInfo(b, &d.meta)
		case id == "bext" && size <= maxMetaChunk:
			b, err := readChunk(br, size, maxMetaChunk)
			if err != nil {
				return nil, fmt.Errorf("wav: bext chunk: %w", err)
			}
			parseBext(b, &d.meta)
		default:
			if _, err := br.Discard(int(size)); err != nil && !sawData {
				return nil, fmt.Errorf("wav: skipping the %q chunk: %w", printable([]byte(id)), eofAsTruncation(err))
			}
		}
		pos += size
		if size&1 == 1 {
			// The pad byte of an odd-sized chunk. Some writers leave it
			// out; a pad byte is zero, and a chunk id never starts with one.
			if b, err := br.Peek(1); err == nil && b[0] == 0 {
				br.Discard(1)
				pos++
			}
		}
	}
	if _, err := seeker.Seek(dataStart, io.SeekStart); err != nil {
		return nil, fmt.Errorf("wav: %w", err)
	}
	br.Reset(r)
	return d.start(fmtc, dataSize, ds64Frames)
}

// start sets the decoder up to read dataSize bytes (-1: to the end).
func (d *wavDecoder) start(f *wavFmt, dataSize, ds64Frames int64) (*wavDecoder, error) {
	d.channels, d.rate, d.encoding = f.channels, f.rate, f.encoding
	d.size = f.blockAlign / f.channels
	d.bits = f.bits
	if f.validBits > 0 && f.validBits < f.bits {
		d.bits = f.validBits
	}
	d.remaining, d.declared = dataSize, dataSize
	if dataSize >= 0 {
		d.frames = dataSize / int64(f.blockAlign)
	} else if ds64Frames > 0 {
		d.frames = ds64Frames
	}
	n := wavBufBytes / f.blockAlign * f.blockAlign
	d.buf = make([]byte, max(n, f.blockAlign))
	return d, nil
}

func parseWAVFmt(b []byte) (*wavFmt, error) {
	if len(b) < 16 {
		return nil, fmt.Errorf("wav: fmt chunk is %d bytes, want at least 16", len(b))
	}
	f := &wavFmt{
		encoding:   int(binary.LittleEndian.Uint16(b[0:])),
		channels:   int(binary.LittleEndian.Uint16(b[2:])),
		rate:       int(binary.LittleEndian.Uint32(b[4:])),
		blockAlign: int(binary.LittleEndian.Uint16(b[12:])),
		bits:       int(binary.LittleEndian.Uint16(b[14:])),
	}
	if f.encoding == wavExtensible {
		if len(b) < 40 {
			return nil, fmt.Errorf("wav: WAVE_FORMAT_EXTENSIBLE fmt chunk is %d bytes, want 40", len(b))
		}
		f.validBits = int(binary.LittleEndian.Uint16(b[18:]))
		f.encoding = int(binary.LittleEndian.Uint16(b[24:])) // the sub-format GUID starts with the format code
	}
	switch {
	case f.channels < 1 || f.channels > maxChannels:
		return nil, fmt.Errorf("wav: fmt chunk says %d channels, want 1..%d", f.channels, maxChannels)
	case f.rate < 1 || f.rate > maxSampleRate:
		return nil, fmt.Errorf("wav: fmt chunk says a sample rate of %d Hz", f.rate)
	}
	// Trust the block alignment for the container size when it agrees
	// with the channels; derive it from the bits otherwise.
	if f.blockAlign == 0 || f.blockAlign%f.channels != 0 {
		f.blockAlign = f.channels * ((f.bits + 7) / 8)
	}
	size := f.blockAlign / f.channels
	switch f.encoding {
	case wavPCM:
		if size < 1 || size > 4 {
			return nil, fmt.Errorf("wav: %d-bit integer PCM (%d bytes a sample) is not supported; want 8, 16, 24 or 32 bits", f.bits, size)
		}
		if f.bits == 0 || f.bits > size*8 {
			f.bits = size * 8
		}
	case wavFloat:
		if size != 4 && size != 8 {
			return nil, fmt.Errorf("wav: %d-byte float samples are not supported; want 32 or 64-bit float", size)
		}
		f.bits = size * 8
	case wavALaw, wavMuLaw:
		if size != 1 {
			return nil, fmt.Errorf("wav: %d-byte A-law/µ-law samples; want 1 byte", size)
		}
		f.bits = 8
	default:
		return nil, fmt.Errorf("wav: encoding 0x%04x (%s) is not supported; foley reads integer PCM, float, A-law and µ-law", f.encoding, wavEncodingName(f.encoding))
	}
	return f, nil
}

func wavEncodingName(code int) string {
	switch code {
	case 0x0002:
		return "Microsoft ADPCM"
	case 0x0011:
		return "IMA ADPCM"
	case 0x0031:
		return "GSM 6.10"
	case 0x0050:
		return "MPEG"
	case 0x0055:
		return "MP3"
	case 0x0092:
		return "Dolby AC-3"
	case 0x2000:
		return "AC-3"
	}
	return "unknown"
}

// readChunk reads a chunk's body, keeping at most keep bytes and discarding
// the rest. It allocates only for bytes actually read.
func readChunk(br *bufio.Reader, size int64, keep int) ([]byte, error) {
	n := int(min(size, int64(keep)))
	b := make([]byte, 0, min(n, 4096))
	for len(b) < n {
		chunk := min(n-len(b), 4096)
		b = append(b, make([]byte, chunk)...)
		if _, err := io.ReadFull(br, b[len(b)-chunk:]); err != nil {
			return nil, eofAsTruncation(err)
		}
	}
	if rest := size - int64(n); rest > 0 {
		if _, err := br.Discard(int(min(rest, math.MaxInt32))); err != nil {
			return nil, eofAsTruncation(err)
		}
	}
	return b, nil
}

func clampSize(v uint64) int64 {
	if v > math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(v)
}

// parseInfo reads the text fields of a LIST/INFO chunk.
func parseInfo(b []byte, m *Metadata) {
	if len(b) < 4 || string(b[:4]) != "INFO" {
		return
	}
	for b = b[4:]; len(b) >= 8; {
		id := string(b[:4])
		size := int(binary.LittleEndian.Uint32(b[4:]))
		b = b[8:]
		if size > len(b) {
			size = len(b)
		}
		m.add("INFO:"+printable([]byte(id)), infoFields[id], string(b[:size]))
		b = b[size:]
		if size&1 == 1 && len(b) > 0 && b[0] == 0 {
			b = b[1:]
		}
	}
}

var infoFields = map[string]string{
	"INAM": "title", "ICMT": "comment", "IKEY": "keywords", "IART": "artist",
	"ICOP": "copyright", "IGNR": "genre", "ISBJ": "description",
}

// parseBext reads the Broadcast Wave extension: the description, the
// originator and the coding history.
func parseBext(b []byte, m *Metadata) {
	field := func(off, n int) string {
		if off >= len(b) {
			return ""
		}
		return string(b[off:min(off+n, len(b))])
	}
	m.add("BEXT:Description", "description", field(0, 256))
	m.add("BEXT:Originator", "", field(256, 32))
	m.add("BEXT:OriginatorReference", "", field(288, 32))
	m.add("BEXT:OriginationDate", "", field(320, 10))
	if len(b) > 602 {
		m.add("BEXT:CodingHistory", "", string(b[602:]))
	}
}

// Read implements the decoders' Read.
func (d *wavDecoder) Read(dst []float32) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	frameBytes := d.size * d.channels
	maxFrames := len(dst) / d.channels
	if maxFrames == 0 {
		return 0, fmt.Errorf("wav: read buffer of %d samples is smaller than one frame of %d channels", len(dst), d.channels)
	}
	want := min(maxFrames*frameBytes, len(d.buf))
	if d.remaining >= 0 {
		if d.remaining < int64(frameBytes) {
			d.finish(d.remaining > 0)
			return 0, d.err
		}
		want = int(min(int64(want), d.remaining/int64(frameBytes)*int64(frameBytes)))
	}
	n, err := io.ReadFull(d.br, d.buf[:want])
	whole := n / frameBytes * frameBytes
	if d.remaining >= 0 {
		d.remaining -= int64(n)
	}
	d.convert(dst, d.buf[:whole])
	if err != nil {
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			d.err = fmt.Errorf("wav: %w", err)
		} else {
			d.finish(d.remaining > 0 || n != whole)
		}
		if whole == 0 {
			return 0, d.err
		}
	}
	return whole / d.size, nil
}

// finish ends the stream: at its declared end, or truncated.
func (d *wavDecoder) finish(truncated bool) {
	if !truncated {
		d.err = io.EOF
		return
	}
	d.err = &TruncatedError{Format: WAV, Detail: fmt.Sprintf("the data chunk declares %d bytes but the file ends %d bytes early", d.declared, d.remaining)}
	if d.remaining <= 0 {
		d.err = &TruncatedError{Format: WAV, Detail: "the file ends inside a sample frame"}
	}
}

// convert turns raw samples into float32.
func (d *wavDecoder) convert(dst []float32, b []byte) {
	switch {
	case d.encoding == wavPCM && d.size == 1:
		for i, v := range b {
			dst[i] = float32(int(v)-128) * (1.0 / 128)
		}
	case d.encoding == wavPCM && d.size == 2:
		n := len(b) / 2
		dst, b = dst[:n], b[:2*n]
		for i := range dst {
			dst[i] = float32(int16(uint16(b[2*i])|uint16(b[2*i+1])<<8)) * (1.0 / 32768)
		}
	case d.encoding == wavPCM && d.size == 3:
		n := len(b) / 3
		dst, b = dst[:n], b[:3*n]
		for i := range dst {
			v := int32(uint32(b[3*i])<<8|uint32(b[3*i+1])<<16|uint32(b[3*i+2])<<24) >> 8
			dst[i] = float32(v) * (1.0 / 8388608)
		}
	case d.encoding == wavPCM && d.size == 4:
		n := len(b) / 4
		dst, b = dst[:n], b[:4*n]
		for i := range dst {
			dst[i] = float32(float64(int32(binary.LittleEndian.Uint32(b[4*i:]))) * (1.0 / 2147483648))
		}
	case d.encoding == wavFloat && d.size == 4:
		n := len(b) / 4
		dst, b = dst[:n], b[:4*n]
		for i := range dst {
			dst[i] = finite(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		}
	case d.encoding == wavFloat && d.size == 8:
		n := len(b) / 8
		dst, b = dst[:n], b[:8*n]
		for i := range dst {
			dst[i] = finite(float32(math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))))
		}
	case d.encoding == wavALaw:
		for i, v := range b {
			dst[i] = aLaw[v]
		}
	case d.encoding == wavMuLaw:
		for i, v := range b {
			dst[i] = muLaw[v]
		}
	}
}

// finite replaces NaN by 0 and clamps infinities to ±1, so that one bad
// float sample cannot poison every measurement after it.
func finite(v float32) float32 {
	switch {
	case v != v:
		return 0
	case v > math.MaxFloat32:
		return 1
	case v < -math.MaxFloat32:
		return -1
	}
	return v
}

// The G.711 expansion tables, scaled to [-1, 1].
var aLaw, muLaw = func() (a, m [256]float32) {
	for i := range 256 {
		// A-law (ITU-T G.711).
		v := i ^ 0x55
		t := (v & 0x0F) << 4
		seg := (v & 0x70) >> 4
		switch seg {
		case 0:
			t += 8
		case 1:
			t += 0x108
		default:
			t += 0x108
			t <<= seg - 1
		}
		if v&0x80 == 0 {
			t = -t
		}
		a[i] = float32(t) / 32768
		// µ-law.
		u := ^i & 0xFF
		t = ((u&0x0F)<<3 + 0x84) << ((u & 0x70) >> 4)
		if u&0x80 != 0 {
			t = 0x84 - t
		} else {
			t -= 0x84
		}
		m[i] = float32(t) / 32768
	}
	return a, m
}()

// TruncatedError reports a file that ends before its headers say it
// should. It wraps io.ErrUnexpectedEOF.
type TruncatedError struct {
	Format Format
	Detail string
}

func (e *TruncatedError) Error() string { return fmt.Sprintf("%s: truncated: %s", e.Format, e.Detail) }

// Unwrap makes errors.Is(err, io.ErrUnexpectedEOF) true.
func (e *TruncatedError) Unwrap() error { return io.ErrUnexpectedEOF }

// errCutShort is a file that ends inside a header or chunk.
var errCutShort = fmt.Errorf("the file is truncated: %w", io.ErrUnexpectedEOF)

// eofAsTruncation reports an end of input inside a structure as
// truncation.
func eofAsTruncation(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errCutShort
	}
	return err
}
