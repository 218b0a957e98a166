// Package vorbis is a pure-Go Ogg Vorbis decoder: the Ogg page layer (CRC
// checks, packet reassembly, granule positions) and the Vorbis I codec
// (floor 0 and 1, residue 0, 1 and 2, any channel count and block size).
//
// Behaviour worth knowing:
//   - Only the first Vorbis logical stream is decoded. In a chained file,
//     Read returns io.EOF at the end of the first stream; in a multiplexed
//     file (e.g. Theora + Vorbis) the first Vorbis stream is decoded and the
//     others are skipped. An Ogg file without a Vorbis stream is an error
//     naming the codec of its first stream ("Ogg stream holds Opus, not
//     Vorbis").
//   - The output is trimmed as the granule positions say: the end of the
//     stream to the last page's granule position, and the start when the
//     first granule position implies that decoding starts before zero.
//   - Channels are returned in the WAVE/FLAC order (FL, FR, FC, LFE, BL, BR,
//     SL, SR for up to 8 channels), like ffmpeg, not in Vorbis's order
//     (FL, FC, FR, ...). Streams of more than 8 channels keep the stream order.
//   - Samples are clamped to [-1, 1] (NaN from corrupt data becomes 0).
//   - A page with a bad CRC, a missing page (sequence gap) or a corrupt
//     audio packet is an error naming the byte offset of the page; input
//     that ends without the end-of-stream page is an error wrapping
//     io.ErrUnexpectedEOF, after every complete packet has been returned.
//     Packets that end early (legal in Vorbis) decode as the spec says.
package vorbis

import (
	"errors"
	"fmt"
	"io"
	"math"
)

// Decoder decodes an Ogg Vorbis stream.
type Decoder struct {
	ogg *oggReader

	channels   int
	sampleRate int
	blockSize  [2]int
	vendor     string
	comments   []string

	books          []*codebook
	floors         []floorConf
	residues       []residueConf
	mappings       []mappingConf
	modes          []modeConf
	modeBits       uint
	maxFloorValues int

	mdct [2]*imdct
	win  [2][]float32 // rising window slopes, blockSize[i]/2 long

	// Per-packet work areas.
	br          bitReader
	spec        [][]float32 // channels x blockSize[1]/2
	floorY      [][]int32
	floorUsed   []bool
	noResidue   []bool
	floor0Coef  [][]float32
	floor0Amp   []float64
	floorFinal  []int32
	floorStep2  []bool
	interleaved []float32
	classes     []uint8
	vecs        [][]float32
	dnd         []bool
	u, uPrev    [][]float32 // DCT-IV outputs of the current / previous block
	prevN       int         // size of the previous block; 0 before the first

	// Decoded output not yet returned.
	pcm            [][]float32
	pcmOff, pcmLen int

	pos         int64 // granule position of the next decoded frame
	endLimit    int64 // granule position where output stops; -1: none
	totalFrames int64
	packetNo    int
	err         error
}

// NewDecoder reads the Ogg Vorbis headers from r. If r is an io.ReadSeeker,
// the end of the input is scanned for the stream length (TotalFrames) and
// the position is restored.
func NewDecoder(r io.Reader) (*Decoder, error) {
	d := &Decoder{ogg: newOggReader(r), endLimit: -1}
	if err := d.ogg.selectStream(); err != nil {
		return nil, err
	}
	for i := 0; i < 3; i++ {
		ref, p, ok := d.ogg.next()
		if !ok {
			err := d.ogg.doneErr
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("vorbis: stream ends inside the headers: %w", err)
		}
		var err error
		switch i {
		case 0:
			err = d.parseIdent(p)
		case 1:
			err = d.parseComment(p)
		case 2:
			err = d.parseSetup(p)
		}
		if err != nil {
			return nil, fmt.Errorf("%w (header packet %d, page at byte offset %d)", err, i+1, ref.pageOffset)
		}
	}
	d.init()
	if rs, ok := r.(io.ReadSeeker); ok {
		last, err := d.scanLastGranule(rs)
		if err != nil {
			return nil, err
		}
		d.prime()
		if last >= 0 {
			d.totalFrames = last - max(d.pos, 0)
			if d.totalFrames < 0 {
				d.totalFrames = 0
			}
		}
	} else {
		d.prime()
	}
	return d, nil
}

