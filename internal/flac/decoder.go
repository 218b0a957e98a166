// Package flac decodes native FLAC streams to float32 PCM.
//
// It reads every FLAC feature a native stream can use: bit depths 4 to 32,
// one to eight channels with every stereo decorrelation mode, constant,
// verbatim, fixed and LPC subframes (orders up to 32, 64-bit sums), Rice and
// Rice2 residuals with escapes, wasted bits and variable block sizes. Frame
// header CRC-8 and frame CRC-16 are checked; the MD5 in STREAMINFO is not.
// A leading ID3v2 tag is skipped. Ogg-encapsulated FLAC is not read.
package flac

//go:generate go run gen_lpc.go

import (
	"errors"
	"fmt"
	"io"
	"math"
)

const (
	maxChannels  = 8
	maxBlockSize = 65536 // a frame header can code 65536 though STREAMINFO stops at 65535
)

// Decoder decodes one FLAC stream.
type Decoder struct {
	br *bitReader

	sampleRate int
	channels   int
	bps        int
	total      int64
	maxBlock   int
	comments   []string
	scale      float32
	md5        [16]byte

	frameNum int64 // index of the frame being decoded (= frames decoded so far)
	frameOff int64 // byte offset of that frame
	decoded  int64 // samples per channel decoded so far

	ch       [maxChannels][]int32
	side64   []int64 // the 33-bit side channel of a 32-bit stereo stream
	res      []int32 // residual scratch for side64
	coefs    [32]int32
	blockLen int // samples per channel in the current block
	cur      int // next sample of the current block for Read

	err error

	// ignoreCRC lets frames with bad checksums through, so that the fuzz
	// target can reach the subframe decoder with mutated data (which a
	// crafted file with recomputed CRCs reaches anyway).
	ignoreCRC bool
}

// NewDecoder reads the stream's headers from r: an optional ID3v2 tag, the
// fLaC marker and the metadata blocks. Input that is not FLAC is an error.
func NewDecoder(r io.Reader) (*Decoder, error) {
	if r == nil {
		return nil, errors.New("flac: nil reader")
	}
	d := &Decoder{br: newBitReader(r)}
	if err := d.readHeaders(); err != nil {
		return nil, err
	}
	return d, nil
}

// SampleRate is the sample rate in Hz from STREAMINFO (or, if STREAMINFO
// has none, from the first frame).
func (d *Decoder) SampleRate() int { return d.sampleRate }

// Channels is the number of channels, 1 to 8.
func (d *Decoder) Channels() int { return d.channels }

// BitsPerSample is the source bit depth, 4 to 32.
func (d *Decoder) BitsPerSample() int { return d.bps }

// TotalFrames is the number of samples per channel STREAMINFO promises, or
// 0 when it does not say.
func (d *Decoder) TotalFrames() int64 { return d.total }

// Comments returns the Vorbis comments as "KEY=value" strings in file
// order, or nil if there are none.
func (d *Decoder) Comments() []string { return d.comments }

// Read decodes interleaved samples scaled to [-1, 1] into dst and returns
// how many it wrote, a multiple of Channels(). It returns io.EOF at the
// clean end of the stream, an error wrapping io.ErrUnexpectedEOF when the
// input ends early (after every complete frame before that point has been
// returned), and a descriptive error for corrupt data. Errors are sticky.
func (d *Decoder) Read(dst []float32) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	nc := d.channels
	if len(dst) < nc {
		return 0, fmt.Errorf("flac: Read buffer holds %d samples, fewer than the %d channels", len(dst), nc)
	}
	w := 0
	for len(dst)-w >= nc {
		if d.cur >= d.blockLen {
			if err := d.decodeFrame(); err != nil {
				d.err = err
				if w > 0 {
					return w, nil
				}
				return 0, err
			}
			continue
		}
		m := min(d.blockLen-d.cur, (len(dst)-w)/nc)
		out := dst[w : w+m*nc]
		d.convert(out, d.cur, m)
		d.cur += m
		w += m * nc
	}
	return w, nil
}

// convert writes m interleaved samples per channel from block position cur.
func (d *Decoder) convert(out []float32, cur, m int) {
	s := d.scale
	switch d.channels {
	case 1:
		a := d.ch[0][cur : cur+m]
		out = out[:len(a)]
		for i, v := range a {
			out[i] = float32(v) * s
		}
	case 2:
		a := d.ch[0][cur : cur+m]
		b := d.ch[1][cur : cur+m]
		b = b[:len(a)]
		j := 0
		for i, v := range a {
			if j+1 >= len(out) {
				break
			}
			out[j] = float32(v) * s
			out[j+1] = float32(b[i]) * s
			j += 2
		}
	default:
		nc := d.channels
		for c := range nc {
			a := d.ch[c][cur : cur+m]
			j := c
			for _, v := range a {
				if j >= len(out) {
					break
				}
				out[j] = float32(v) * s
				j += nc
			}
		}
	}
}

