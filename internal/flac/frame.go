package flac

import (
	"errors"
	"fmt"
	"io"
)

// corrupt makes the error for corrupt data in the current frame.
func (d *Decoder) corrupt(format string, args ...any) error {
	return &frameError{frame: d.frameNum, offset: d.frameOff, msg: fmt.Sprintf(format, args...)}
}

// frameError is corrupt data in a frame.
type frameError struct {
	frame  int64
	offset int64
	msg    string
}

func (e *frameError) Error() string {
	return fmt.Sprintf("flac: frame %d (byte offset %d): %s", e.frame, e.offset, e.msg)
}

// truncated is the error for input that ends inside the current frame.
func (d *Decoder) truncated() error {
	cause := io.ErrUnexpectedEOF
	if e := d.br.rerr; e != nil && e != io.EOF {
		cause = e
	}
	return fmt.Errorf("flac: frame %d (byte offset %d): the input ends inside the frame: %w", d.frameNum, d.frameOff, cause)
}

// decodeFrame decodes the next frame into d.ch, or returns io.EOF at the
// clean end of the stream.
func (d *Decoder) decodeFrame() error {
	br := d.br
	d.cur, d.blockLen = 0, 0
	br.align()
	d.frameOff = br.offset()
	if d.total > 0 && d.decoded >= d.total {
		// Everything STREAMINFO promised is decoded: trailing bytes that
		// are not a frame (an ID3v1 tag, padding) end the stream.
		if v, ok := br.peek16(); !ok || v&0xfffe != 0xfff8 {
			return d.endOfInput()
		}
	}
	if br.atEnd() {
		return d.endOfInput()
	}
	if v, ok := br.peek16(); ok && v == 'T'<<8|'A' {
		return d.endOfInput() // an ID3v1 tag
	}
	err := d.decodeFrameBody()
	if err != nil && br.overrun() {
		return d.truncated()
	}
	if err == nil && d.sampleRate == 0 {
		err = d.corrupt("no sample rate in STREAMINFO or frame header")
	}
	return err
}

// endOfInput is the result of running out of frames.
func (d *Decoder) endOfInput() error {
	if e := d.br.rerr; e != nil && e != io.EOF {
		return fmt.Errorf("flac: reading frame %d: %w", d.frameNum, e)
	}
	if d.total > 0 && d.decoded < d.total {
		return fmt.Errorf("flac: the input ends at byte offset %d after %d of the %d samples STREAMINFO promises (frame %d): %w",
			d.frameOff, d.decoded, d.total, d.frameNum, io.ErrUnexpectedEOF)
	}
	return io.EOF
}

var blockSizes = [16]int{0, 192, 576, 1152, 2304, 4608, 0, 0, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768}

var sampleRates = [16]int{0, 88200, 176400, 192000, 8000, 16000, 22050, 24000, 32000, 44100, 48000, 96000}

var sampleSizes = [8]int{0, 8, 12, 0, 16, 20, 24, 32}

var errTruncated = errors.New("truncated")