// SampleRate returns the sample rate in Hz.
func (d *Decoder) SampleRate() int { return d.sampleRate }

// Channels returns the number of channels.
func (d *Decoder) Channels() int { return d.channels }

// BitsPerSample returns 0: Vorbis is a lossy format.
func (d *Decoder) BitsPerSample() int { return 0 }

// TotalFrames returns the number of frames per channel in the stream, from
// the granule position of its last page, or 0 when unknown (the input is not
// an io.ReadSeeker or the last page could not be found near its end).
func (d *Decoder) TotalFrames() int64 { return d.totalFrames }

// Comments returns the user comments of the comment header ("KEY=value"),
// in file order, or nil if there are none.
func (d *Decoder) Comments() []string { return d.comments }

// Vendor returns the vendor string of the comment header.
func (d *Decoder) Vendor() string { return d.vendor }

func (d *Decoder) init() {
	ch := d.channels
	h1 := d.blockSize[1] / 2
	d.mdct[0] = newIMDCT(d.blockSize[0])
	if d.blockSize[1] == d.blockSize[0] {
		d.mdct[1] = d.mdct[0]
	} else {
		d.mdct[1] = newIMDCT(d.blockSize[1])
	}
	for i, n := range d.blockSize {
		w := make([]float32, n/2)
		for k := range w {
			x := math.Sin((float64(k) + 0.5) / float64(n/2) * math.Pi / 2)
			w[k] = float32(math.Sin(math.Pi / 2 * x * x))
		}
		d.win[i] = w
	}
	alloc := func(n int) [][]float32 {
		all := make([]float32, ch*n)
		s := make([][]float32, ch)
		for i := range s {
			s[i] = all[i*n : (i+1)*n : (i+1)*n]
		}
		return s
	}
	d.spec = alloc(h1)
	d.u = alloc(h1)
	d.uPrev = alloc(h1)
	d.pcm = alloc(h1)
	d.floorY = make([][]int32, ch)
	for i := range d.floorY {
		d.floorY[i] = make([]int32, d.maxFloorValues)
	}
	d.floorFinal = make([]int32, d.maxFloorValues)
	d.floorStep2 = make([]bool, d.maxFloorValues)
	d.floorUsed = make([]bool, ch)
	d.noResidue = make([]bool, ch)
	d.floor0Amp = make([]float64, ch)
	for _, f := range d.floors {
		if f.typ == 0 {
			d.floor0Coef = make([][]float32, ch)
			for i := range d.floor0Coef {
				d.floor0Coef[i] = make([]float32, 256)
			}
			break
		}
	}
	for _, r := range d.residues {
		if r.typ == 2 && ch > 1 {
			d.interleaved = make([]float32, ch*h1)
			break
		}
	}
	d.vecs = make([][]float32, 0, ch)
	d.dnd = make([]bool, 0, ch)
}

// packetBlockSize returns the block size of an audio packet, or 0 if it is
// not a decodable audio packet.
func (d *Decoder) packetBlockSize(p []byte) int {
	if len(p) == 0 || p[0]&1 != 0 {
		return 0
	}
	var br bitReader
	br.init(p)
	br.read(1)
	m := int(br.read(d.modeBits))
	if m >= len(d.modes) || br.pastEnd() {
		return 0
	}
	return d.blockSize[d.modes[m].blockFlag]
}

// prime finds the granule position of the first decoded frame from the first
// page that has a granule position: if that is negative, the start of the
// stream is trimmed.
func (d *Decoder) prime() {
	var total int64
	prev := 0
	for i := 0; i < 2048; i++ {
		ref, p, ok := d.ogg.peek(i)
		if !ok {
			return
		}
		if bs := d.packetBlockSize(p); bs > 0 {
			if prev > 0 {
				total += int64(prev/4 + bs/4)
			}
			prev = bs
		}
		if ref.last && ref.granule != -1 {
			start := ref.granule - total
			if ref.eos && start < 0 {
				// A single page: its granule position marks the end.
				start = 0
			}
			d.pos = start
			return
		}
	}
}

