// Package mp3 decodes MPEG-1, MPEG-2 and MPEG-2.5 Layer III audio (MP3) to
// interleaved float32 samples. It is a pure-Go decoder written for speed
// (float32 throughout, a DCT-32 based polyphase synthesis, a fast IMDCT and
// table-driven Huffman decoding) and checked against ffmpeg's float decoder.
//
// Stream handling follows ffmpeg:
//   - a leading ID3v2 tag (and any further ID3v2 tag between frames), a
//     trailing ID3v1 tag and APEv2 tags are skipped;
//   - garbage between frames is skipped by resynchronising on the next frame
//     header whose successor agrees (ffmpeg instead drops the frame that
//     follows the garbage);
//   - the frame holding a Xing/Info/VBRI header is not audio; its frame count
//     gives TotalFrames, and the LAME tag's encoder delay and padding (plus
//     the decoder delay of 529 samples) are trimmed exactly as ffmpeg trims
//     them, so sample counts match ffmpeg's;
//   - the first frames after a cut (bit reservoir data missing) decode as
//     silence.
//
// Output is clamped to [-1, 1]. Free-format streams and Layers I and II are
// rejected with an error. Channels is the channel count of the first frame;
// a later frame with a different count is converted (mono duplicated,
// stereo averaged).
package mp3

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Decoder decodes an MP3 stream.
type Decoder struct {
	r     io.Reader
	in    []byte
	inPos int
	inEnd int
	inEOF bool  // r reported io.EOF
	inErr error // r reported another error
	base  int64 // stream offset of in[0]

	first       frameHeader // stream parameters (from the first frame)
	channels    int
	sampleRate  int
	spf         int
	totalFrames int64

	// gapless trimming (ffmpeg's start_skip_samples / first/last_discard_sample)
	startSkip     int64
	firstDiscard  int64
	lastDiscard   int64
	skipRemaining int64

	frameIndex int64 // audio frames decoded so far
	frameNum   int64 // frames seen, including the VBR header frame

	dec    layer3
	pcm    []float32
	pcmPos int
	pcmEnd int

	err error
}

const inBufSize = 1 << 15

// maxInitialJunk bounds the search for the first frame.
const maxInitialJunk = 64 << 10

// NewDecoder reads the stream's headers from r. Input that is not an MPEG
// Layer III stream is an error.
func NewDecoder(r io.Reader) (*Decoder, error) {
	d := &Decoder{r: r, in: make([]byte, inBufSize)}
	if err := d.skipID3v2(); err != nil {
		return nil, err
	}
	h, err := d.findFirstFrame()
	if err != nil {
		return nil, err
	}
	d.first = h
	d.channels = h.channels
	d.sampleRate = h.sampleRate
	d.spf = h.spf
	d.pcm = make([]float32, 1152*d.channels)
	d.parseVBRHeader(h)
	return d, nil
}

// SampleRate returns the sample rate in Hz.
func (d *Decoder) SampleRate() int { return d.sampleRate }

// Channels returns the number of channels of the stream (1 or 2).
func (d *Decoder) Channels() int { return d.channels }

// BitsPerSample returns 0: MP3 is a lossy format.
func (d *Decoder) BitsPerSample() int { return 0 }

// TotalFrames returns the number of samples per channel that the Xing/Info
// or VBRI header promises after gapless trimming, or 0 when unknown.
func (d *Decoder) TotalFrames() int64 { return d.totalFrames }

// Comments returns nil: ID3 tags are skipped, not parsed.
func (d *Decoder) Comments() []string { return nil }

// Read decodes interleaved float32 samples into dst.
func (d *Decoder) Read(dst []float32) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	if len(dst) < d.channels {
		return 0, fmt.Errorf("mp3: Read buffer of %d samples is shorter than the channel count %d", len(dst), d.channels)
	}
	for d.pcmPos >= d.pcmEnd {
		if err := d.decodeNext(); err != nil {
			d.err = err
			return 0, err
		}
	}
	n := copy(dst[:len(dst)-len(dst)%d.channels], d.pcm[d.pcmPos:d.pcmEnd])
	d.pcmPos += n
	return n, nil
}