func (d *Decoder) decodeFrameBody() error {
	br := d.br
	br.startCRC()
	var hdr [16]byte
	hn := 0
	next := func() byte {
		c := byte(br.bits(8))
		hdr[hn&15] = c
		hn++
		return c
	}
	b0, b1 := next(), next()
	if b0 != 0xff || b1&0xfe != 0xf8 {
		return d.corrupt("no frame sync code (found %02x %02x)", b0, b1)
	}
	b2, b3 := next(), next()
	bsCode, srCode := b2>>4, b2&15
	chCode, ssCode := b3>>4, (b3>>1)&7
	if b3&1 != 0 {
		return d.corrupt("reserved bit set in frame header")
	}
	// The coded frame or sample number, UTF-8 style.
	c := next()
	extra := 0
	switch {
	case c < 0x80:
	case c&0xe0 == 0xc0:
		extra = 1
	case c&0xf0 == 0xe0:
		extra = 2
	case c&0xf8 == 0xf0:
		extra = 3
	case c&0xfc == 0xf8:
		extra = 4
	case c&0xfe == 0xfc:
		extra = 5
	case c == 0xfe:
		extra = 6
	default:
		return d.corrupt("invalid coded frame number")
	}
	for range extra {
		if next()&0xc0 != 0x80 {
			return d.corrupt("invalid coded frame number")
		}
	}
	bs := blockSizes[bsCode]
	switch bsCode {
	case 0:
		return d.corrupt("reserved block size code")
	case 6:
		bs = int(next()) + 1
	case 7:
		hi := int(next())
		bs = hi<<8 | int(next()) + 1
	}
	rate := sampleRates[srCode]
	switch srCode {
	case 0:
		rate = d.sampleRate
	case 12:
		rate = int(next()) * 1000
	case 13:
		hi := int(next())
		rate = hi<<8 | int(next())
	case 14:
		hi := int(next())
		rate = (hi<<8 | int(next())) * 10
	case 15:
		return d.corrupt("invalid sample rate code")
	}
	want := crc8(0, hdr[:hn])
	got := byte(br.bits(8))
	if br.overrun() {
		return errTruncated
	}
	if want != got && !d.ignoreCRC {
		return d.corrupt("frame header CRC-8 mismatch (computed %02x, stored %02x)", want, got)
	}
	if d.sampleRate == 0 {
		d.sampleRate = rate
	}

	nch := int(chCode) + 1
	var sideCh = -1
	switch {
	case chCode < 8:
	case chCode == 8 || chCode == 10:
		nch, sideCh = 2, 1
	case chCode == 9:
		nch, sideCh = 2, 0
	default:
		return d.corrupt("reserved channel assignment %d", chCode)
	}
	if nch != d.channels {
		return d.corrupt("%d channels, but STREAMINFO says %d", nch, d.channels)
	}
	bps := d.bps
	if ssCode != 0 {
		bps = sampleSizes[ssCode]
		if bps == 0 {
			return d.corrupt("reserved sample size code")
		}
		if bps != d.bps {
			return d.corrupt("%d bits per sample, but STREAMINFO says %d", bps, d.bps)
		}
	}

	d.grow(bs)
	wide := false
	for ch := range nch {
		sbps := uint(bps)
		if ch == sideCh {
			sbps++
		}
		var err error
		if sbps > 32 {
			wide = true
			err = d.decodeSubframe64(ch, bs, sbps)
		} else {
			err = d.decodeSubframe(ch, bs, sbps)
		}
		if err != nil {
			return err
		}
		if br.overrun() {
			return errTruncated
		}
	}
	br.align()
	sum := br.frameCRC()
	stored := uint16(br.bits(16))
	if br.overrun() {
		return errTruncated
	}
	if sum != stored && !d.ignoreCRC {
		return d.corrupt("frame CRC-16 mismatch (computed %04x, stored %04x)", sum, stored)
	}

	if wide {
		d.decorrelate64(chCode, bs)
	} else {
		d.decorrelate(chCode, bs)
	}
	d.blockLen = bs
	d.decoded += int64(bs)
	d.frameNum++
	return nil
}

// grow makes the channel buffers hold bs samples. Their size is bounded by
// the format's maximum block size.
func (d *Decoder) grow(bs int) {
	if len(d.ch[0]) >= bs {
		return
	}
	n := min(max(bs, d.maxBlock), maxBlockSize)
	for c := range d.channels {
		d.ch[c] = make([]int32, n)
	}
	d.side64 = nil
	d.res = nil
}