// scanLastGranule returns the granule position of the last page of the
// selected stream found in the last part of rs (or -1), and restores the
// read position.
func (d *Decoder) scanLastGranule(rs io.ReadSeeker) (int64, error) {
	cur, err := rs.Seek(0, io.SeekCurrent)
	if err != nil || cur < d.ogg.offset {
		return -1, nil // not really seekable
	}
	size, err := rs.Seek(0, io.SeekEnd)
	if err != nil {
		if _, err := rs.Seek(cur, io.SeekStart); err != nil {
			return -1, fmt.Errorf("ogg: cannot restore the read position: %w", err)
		}
		return -1, nil
	}
	start := size - 2*maxPageSize
	if start < cur {
		start = cur
	}
	last := int64(-1)
	if start < size {
		buf := make([]byte, size-start)
		if _, err := rs.Seek(start, io.SeekStart); err == nil {
			n, _ := io.ReadFull(rs, buf)
			last = lastGranule(buf[:n], d.ogg.serial)
		}
	}
	if _, err := rs.Seek(cur, io.SeekStart); err != nil {
		return -1, fmt.Errorf("ogg: cannot restore the read position: %w", err)
	}
	return last, nil
}

// lastGranule returns the granule position of the last valid page of the
// given stream in buf that has one, or -1.
func lastGranule(buf []byte, serial uint32) int64 {
	for i := len(buf) - 27; i >= 0; i-- {
		if buf[i] != 'O' || string(buf[i:i+4]) != "OggS" || buf[i+4] != 0 {
			continue
		}
		h := buf[i:]
		nseg := int(h[26])
		if len(h) < 27+nseg {
			continue
		}
		size := 0
		for _, l := range h[27 : 27+nseg] {
			size += int(l)
		}
		if len(h) < 27+nseg+size {
			continue
		}
		if uint32(h[14])|uint32(h[15])<<8|uint32(h[16])<<16|uint32(h[17])<<24 != serial {
			continue
		}
		var hdr [27]byte
		copy(hdr[:], h[:27])
		want := uint32(hdr[22]) | uint32(hdr[23])<<8 | uint32(hdr[24])<<16 | uint32(hdr[25])<<24
		hdr[22], hdr[23], hdr[24], hdr[25] = 0, 0, 0, 0
		crc := oggCRC(0, hdr[:])
		crc = oggCRC(crc, h[27:27+nseg+size])
		if crc != want {
			continue
		}
		g := int64(0)
		for k := 13; k >= 6; k-- {
			g = g<<8 | int64(h[k])
		}
		if g != -1 {
			return g
		}
	}
	return -1
}

// Read decodes interleaved samples into dst. It returns the number of
// samples written (a multiple of Channels()); (0, io.EOF) at the end of the
// stream; an error wrapping io.ErrUnexpectedEOF if the input ends early.
func (d *Decoder) Read(dst []float32) (int, error) {
	ch := d.channels
	if len(dst) < ch {
		return 0, fmt.Errorf("vorbis: Read needs room for at least one frame (%d samples), got %d", ch, len(dst))
	}
	for d.pcmOff >= d.pcmLen {
		if d.err != nil {
			return 0, d.err
		}
		d.step()
	}
	frames := len(dst) / ch
	if avail := d.pcmLen - d.pcmOff; frames > avail {
		frames = avail
	}
	off := d.pcmOff
	// d.pcm holds samples already clamped to [-1, 1].
	switch ch {
	case 1:
		copy(dst[:frames], d.pcm[0][off:off+frames])
	case 2:
		l := d.pcm[0][off : off+frames]
		r := d.pcm[1][off : off+frames]
		out := dst[:2*len(l)]
		r = r[:len(l)]
		for i, v := range l {
			out[2*i] = v
			out[2*i+1] = r[i]
		}
	default:
		for c := 0; c < ch; c++ {
			src := d.pcm[c][off : off+frames]
			if ch <= 8 {
				src = d.pcm[channelOrder[ch-1][c]][off : off+frames]
			}
			for i, v := range src {
				dst[i*ch+c] = v
			}
		}
	}
	d.pcmOff += frames
	return frames * ch, nil
}