// ---- input buffering ----

// fill makes at least n bytes available at in[inPos:]. It reports false if
// the input ends (or fails) first.
func (d *Decoder) fill(n int) bool {
	if d.inEnd-d.inPos >= n {
		return true
	}
	if n > len(d.in) {
		n = len(d.in)
	}
	if d.inPos > 0 && d.inPos+n > len(d.in) || d.inPos > len(d.in)/2 {
		copy(d.in, d.in[d.inPos:d.inEnd])
		d.base += int64(d.inPos)
		d.inEnd -= d.inPos
		d.inPos = 0
	}
	zero := 0
	for d.inEnd-d.inPos < n && !d.inEOF && d.inErr == nil {
		m, err := d.r.Read(d.in[d.inEnd:])
		d.inEnd += m
		if err == io.EOF {
			d.inEOF = true
		} else if err != nil {
			d.inErr = err
		}
		if m == 0 && err == nil {
			zero++
			if zero > 100 {
				d.inErr = io.ErrNoProgress
			}
		}
	}
	return d.inEnd-d.inPos >= n
}

func (d *Decoder) avail() int { return d.inEnd - d.inPos }

func (d *Decoder) offset() int64 { return d.base + int64(d.inPos) }

// skip discards n bytes of input (fewer if the input ends).
func (d *Decoder) skip(n int64) {
	for n > 0 {
		if d.avail() == 0 && !d.fill(1) {
			return
		}
		k := int64(d.avail())
		if k > n {
			k = n
		}
		d.inPos += int(k)
		n -= k
	}
}

// endErr is the error for input that ended (or failed) early.
func (d *Decoder) endErr(what string) error {
	if d.inErr != nil {
		return fmt.Errorf("mp3: %s at byte offset %d: %w", what, d.offset(), d.inErr)
	}
	return fmt.Errorf("mp3: %s at byte offset %d: %w", what, d.offset(), io.ErrUnexpectedEOF)
}

// ---- tags ----

// id3v2Size returns the total size of an ID3v2 tag at in[inPos:], or 0.
func (d *Decoder) id3v2Size() int64 {
	if !d.fill(10) {
		return 0
	}
	b := d.in[d.inPos:]
	if b[0] != 'I' || b[1] != 'D' || b[2] != '3' || b[3] == 0xff || b[4] == 0xff ||
		b[6]|b[7]|b[8]|b[9] >= 0x80 {
		return 0
	}
	size := int64(b[6])<<21 | int64(b[7])<<14 | int64(b[8])<<7 | int64(b[9])
	size += 10
	if b[5]&0x10 != 0 {
		size += 10 // footer
	}
	return size
}

func (d *Decoder) skipID3v2() error {
	for {
		n := d.id3v2Size()
		if n == 0 {
			return nil
		}
		start := d.offset()
		d.skip(n)
		if d.offset()-start < n {
			return d.endErr("ID3v2 tag truncated")
		}
	}
}

// ---- frame sync ----

func (d *Decoder) peekHeader() (frameHeader, bool) {
	if !d.fill(4) {
		return frameHeader{}, false
	}
	return parseHeader(binary.BigEndian.Uint32(d.in[d.inPos:]))
}

// matches reports whether h can belong to the stream.
func (d *Decoder) matches(h *frameHeader) bool {
	return h.raw&sameHeaderMask == d.first.raw&sameHeaderMask && h.frameSize > 0
}

// isTagAt reports whether an ID3/APE tag starts at in[inPos+off:].
func (d *Decoder) isTagAt(off int) bool {
	if !d.fill(off + 3) {
		return false
	}
	b := d.in[d.inPos+off:]
	if string(b[:3]) == "TAG" || string(b[:3]) == "ID3" {
		return true
	}
	return d.fill(off+8) && string(d.in[d.inPos+off:d.inPos+off+8]) == "APETAGEX"
}