// readHeaders reads up to the first frame.
func (d *Decoder) readHeaders() error {
	br := d.br
	if br.atEnd() {
		return d.headerEOF("the input is empty")
	}
	magic := br.bits(32)
	for magic>>8 == 'I'<<16|'D'<<8|'3' {
		// ID3v2: 2 version bytes (the second read with magic), flags,
		// 4-byte syncsafe size; a footer adds 10 bytes.
		br.bits(8)
		flags := br.bits(8)
		size := int64(0)
		for range 4 {
			c := br.bits(8)
			if c >= 0x80 {
				if br.overrun() {
					return d.headerEOF("the input ends inside an ID3v2 tag")
				}
				return errors.New("flac: corrupt ID3v2 tag size before the fLaC marker")
			}
			size = size<<7 | int64(c)
		}
		if flags&0x10 != 0 {
			size += 10
		}
		if br.overrun() || !br.skip(size) {
			return d.headerEOF("the input ends inside an ID3v2 tag")
		}
		magic = br.bits(32)
	}
	if br.overrun() {
		return d.headerEOF("the input ends before the fLaC marker")
	}
	if magic != 'f'<<24|'L'<<16|'a'<<8|'C' {
		return fmt.Errorf("flac: not a FLAC stream (no fLaC marker; first bytes %08x)", magic)
	}
	for first := true; ; first = false {
		off := br.offset()
		h := br.bits(32)
		if br.overrun() {
			return d.headerEOF("the input ends inside the metadata")
		}
		last := h>>31 != 0
		typ := (h >> 24) & 0x7f
		length := int64(h & 0xffffff)
		if first && typ != 0 {
			return fmt.Errorf("flac: first metadata block (byte offset %d) is type %d, not STREAMINFO", off, typ)
		}
		switch typ {
		case 0:
			if !first {
				if !br.skip(length) {
					return d.headerEOF("the input ends inside a metadata block")
				}
				break
			}
			if length < 34 {
				return fmt.Errorf("flac: STREAMINFO at byte offset %d is %d bytes, want 34", off, length)
			}
			if err := d.readStreamInfo(); err != nil {
				return err
			}
			if !br.skip(length - 34) {
				return d.headerEOF("the input ends inside STREAMINFO")
			}
		case 4:
			data, ok := br.readBytes(int(length))
			if !ok {
				return d.headerEOF("the input ends inside the VORBIS_COMMENT block")
			}
			d.comments = append(d.comments, parseVorbisComments(data)...)
		case 127:
			return fmt.Errorf("flac: invalid metadata block type 127 at byte offset %d", off)
		default:
			if !br.skip(length) {
				return d.headerEOF("the input ends inside a metadata block")
			}
		}
		if last {
			break
		}
	}
	if d.sampleRate == 0 {
		// STREAMINFO leaves the rate to the frame headers.
		err := d.decodeFrame()
		if err != nil && err != io.EOF {
			return err
		}
		if d.sampleRate == 0 {
			return errors.New("flac: the stream gives no sample rate")
		}
		d.err = err
	}
	return nil
}

func (d *Decoder) headerEOF(what string) error {
	if e := d.br.rerr; e != nil && e != io.EOF {
		return fmt.Errorf("flac: %s: %w", what, e)
	}
	return fmt.Errorf("flac: %s: %w", what, io.ErrUnexpectedEOF)
}

func (d *Decoder) readStreamInfo() error {
	br := d.br
	br.bits(16) // minimum block size
	maxBlock := int(br.bits(16))
	br.bits(24) // minimum frame size
	br.bits(24) // maximum frame size
	d.sampleRate = int(br.bits(20))
	d.channels = int(br.bits(3)) + 1
	d.bps = int(br.bits(5)) + 1
	d.total = int64(br.bits(36))
	for i := range d.md5 { // MD5 of the PCM, not checked (tests do)
		d.md5[i] = byte(br.bits(8))
	}
	if br.overrun() {
		return d.headerEOF("the input ends inside STREAMINFO")
	}
	if d.bps < 4 {
		return fmt.Errorf("flac: STREAMINFO gives %d bits per sample; FLAC needs 4 to 32", d.bps)
	}
	d.scale = float32(math.Ldexp(1, 1-d.bps))
	if maxBlock < 16 {
		maxBlock = 4608
	}
	d.maxBlock = maxBlock
	return nil
}

// parseVorbisComments reads the comments of a VORBIS_COMMENT block, all
// little-endian length-prefixed. It keeps what it can read of a damaged
// block.
func parseVorbisComments(p []byte) []string {
	// u32 reads a length and reports whether that many bytes follow.
	u32 := func() (int, bool) {
		if len(p) < 4 {
			return 0, false
		}
		v := uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16 | uint64(p[3])<<24
		p = p[4:]
		if v > uint64(len(p)) {
			return 0, false
		}
		return int(v), true
	}
	vlen, ok := u32()
	if !ok {
		return nil
	}
	p = p[vlen:]
	if len(p) < 4 {
		return nil
	}
	count := uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24
	p = p[4:]
	var out []string
	for ; count > 0; count-- {
		l, ok := u32()
		if !ok {
			break
		}
		out = append(out, string(p[:l]))
		p = p[l:]
	}
	return out
}