// channelOrder[n-1][i] is the Vorbis channel that becomes output channel i
// of an n-channel stream: Vorbis orders the channels L, C, R, ... while the
// output uses the WAVE/FLAC order (FL, FR, FC, LFE, BL, BR, SL, SR), as
// ffmpeg does.
var channelOrder = [8][8]int{
	{0},
	{0, 1},
	{0, 2, 1},
	{0, 1, 2, 3},
	{0, 2, 1, 3, 4},
	{0, 2, 1, 5, 3, 4},
	{0, 2, 1, 6, 5, 3, 4},
	{0, 2, 1, 7, 5, 6, 3, 4},
}

func clamp(v float32) float32 {
	if v > 1 {
		return 1
	}
	if v < -1 {
		return -1
	}
	if v != v {
		return 0
	}
	return v
}

// clampSlice limits samples to [-1, 1] and replaces NaN with 0.
func clampSlice(s []float32) {
	for i, v := range s {
		s[i] = clamp(v)
	}
}

// step decodes the next packet into d.pcm, or sets d.err.
func (d *Decoder) step() {
	ref, p, ok := d.ogg.next()
	if !ok {
		d.err = d.ogg.doneErr
		if d.err == nil {
			d.err = io.EOF
		}
		return
	}
	d.packetNo++
	cnt, err := d.decodePacket(p)
	if err != nil {
		d.err = fmt.Errorf("vorbis: audio packet %d (page at byte offset %d): %w", d.packetNo, ref.pageOffset, err)
		return
	}
	if ref.eos && ref.granule != -1 {
		d.endLimit = ref.granule
	}
	lo := d.pos
	d.pos += int64(cnt)
	first, last := int64(0), int64(cnt)
	if lo < 0 {
		first = min(-lo, last)
	}
	if d.endLimit >= 0 && lo+last > d.endLimit {
		last = d.endLimit - lo
	}
	last = min(max(last, first), int64(cnt))
	d.pcmOff, d.pcmLen = int(first), int(last)
}