// confirmed reports whether the frame h at in[inPos:] is followed by a
// matching frame header, a tag or the end of the input.
func (d *Decoder) confirmed(h *frameHeader, ref *frameHeader) bool {
	if !d.fill(h.frameSize + 4) {
		rest := d.avail() - h.frameSize
		return rest >= 0 && rest < 4 && d.inErr == nil
	}
	h2, ok := parseHeader(binary.BigEndian.Uint32(d.in[d.inPos+h.frameSize:]))
	if ok && h2.raw&sameHeaderMask == ref.raw&sameHeaderMask && h2.frameSize > 0 {
		return true
	}
	return d.isTagAt(h.frameSize)
}

func (d *Decoder) findFirstFrame() (frameHeader, error) {
	start := d.offset()
	for {
		if d.offset()-start > maxInitialJunk {
			return frameHeader{}, fmt.Errorf("mp3: no MPEG audio frame found in the first %d bytes", maxInitialJunk)
		}
		h, ok := d.peekHeader()
		if !ok && d.avail() < 4 {
			if d.inErr != nil {
				return frameHeader{}, d.endErr("reading")
			}
			return frameHeader{}, errors.New("mp3: no MPEG audio frame found")
		}
		if ok {
			if h.frameSize == 0 && h.layer == 3 && d.offset() == start {
				return frameHeader{}, fmt.Errorf("mp3: free-format bitrate streams are not supported (%s Layer III at byte offset %d)", h.version, d.offset())
			}
			if h.frameSize > 0 && d.confirmed(&h, &h) {
				if h.layer != 3 {
					return frameHeader{}, fmt.Errorf("mp3: %s %s streams are not supported, only Layer III", h.version, h.layerName())
				}
				return h, nil
			}
		}
		d.inPos++
	}
}

// ---- VBR headers ----

func (d *Decoder) parseVBRHeader(h frameHeader) {
	if !d.fill(h.frameSize) {
		return
	}
	f := d.in[d.inPos : d.inPos+h.frameSize]
	var xoff int
	switch {
	case !h.lsf && h.channels == 2:
		xoff = 32
	case !h.lsf:
		xoff = 17
	case h.channels == 2:
		xoff = 17
	default:
		xoff = 9
	}
	be32 := func(b []byte, i int) (uint32, bool) {
		if i < 0 || i+4 > len(b) {
			return 0, false
		}
		return binary.BigEndian.Uint32(b[i:]), true
	}
	var frames, size uint32
	found := false
	var startPad, endPad int64
	hasDelay := false
	p := 4 + xoff
	if tag, ok := be32(f, p); ok && (tag == 0x58696e67 || tag == 0x496e666f) { // "Xing", "Info"
		found = true
		flags, _ := be32(f, p+4)
		q := p + 8
		if flags&1 != 0 {
			frames, _ = be32(f, q)
			q += 4
		}
		if flags&2 != 0 {
			size, _ = be32(f, q)
			q += 4
		}
		if flags&4 != 0 {
			q += 100
		}
		if flags&8 != 0 {
			q += 4
		}
		// LAME extension: 9-byte encoder string, then the delays at +21.
		if q+24 <= len(f) {
			enc := string(f[q : q+4])
			if enc == "LAME" || enc == "Lavf" || enc == "Lavc" {
				v := int64(f[q+21])<<16 | int64(f[q+22])<<8 | int64(f[q+23])
				startPad = v >> 12
				endPad = v & 0xfff
				hasDelay = true
			}
		}
	}
	if tag, ok := be32(f, 36); ok && tag == 0x56425249 { // "VBRI"
		if len(f) >= 36+18 && binary.BigEndian.Uint16(f[40:]) == 1 {
			found = true
			size = binary.BigEndian.Uint32(f[46:])
			frames = binary.BigEndian.Uint32(f[50:])
		}
	}
	if hasDelay {
		d.startSkip = startPad + 529
		if frames != 0 {
			d.firstDiscard = int64(frames)*int64(h.spf) - endPad + 529
			d.lastDiscard = int64(frames) * int64(h.spf)
		}
		d.skipRemaining = d.startSkip
	}
	if frames != 0 {
		total := int64(frames) * int64(h.spf)
		if hasDelay {
			end := total
			if d.firstDiscard < end {
				end = d.firstDiscard
			}
			total = end - d.startSkip
			if total < 0 {
				total = 0
			}
		}
		d.totalFrames = total
	}
	if found && (frames != 0 || size != 0) {
		// The header frame carries no audio.
		d.inPos += h.frameSize
		d.frameNum++
	}
}