// decorrelate turns stereo-coded channels back into left and right.
func (d *Decoder) decorrelate(chCode byte, bs int) {
	switch chCode {
	case 8: // left, side
		l, s := d.ch[0][:bs], d.ch[1][:bs]
		for i, v := range l {
			s[i] = v - s[i]
		}
	case 9: // side, right
		s, r := d.ch[0][:bs], d.ch[1][:bs]
		for i, v := range r {
			s[i] += v
		}
	case 10: // mid, side
		m, s := d.ch[0][:bs], d.ch[1][:bs]
		for i, mv := range m {
			sv := int64(s[i])
			mid := int64(mv)<<1 | sv&1
			m[i] = int32((mid + sv) >> 1)
			s[i] = int32((mid - sv) >> 1)
		}
	}
}

// decorrelate64 is decorrelate with a 33-bit side channel in d.side64.
func (d *Decoder) decorrelate64(chCode byte, bs int) {
	side := d.side64[:bs]
	switch chCode {
	case 8:
		l, r := d.ch[0][:bs], d.ch[1][:bs]
		for i, v := range l {
			r[i] = int32(int64(v) - side[i])
		}
	case 9:
		l, r := d.ch[0][:bs], d.ch[1][:bs]
		for i, v := range r {
			l[i] = int32(side[i] + int64(v))
		}
	case 10:
		l, r := d.ch[0][:bs], d.ch[1][:bs]
		for i, mv := range l {
			sv := side[i]
			mid := int64(mv)<<1 | sv&1
			l[i] = int32((mid + sv) >> 1)
			r[i] = int32((mid - sv) >> 1)
		}
	}
}

// subframeHeader reads a subframe header and returns its type and wasted
// bits.
func (d *Decoder) subframeHeader(ch int, bps uint) (typ, wasted uint, err error) {
	br := d.br
	h := br.bits(8)
	if h&0x80 != 0 {
		return 0, 0, d.corrupt("subframe %d: padding bit set", ch)
	}
	typ = uint(h>>1) & 0x3f
	if h&1 != 0 {
		w := br.unary(64) + 1
		if w >= uint64(bps) {
			return 0, 0, d.corrupt("subframe %d: %d wasted bits of %d", ch, w, bps)
		}
		wasted = uint(w)
	}
	switch {
	case typ <= 1, typ >= 8 && typ <= 12, typ >= 32:
	default:
		return 0, 0, d.corrupt("subframe %d: reserved subframe type %d", ch, typ)
	}
	return typ, wasted, nil
}

// decodeSubframe decodes a subframe of at most 32 bits into d.ch[ch].
func (d *Decoder) decodeSubframe(ch int, bs int, bps uint) error {
	br := d.br
	typ, wasted, err := d.subframeHeader(ch, bps)
	if err != nil {
		return err
	}
	bps -= wasted
	x := d.ch[ch][:bs]
	switch {
	case typ == 0:
		v := int32(br.signed(bps))
		for i := range x {
			x[i] = v
		}
	case typ == 1:
		for i := range x {
			x[i] = int32(br.signed(bps))
		}
	case typ <= 12:
		order := int(typ - 8)
		if order > bs {
			return d.corrupt("subframe %d: fixed predictor order %d exceeds block size %d", ch, order, bs)
		}
		for i := range order {
			x[i] = int32(br.signed(bps))
		}
		if err := d.decodeResidual(x, order); err != nil {
			return err
		}
		fixedRestore(x, order)
	default:
		order := int(typ - 31)
		if order > bs {
			return d.corrupt("subframe %d: LPC order %d exceeds block size %d", ch, order, bs)
		}
		for i := range order {
			x[i] = int32(br.signed(bps))
		}
		prec := uint(br.bits(4))
		if prec == 15 {
			return d.corrupt("subframe %d: invalid LPC coefficient precision", ch)
		}
		prec++
		shift := br.signed(5)
		if shift < 0 {
			return d.corrupt("subframe %d: negative LPC shift %d", ch, shift)
		}
		c := d.coefs[:order]
		for i := range c {
			c[i] = int32(br.signed(prec))
		}
		if err := d.decodeResidual(x, order); err != nil {
			return err
		}
		lpcRestore(x, c, uint(shift))
	}
	if wasted > 0 {
		for i := range x {
			x[i] <<= wasted
		}
	}
	return nil
}