// decodePacket decodes one audio packet and leaves the finished samples in
// d.pcm[:][:count].
func (d *Decoder) decodePacket(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil // an empty packet carries no audio
	}
	br := &d.br
	br.init(p)
	if br.read1() {
		return 0, errors.New("header packet where an audio packet was expected")
	}
	mode := int(br.read(d.modeBits))
	if br.pastEnd() {
		return 0, nil
	}
	if mode >= len(d.modes) {
		return 0, fmt.Errorf("invalid mode number %d", mode)
	}
	md := &d.modes[mode]
	bf := md.blockFlag
	n := d.blockSize[bf]
	half := n / 2
	if bf == 1 {
		// Previous/next window flags: the overlap follows from the actual
		// block sizes, so they are not needed.
		br.read(2)
	}
	mp := &d.mappings[md.mapping]
	ch := d.channels

	for c := 0; c < ch; c++ {
		fl := &d.floors[mp.submapFloor[mp.mux[c]]]
		var used bool
		var err error
		if fl.typ == 1 {
			used, err = d.decodeFloor1(fl.f1, br, d.floorY[c])
		} else {
			d.floor0Amp[c], used, err = d.decodeFloor0(fl.f0, br, d.floor0Coef[c])
		}
		if err != nil {
			return 0, err
		}
		d.floorUsed[c] = used
		d.noResidue[c] = !used
	}
	for i, a := range mp.magnitude {
		b := mp.angle[i]
		if !d.noResidue[a] || !d.noResidue[b] {
			d.noResidue[a], d.noResidue[b] = false, false
		}
	}
	for c := 0; c < ch; c++ {
		clear(d.spec[c][:half])
	}
	for s, ri := range mp.submapResidue {
		vecs, dnd := d.vecs[:0], d.dnd[:0]
		for c := 0; c < ch; c++ {
			if mp.mux[c] == s {
				vecs = append(vecs, d.spec[c][:half])
				dnd = append(dnd, d.noResidue[c])
			}
		}
		if len(vecs) == 0 {
			continue
		}
		err := d.decodeResidue(br, &d.residues[ri], vecs, dnd, half)
		if err == errEOP {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	for i := len(mp.magnitude) - 1; i >= 0; i-- {
		uncouple(d.spec[mp.magnitude[i]][:half], d.spec[mp.angle[i]][:half])
	}
	for c := 0; c < ch; c++ {
		u := d.u[c][:half]
		if !d.floorUsed[c] {
			clear(u)
			continue
		}
		spec := d.spec[c][:half]
		fl := &d.floors[mp.submapFloor[mp.mux[c]]]
		if fl.typ == 1 {
			d.applyFloor1(fl.f1, d.floorY[c], spec)
		} else {
			d.applyFloor0(fl.f0, bf, d.floor0Amp[c], d.floor0Coef[c], spec)
		}
		d.mdct[bf].dct4(spec, u)
	}

	cnt := 0
	if d.prevN > 0 {
		cnt = d.overlapAdd(d.prevN, n)
	}
	d.u, d.uPrev = d.uPrev, d.u
	d.prevN = n
	return cnt, nil
}

// overlapAdd windows and overlaps the right half of the previous block (size
// pn) with the left half of the current one (size cn) into d.pcm. It
// returns the number of frames: pn/4 + cn/4.
func (d *Decoder) overlapAdd(pn, cn int) int {
	mp, mc := pn/2, cn/2
	if pn == cn {
		w := d.win[0]
		if cn == d.blockSize[1] {
			w = d.win[1]
		}
		w = w[:mc]
		h := mc / 2
		for c := 0; c < d.channels; c++ {
			up := d.uPrev[c][:h]
			uc := d.u[c][h:mc]
			out := d.pcm[c][:mc]
			var bad uint32
			for k := 0; k < h; k++ {
				a := up[h-1-k]
				b := uc[k]
				s, co := w[k], w[mc-1-k]
				o1 := b*s - a*co
				o2 := -(a*s + b*co)
				out[k] = o1
				out[mc-1-k] = o2
				// The sign bit of bad gets set if |o| > 1 or o is NaN.
				bad |= (0x3f800000 - math.Float32bits(o1)&0x7fffffff) | (0x3f800000 - math.Float32bits(o2)&0x7fffffff)
			}
			if bad&0x80000000 != 0 {
				clampSlice(out)
			}
		}
		return mc
	}
	// Mixed block sizes: the overlap uses the short window.
	w := d.win[0]
	mw := len(w)
	total := pn/4 + cn/4
	for c := 0; c < d.channels; c++ {
		up := d.uPrev[c][:mp]
		uc := d.u[c][:mc]
		out := d.pcm[c][:total]
		yR := func(r int) float32 {
			if r < mp/2 {
				return -up[mp/2-1-r]
			}
			return -up[r-mp/2]
		}
		yL := func(l int) float32 {
			if l < mc/2 {
				return uc[mc/2+l]
			}
			return -uc[3*mc/2-1-l]
		}
		if pn > cn {
			off := pn/4 - cn/4
			for j := 0; j < off; j++ {
				out[j] = yR(j)
			}
			for k := 0; k < mw; k++ {
				out[off+k] = yR(off+k)*w[mw-1-k] + yL(k)*w[k]
			}
		} else {
			off := cn/4 - pn/4
			for k := 0; k < mw; k++ {
				out[k] = yR(k)*w[mw-1-k] + yL(off+k)*w[k]
			}
			for m := 0; m < off; m++ {
				out[mw+m] = yL(off + mw + m)
			}
		}
		clampSlice(out)
	}
	return total
}

// uncouple undoes square polar channel coupling:
//
//	m > 0, a > 0:  m, a = m, m-a
//	m > 0, a <= 0: m, a = m+a, m
//	m <= 0, a > 0: m, a = m, m+a
//	m <= 0, a <= 0: m, a = m-a, m
//
// computed without branches (the signs are random, so branches mispredict):
// with t = -a if m > 0 else a, the result is (m, m+t) if a > 0 else (m-t, m).
func uncouple(mag, ang []float32) {
	ang = ang[:len(mag)]
	for j, m := range mag {
		a := ang[j]
		mb := int32(math.Float32bits(m))
		ab := int32(math.Float32bits(a))
		mpos := uint32((-mb & ^mb) >> 31) // all ones if m > 0
		apos := uint32((-ab & ^ab) >> 31) // all ones if a > 0
		tb := uint32(ab) ^ (mpos & 0x80000000)
		ang[j] = m + math.Float32frombits(tb&apos)
		mag[j] = m - math.Float32frombits(tb&^apos)
	}
}