// ---- frame loop ----

// nextFrame positions the input at the next audio frame and returns its
// header. It returns io.EOF at the clean end of the stream.
func (d *Decoder) nextFrame() (frameHeader, error) {
	resync := false
	for {
		if !d.fill(4) {
			if d.inErr != nil {
				return frameHeader{}, d.endErr("reading")
			}
			b := d.in[d.inPos:d.inEnd]
			if !resync && len(b) > 0 && b[0] == 0xff && (len(b) < 2 || b[1]&0xe0 == 0xe0) {
				return frameHeader{}, d.endErr("truncated frame header")
			}
			d.inPos = d.inEnd
			return frameHeader{}, io.EOF
		}
		h, ok := parseHeader(binary.BigEndian.Uint32(d.in[d.inPos:]))
		if ok && d.matches(&h) && (!resync || d.confirmed(&h, &d.first)) {
			if !d.fill(h.frameSize) {
				if d.inErr != nil {
					return frameHeader{}, d.endErr("reading")
				}
				return frameHeader{}, fmt.Errorf("mp3: frame %d truncated (%d of %d bytes) at byte offset %d: %w",
					d.frameNum, d.avail(), h.frameSize, d.offset(), io.ErrUnexpectedEOF)
			}
			return h, nil
		}
		if !resync {
			b := d.in[d.inPos:d.inEnd]
			switch {
			case string(b[:3]) == "TAG":
				// ID3v1 at the end of the stream: exactly 128 bytes left.
				if !d.fill(129) && d.avail() == 128 && d.inErr == nil {
					d.inPos = d.inEnd
					return frameHeader{}, io.EOF
				}
			case string(b[:3]) == "ID3":
				if n := d.id3v2Size(); n > 0 {
					d.skip(n)
					continue
				}
			case string(b[:4]) == "APET":
				if d.fill(32) && string(d.in[d.inPos:d.inPos+8]) == "APETAGEX" {
					size := int64(binary.LittleEndian.Uint32(d.in[d.inPos+12:]))
					flags := binary.LittleEndian.Uint32(d.in[d.inPos+20:])
					n := int64(32)
					if flags&(1<<29) != 0 {
						n += size // header: skip the items and the footer too
					}
					d.skip(n)
					continue
				}
			}
		}
		// Junk: scan for the next frame whose successor agrees.
		resync = true
		d.inPos++
	}
}

func (d *Decoder) decodeNext() error {
	h, err := d.nextFrame()
	if err != nil {
		return err
	}
	frame := d.in[d.inPos : d.inPos+h.frameSize]
	off := d.offset()
	if err := d.dec.decodeFrame(&h, frame, d.pcm, d.channels); err != nil {
		return fmt.Errorf("mp3: frame %d at byte offset %d: %w", d.frameNum, off, err)
	}
	d.inPos += h.frameSize
	d.frameNum++
	spf := int64(h.spf)
	pts := d.frameIndex * spf
	d.frameIndex++

	// Trimming as in ffmpeg: the demuxer marks the padding to discard at the
	// end, the decoder skips startSkip samples from the start.
	var discard int64
	if d.firstDiscard != 0 && pts+spf >= d.firstDiscard && pts < d.lastDiscard {
		discard = min(pts+spf-d.firstDiscard, spf)
		if pts != 0 {
			d.skipRemaining = 0
		}
	}
	start, n := int64(0), spf
	if d.skipRemaining > 0 {
		if n <= d.skipRemaining {
			d.skipRemaining -= n
			d.pcmPos, d.pcmEnd = 0, 0
			return nil
		}
		start = d.skipRemaining
		n -= d.skipRemaining
		d.skipRemaining = 0
	}
	if discard > 0 && discard <= n {
		n -= discard
	}
	d.pcmPos = int(start) * d.channels
	d.pcmEnd = int(start+n) * d.channels
	return nil
}