// fixedRestore adds the fixed polynomial prediction of the given order to
// the residuals in x[order:]. int32 arithmetic wraps, but the result is
// exact whenever the true sample fits in 32 bits, as valid samples do.
func fixedRestore(x []int32, order int) {
	if len(x) <= order {
		return
	}
	switch order {
	case 1:
		a := x[0]
		for i := 1; i < len(x); i++ {
			a += x[i]
			x[i] = a
		}
	case 2:
		a, b := x[1], x[0]
		for i := 2; i < len(x); i++ {
			v := x[i] + 2*a - b
			x[i] = v
			b, a = a, v
		}
	case 3:
		a, b, c := x[2], x[1], x[0]
		for i := 3; i < len(x); i++ {
			v := x[i] + 3*(a-b) + c
			x[i] = v
			c, b, a = b, a, v
		}
	case 4:
		a, b, c, e := x[3], x[2], x[1], x[0]
		for i := 4; i < len(x); i++ {
			v := x[i] + 4*(a+c) - 6*b - e
			x[i] = v
			e, c, b, a = c, b, a, v
		}
	}
}

// decodeSubframe64 decodes the 33-bit side channel of a 32-bit stream into
// d.side64.
func (d *Decoder) decodeSubframe64(ch int, bs int, bps uint) error {
	br := d.br
	typ, wasted, err := d.subframeHeader(ch, bps)
	if err != nil {
		return err
	}
	bps -= wasted
	if len(d.side64) < bs {
		d.side64 = make([]int64, len(d.ch[0]))
		d.res = make([]int32, len(d.ch[0]))
	}
	x := d.side64[:bs]
	switch {
	case typ == 0:
		v := br.signed(bps)
		for i := range x {
			x[i] = v
		}
	case typ == 1:
		for i := range x {
			x[i] = br.signed(bps)
		}
	case typ <= 12:
		order := int(typ - 8)
		if order > bs {
			return d.corrupt("subframe %d: fixed predictor order %d exceeds block size %d", ch, order, bs)
		}
		for i := range order {
			x[i] = br.signed(bps)
		}
		r := d.res[:bs]
		if err := d.decodeResidual(r, order); err != nil {
			return err
		}
		for i := order; i < bs; i++ {
			var p int64
			switch order {
			case 1:
				p = x[i-1]
			case 2:
				p = 2*x[i-1] - x[i-2]
			case 3:
				p = 3*(x[i-1]-x[i-2]) + x[i-3]
			case 4:
				p = 4*(x[i-1]+x[i-3]) - 6*x[i-2] - x[i-4]
			}
			x[i] = int64(r[i]) + p
		}
	default:
		order := int(typ - 31)
		if order > bs {
			return d.corrupt("subframe %d: LPC order %d exceeds block size %d", ch, order, bs)
		}
		for i := range order {
			x[i] = br.signed(bps)
		}
		prec := uint(br.bits(4))
		if prec == 15 {
			return d.corrupt("subframe %d: invalid LPC coefficient precision", ch)
		}
		prec++
		shift := br.signed(5)
		if shift < 0 {
			return d.corrupt("subframe %d: negative LPC shift %d", ch, shift)
		}
		c := d.coefs[:order]
		for i := range c {
			c[i] = int32(br.signed(prec))
		}
		r := d.res[:bs]
		if err := d.decodeResidual(r, order); err != nil {
			return err
		}
		for i := order; i < bs; i++ {
			var s int64
			for j, cv := range c {
				s += int64(cv) * x[i-1-j]
			}
			x[i] = int64(r[i]) + s>>uint(shift)
		}
	}
	if wasted > 0 {
		for i := range x {
			x[i] <<= wasted
		}
	}
	return nil
}
