package mp3

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

type granInfo struct {
	part23      int
	bigValues   int
	globalGain  int
	sfCompress  int
	winSwitch   bool
	blockType   int // 0 normal, 1 start, 2 short, 3 stop
	mixed       bool
	tableSelect [3]int
	subGain     [3]int
	region0     int
	region1     int
	preflag     bool
	sfScale     int
	count1Table int
	scfsi       int
	// derived
	longEnd    int // number of long scalefactor bands
	shortStart int // first short scalefactor band (13: none)
}

type sideInfo struct {
	mainDataBegin int
	gr            [2][2]granInfo
}

var errCorrupt = errors.New("corrupt frame")

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errCorrupt}, args...)...)
}

func parseSideInfo(h *frameHeader, b []byte, si *sideInfo) error {
	br := bitReader{buf: b}
	nch := h.channels
	ngr := 2
	if h.lsf {
		ngr = 1
		si.mainDataBegin = int(br.bits(8))
		br.bits(uint(nch)) // private bits
	} else {
		si.mainDataBegin = int(br.bits(9))
		if nch == 1 {
			br.bits(5)
		} else {
			br.bits(3)
		}
		for ch := 0; ch < nch; ch++ {
			s := int(br.bits(4))
			si.gr[0][ch].scfsi = s
			si.gr[1][ch].scfsi = s
		}
	}
	for gr := 0; gr < ngr; gr++ {
		for ch := 0; ch < nch; ch++ {
			g := &si.gr[gr][ch]
			if h.lsf {
				g.scfsi = 0
			}
			g.part23 = int(br.bits(12))
			g.bigValues = int(br.bits(9))
			if g.bigValues > 288 {
				return corruptf("big_values %d > 288", g.bigValues)
			}
			g.globalGain = int(br.bits(8))
			if h.lsf {
				g.sfCompress = int(br.bits(9))
			} else {
				g.sfCompress = int(br.bits(4))
			}
			g.winSwitch = br.bits(1) == 1
			if g.winSwitch {
				g.blockType = int(br.bits(2))
				if g.blockType == 0 {
					return corruptf("window switching with block type 0")
				}
				g.mixed = br.bits(1) == 1
				g.tableSelect[0] = int(br.bits(5))
				g.tableSelect[1] = int(br.bits(5))
				g.tableSelect[2] = 0
				for w := 0; w < 3; w++ {
					g.subGain[w] = int(br.bits(3))
				}
				g.region0 = 7
				g.region1 = 36
			} else {
				g.blockType = 0
				g.mixed = false
				for r := 0; r < 3; r++ {
					g.tableSelect[r] = int(br.bits(5))
				}
				g.subGain = [3]int{}
				g.region0 = int(br.bits(4))
				g.region1 = int(br.bits(3))
			}
			if h.lsf {
				g.preflag = false // set from scalefac_compress later
			} else {
				g.preflag = br.bits(1) == 1
			}
			g.sfScale = int(br.bits(1))
			g.count1Table = int(br.bits(1))
			switch {
			case g.blockType != 2:
				g.longEnd, g.shortStart = 22, 13
			case !g.mixed:
				g.longEnd, g.shortStart = 0, 0
			case h.lsf:
				g.longEnd, g.shortStart = 6, 3
			default:
				g.longEnd, g.shortStart = 8, 3
			}
		}
	}
	return nil
}

// layer3 holds the decoding state that persists between frames.
type layer3 struct {
	md    [4096]byte // main data: bit reservoir followed by the current frame's
	mdLen int

	xr      [2][576]float32
	sfL     [2][22]uint8
	sfS     [2][13][3]uint8
	isMaxL  [22]uint8 // MPEG-2 intensity stereo: illegal position per band
	isMaxS  [13][3]uint8
	overlap [2][32][18]float32
	ovLimit [2]int
	sbOut   [576]float32 // hybrid output, subband-major
	synth   [2]synthState
	pcm     [2][576]float32
	tmp     [576]float32
	si      sideInfo
}

const maxReservoir = 511

// decodeFrame decodes one Layer III frame into out (interleaved, outCh
// channels, spf*outCh samples).
func (s *layer3) decodeFrame(h *frameHeader, frame []byte, out []float32, outCh int) error {
	off := 4
	if h.crc {
		off += 2
	}
	if len(frame) < off+h.sideInfo {
		return corruptf("frame too short for side information")
	}
	si := &s.si
	if err := parseSideInfo(h, frame[off:off+h.sideInfo], si); err != nil {
		return err
	}
	main := frame[off+h.sideInfo:]
	nch := h.channels
	ngr := 2
	if h.lsf {
		ngr = 1
	}
	// Assemble the main data: keep at most maxReservoir bytes of history.
	if s.mdLen > maxReservoir {
		copy(s.md[:], s.md[s.mdLen-maxReservoir:s.mdLen])
		s.mdLen = maxReservoir
	}
	silent := si.mainDataBegin > s.mdLen
	start := s.mdLen - si.mainDataBegin
	copy(s.md[s.mdLen:], main)
	s.mdLen += len(main)
	if !silent {
		total := 0
		for gr := 0; gr < ngr; gr++ {
			for ch := 0; ch < nch; ch++ {
				total += si.gr[gr][ch].part23
			}
		}
		if start*8+total > s.mdLen*8 {
			return corruptf("main data (%d bits) exceeds the frame and bit reservoir", total)
		}
	}
	pos := start * 8
	for gr := 0; gr < ngr; gr++ {
		var lim [2]int
		for ch := 0; ch < nch; ch++ {
			g := &si.gr[gr][ch]
			if silent {
				clear(s.xr[ch][:])
				lim[ch] = 0
				continue
			}
			br := bitReader{buf: s.md[:], pos: pos}
			end := pos + g.part23
			if h.lsf {
				s.readScalefactorsLSF(h, g, ch, &br)
			} else {
				s.readScalefactorsMPEG1(g, ch, gr, &br)
			}
			if br.pos > end {
				// Scalefactors overran part2_3_length: nothing left for the spectrum.
				br.pos = end
			}
			lim[ch] = s.huffman(h, g, ch, &br, end)
			pos = end
		}
		if nch == 2 && h.mode == modeJoint && h.modeExt != 0 {
			s.stereo(h, &si.gr[gr][1], &lim)
		}
		o := out[gr*576*outCh : (gr+1)*576*outCh]
		for ch := 0; ch < nch; ch++ {
			g := &si.gr[gr][ch]
			s.hybrid(h, g, ch, lim[ch])
			if nch == outCh {
				s.synth[ch].synthGranule(&s.sbOut, o, ch, outCh)
			} else {
				s.synth[ch].synthGranule(&s.sbOut, s.pcm[ch][:], 0, 1)
			}
		}
		if nch != outCh {
			convertChannels(&s.pcm, nch, o, outCh)
		}
	}
	return nil
}

// clamp limits v to [-1, 1] (NaN cannot occur: all inputs are finite).
func clamp(v float32) float32 {
	if v > 1 {
		return 1
	}
	if v < -1 {
		return -1
	}
	return v
}

// convertChannels writes a granule of a frame whose channel count differs
// from the stream's: a mono frame is duplicated, a stereo frame averaged.
func convertChannels(pcm *[2][576]float32, nch int, o []float32, outCh int) {
	if outCh == 2 && nch == 1 {
		o := (*[1152]float32)(o)
		for i, v := range &pcm[0] {
			o[2*i] = v
			o[2*i+1] = v
		}
		return
	}
	o1 := (*[576]float32)(o)
	for i := range o1 {
		o1[i] = clamp((pcm[0][i] + pcm[1][i]) * 0.5)
	}
}

func (s *layer3) readScalefactorsMPEG1(g *granInfo, ch, gr int, br *bitReader) {
	slen1 := uint(slen1Tab[g.sfCompress])
	slen2 := uint(slen2Tab[g.sfCompress])
	sfL := &s.sfL[ch]
	sfS := &s.sfS[ch]
	if g.blockType == 2 {
		b0 := 0
		if g.mixed {
			for b := 0; b < 8; b++ {
				sfL[b] = uint8(br.bits(slen1))
			}
			b0 = 3
		}
		for b := b0; b < 12; b++ {
			n := slen1
			if b >= 6 {
				n = slen2
			}
			for w := 0; w < 3; w++ {
				sfS[b][w] = uint8(br.bits(n))
			}
		}
		sfS[12] = [3]uint8{}
		return
	}
	groups := [5]int{0, 6, 11, 16, 21}
	for k := 0; k < 4; k++ {
		if gr == 1 && g.scfsi&(8>>k) != 0 {
			continue // reuse granule 0's scalefactors
		}
		n := slen1
		if k >= 2 {
			n = slen2
		}
		for b := groups[k]; b < groups[k+1]; b++ {
			sfL[b] = uint8(br.bits(n))
		}
	}
	sfL[21] = 0
}

func (s *layer3) readScalefactorsLSF(h *frameHeader, g *granInfo, ch int, br *bitReader) {
	var slen [4]int
	var tab int
	sfc := g.sfCompress
	isRight := ch == 1 && h.mode == modeJoint && h.modeExt&1 != 0
	if !isRight {
		switch {
		case sfc < 400:
			slen = [4]int{(sfc >> 4) / 5, (sfc >> 4) % 5, (sfc & 15) >> 2, sfc & 3}
			tab = 0
		case sfc < 500:
			sfc -= 400
			slen = [4]int{(sfc >> 2) / 5, (sfc >> 2) % 5, sfc & 3, 0}
			tab = 1
		default:
			sfc -= 500
			slen = [4]int{sfc / 3, sfc % 3, 0, 0}
			tab = 2
			g.preflag = true
		}
	} else {
		isc := sfc >> 1
		switch {
		case isc < 180:
			slen = [4]int{isc / 36, (isc % 36) / 6, (isc % 36) % 6, 0}
			tab = 3
		case isc < 244:
			isc -= 180
			slen = [4]int{(isc & 63) >> 4, (isc & 15) >> 2, isc & 3, 0}
			tab = 4
		default:
			isc -= 244
			slen = [4]int{isc / 3, isc % 3, 0, 0}
			tab = 5
		}
	}
	if sfc >= 500 && !isRight {
		g.preflag = true
	}
	var blk int
	switch {
	case g.blockType != 2:
		blk = 0
	case !g.mixed:
		blk = 1
	default:
		blk = 2
	}
	var vals, maxv [39]uint8
	n := 0
	for k := 0; k < 4; k++ {
		cnt := nrOfSfb[tab][blk][k]
		bits := uint(slen[k])
		mx := uint8(255)
		if bits > 0 {
			mx = uint8(1<<bits - 1)
		}
		for i := 0; i < cnt && n < 39; i++ {
			vals[n] = uint8(br.bits(bits))
			maxv[n] = mx
			n++
		}
	}
	sfL := &s.sfL[ch]
	sfS := &s.sfS[ch]
	switch blk {
	case 0:
		for b := 0; b < 21; b++ {
			sfL[b] = vals[b]
			s.isMaxL[b] = maxv[b]
		}
		sfL[21] = 0
		s.isMaxL[21] = s.isMaxL[20]
	case 1:
		for b := 0; b < 12; b++ {
			for w := 0; w < 3; w++ {
				sfS[b][w] = vals[3*b+w]
				s.isMaxS[b][w] = maxv[3*b+w]
			}
		}
		sfS[12] = [3]uint8{}
	default:
		for b := 0; b < 6; b++ {
			sfL[b] = vals[b]
			s.isMaxL[b] = maxv[b]
		}
		for b := 3; b < 12; b++ {
			for w := 0; w < 3; w++ {
				sfS[b][w] = vals[6+3*(b-3)+w]
				s.isMaxS[b][w] = maxv[6+3*(b-3)+w]
			}
		}
		sfS[12] = [3]uint8{}
	}
}

// huffman reads the spectrum of one granule/channel and dequantizes it into
// s.xr[ch]. It returns the index past the last decoded line (all lines from
// there on are zero).
func (s *layer3) huffman(h *frameHeader, g *granInfo, ch int, br *bitReader, end int) int {
	xr := &s.xr[ch]
	sr := h.srIndex
	// Band widths and gains in bitstream order.
	var widths [40]int
	var gains [40]float32
	nb := 0
	gg := g.globalGain - 210
	if h.mode == modeJoint && h.modeExt == 2 {
		gg -= 2 // M/S only: 1/sqrt(2) folded into the gain
	}
	shift := uint(1 + g.sfScale)
	sfL := &s.sfL[ch]
	for b := 0; b < g.longEnd; b++ {
		sf := int(sfL[b])
		if g.preflag {
			sf += pretab[b]
		}
		widths[nb] = sfbLong[sr][b+1] - sfbLong[sr][b]
		gains[nb] = gain4(gg - sf<<shift)
		nb++
	}
	if g.shortStart < 13 {
		sfS := &s.sfS[ch]
		for b := g.shortStart; b < 13; b++ {
			w := sfbShort[sr][b+1] - sfbShort[sr][b]
			for win := 0; win < 3; win++ {
				widths[nb] = w
				gains[nb] = gain4(gg - 8*g.subGain[win] - int(sfS[b][win])<<shift)
				nb++
			}
		}
	}

	bigEnd := g.bigValues * 2
	var r1, r2 int
	if !g.winSwitch {
		i1 := g.region0 + 1
		i2 := g.region0 + g.region1 + 2
		if i1 > 22 {
			i1 = 22
		}
		if i2 > 22 {
			i2 = 22
		}
		r1 = sfbLong[sr][i1]
		r2 = sfbLong[sr][i2]
	} else {
		if g.blockType == 2 {
			r1 = 3 * sfbShort[sr][3]
		} else {
			r1 = sfbLong[sr][8]
		}
		r2 = 576
	}
	if r1 > bigEnd {
		r1 = bigEnd
	}
	if r2 > bigEnd {
		r2 = bigEnd
	}

	buf := br.buf
	bp := br.pos >> 3
	var cache uint64
	var n uint
	// refill keeps at least 56 valid bits in cache.
	cache = binary.BigEndian.Uint64(buf[bp:bp+8]) << uint(br.pos&7)
	n = 64 - uint(br.pos&7)
	bp += 8
	// bit position = bp*8 - n

	i := 0
	band := 0
	bandEnd := widths[0]
	gain := gains[0]
	regionEnds := [3]int{r1, r2, bigEnd}
	for r := 0; r < 3; r++ {
		regEnd := regionEnds[r]
		if i >= regEnd {
			continue
		}
		t := &huffTables[g.tableSelect[r]]
		if t.zero {
			for ; i < regEnd; i++ {
				xr[i] = 0
			}
			for i >= bandEnd && band+1 < nb {
				band++
				bandEnd += widths[band]
				gain = gains[band]
			}
			continue
		}
		lut := t.lut
		pb := t.bits
		linbits := t.linbits
		for i < regEnd {
			for i >= bandEnd && band+1 < nb {
				band++
				bandEnd += widths[band]
				gain = gains[band]
			}
			stop := min(bandEnd, regEnd)
			for ; i < stop; i += 2 {
				if n < 56 {
					cache |= binary.BigEndian.Uint64(buf[bp:bp+8]) >> n
					bp += int(63-n) >> 3
					n |= 56
				}
				if bp*8-int(n) >= end {
					goto done
				}
				e := lut[cache>>(64-pb)]
				if e&(1<<31) != 0 {
					e = lut[(e>>8&0xfffff)+uint32((cache<<pb)>>(64-(e&31)))]
				}
				l := uint(e >> 8 & 31)
				cache <<= l
				n -= l
				x := int(e >> 4 & 15)
				y := int(e & 15)
				nzx := uint(e >> 13 & 1)
				nzy := uint(e >> 14 & 1)
				if linbits != 0 && (x == 15 || y == 15) {
					// worst case here: 2*(13+1) bits; at least 56-19 = 37 left,
					// refill before the second value if needed.
					if x == 15 {
						x += int(cache >> (64 - linbits))
						cache <<= linbits
						n -= linbits
					}
					sx := uint32(cache>>63) & uint32(nzx)
					cache <<= nzx
					n -= nzx
					xr[i] = math.Float32frombits(math.Float32bits(pow43[x]*gain) ^ sx<<31)
					if n < 32 {
						cache |= binary.BigEndian.Uint64(buf[bp:bp+8]) >> n
						bp += int(63-n) >> 3
						n |= 56
					}
					if y == 15 {
						y += int(cache >> (64 - linbits))
						cache <<= linbits
						n -= linbits
					}
					sy := uint32(cache>>63) & uint32(nzy)
					cache <<= nzy
					n -= nzy
					xr[i+1] = math.Float32frombits(math.Float32bits(pow43[y]*gain) ^ sy<<31)
					continue
				}
				sx := uint32(cache>>63) & uint32(nzx)
				cache <<= nzx
				sy := uint32(cache>>63) & uint32(nzy)
				cache <<= nzy
				n -= nzx + nzy
				xr[i] = math.Float32frombits(math.Float32bits(pow43[x]*gain) ^ sx<<31)
				xr[i+1] = math.Float32frombits(math.Float32bits(pow43[y]*gain) ^ sy<<31)
			}
		}
	}
	// count1 region: quadruples of values in {-1, 0, 1}.
	{
		t := &huffTables[32+g.count1Table]
		lut := t.lut
		pb := t.bits
		for i <= 572 {
			if n < 56 {
				cache |= binary.BigEndian.Uint64(buf[bp:bp+8]) >> n
				bp += int(63-n) >> 3
				n |= 56
			}
			if bp*8-int(n) >= end {
				break
			}
			e := lut[cache>>(64-pb)]
			if e&(1<<31) != 0 {
				e = lut[(e>>8&0xfffff)+uint32((cache<<pb)>>(64-(e&31)))]
			}
			l := uint(e >> 8 & 31)
			c2 := cache << l
			m := n - l
			var q [4]float32
			for k := 0; k < 4; k++ {
				for i+k >= bandEnd && band+1 < nb {
					band++
					bandEnd += widths[band]
					gain = gains[band]
				}
				bit := uint32(e>>(3-k)) & 1
				sg := uint32(c2>>63) & bit
				c2 <<= bit
				m -= uint(bit)
				q[k] = math.Float32frombits(math.Float32bits(gain)&-bit | sg<<31)
			}
			if bp*8-int(m) > end {
				break // the last quadruple overran part2_3_length: drop it
			}
			cache, n = c2, m
			xq := (*[4]float32)(xr[i : i+4])
			*xq = q
			i += 4
		}
	}
done:
	clear(xr[i:])
	return i
}

func gain4(q int) float32 {
	q += pow2qOff
	if q < 0 {
		return 0
	}
	if q >= len(pow2q) {
		q = len(pow2q) - 1
	}
	return pow2q[q]
}

const isqrt2 = 0.70710678118654752440

// stereo applies M/S and intensity stereo to s.xr (before reordering).
func (s *layer3) stereo(h *frameHeader, g1 *granInfo, lim *[2]int) {
	x0, x1 := &s.xr[0], &s.xr[1]
	ms := h.modeExt&2 != 0
	l := lim[0]
	if lim[1] > l {
		l = lim[1]
	}
	if h.modeExt&1 == 0 {
		if ms {
			a := x0[:l]
			b := x1[:len(a)]
			for i := range a {
				u, v := a[i], b[i]
				a[i] = u + v
				b[i] = u - v
			}
		}
		lim[0], lim[1] = l, l
		return
	}
	sr := h.srIndex
	lsf := h.lsf
	var ratios *[16][2]float32
	if lsf {
		ratios = &isRatioLSF[g1.sfCompress&1]
	}
	// process applies intensity stereo (ok) or M/S to x[pos:pos+w].
	process := func(pos, w int, sf, mx uint8) {
		a := x0[pos : pos+w]
		b := x1[pos : pos+w]
		illegal := sf >= 7
		if lsf {
			illegal = sf == mx
		}
		if !illegal {
			var kl, kr float32
			if lsf {
				kl, kr = ratios[sf&15][0], ratios[sf&15][1]
			} else {
				kl, kr = isRatioMPEG1[sf][0], isRatioMPEG1[sf][1]
			}
			for j := range a {
				v := a[j]
				a[j] = v * kl
				b[j] = v * kr
			}
			return
		}
		if ms {
			for j := range a {
				u, v := a[j], b[j]
				a[j] = (u + v) * isqrt2
				b[j] = (u - v) * isqrt2
			}
		}
	}
	msOnly := func(pos, w int) {
		if ms {
			a := x0[pos : pos+w]
			b := x1[pos : pos+w]
			for j := range a {
				u, v := a[j], b[j]
				a[j] = (u + v) * isqrt2
				b[j] = (u - v) * isqrt2
			}
		}
	}
	nonZero := func(pos, w int) bool {
		for _, v := range x1[pos : pos+w] {
			if v != 0 {
				return true
			}
		}
		return false
	}
	pos := 576
	var nzShort [3]bool
	for b := 12; b >= g1.shortStart; b-- {
		w := sfbShort[sr][b+1] - sfbShort[sr][b]
		k := b
		if b == 12 {
			k = 11
		}
		for win := 2; win >= 0; win-- {
			pos -= w
			if !nzShort[win] && nonZero(pos, w) {
				nzShort[win] = true
			}
			if nzShort[win] {
				msOnly(pos, w)
				continue
			}
			process(pos, w, s.sfS[1][k][win], s.isMaxS[k][win])
		}
	}
	nz := nzShort[0] || nzShort[1] || nzShort[2]
	for b := g1.longEnd - 1; b >= 0; b-- {
		w := sfbLong[sr][b+1] - sfbLong[sr][b]
		pos -= w
		if !nz && nonZero(pos, w) {
			nz = true
		}
		if nz {
			msOnly(pos, w)
			continue
		}
		k := b
		if b == 21 {
			k = 20
		}
		process(pos, w, s.sfL[1][k], s.isMaxL[k])
	}
	lim[0], lim[1] = 576, 576
}

// hybrid reorders short blocks, applies the alias reduction and the IMDCT
// of channel ch, leaving the subband samples in s.sbOut.
func (s *layer3) hybrid(h *frameHeader, g *granInfo, ch int, lim int) {
	xr := &s.xr[ch]
	nsb := (lim + 17) / 18
	longSb := 32 // subbands using the long transform
	if g.blockType == 2 {
		start := 0
		longSb = 0
		if g.mixed {
			start = sfbLong[h.srIndex][g.longEnd]
			longSb = start / 18
		}
		// reorder short bands into (line, window) interleaving
		sr := h.srIndex
		pos := start
		for b := g.shortStart; b < 13; b++ {
			w := sfbShort[sr][b+1] - sfbShort[sr][b]
			src := xr[pos : pos+3*w]
			dst := s.tmp[:3*w]
			for i := 0; i < w; i++ {
				dst[3*i] = src[i]
				dst[3*i+1] = src[w+i]
				dst[3*i+2] = src[2*w+i]
			}
			copy(src, dst)
			pos += 3 * w
		}
		for sb := 1; sb < longSb; sb++ {
			antialias(xr, sb)
		}
		nsb = 32
	} else {
		aa := nsb
		if aa > 31 {
			aa = 31
		}
		for sb := 1; sb <= aa; sb++ {
			antialias(xr, sb)
		}
		if nsb < 32 {
			nsb++
		}
	}
	ov := &s.overlap[ch]
	limit := nsb
	if s.ovLimit[ch] > limit {
		limit = s.ovLimit[ch]
	}
	for sb := 0; sb < 32; sb++ {
		out := (*[18]float32)(s.sbOut[sb*18 : sb*18+18])
		if sb >= limit {
			*out = [18]float32{}
			continue
		}
		o := &ov[sb]
		switch {
		case sb >= nsb:
			*out = *o
			*o = [18]float32{}
		case sb < longSb:
			bt := g.blockType
			if bt == 2 {
				bt = 0 // long part of a mixed block
			}
			imdct36((*[18]float32)(xr[sb*18:sb*18+18]), o, out, &imdctWin[bt])
		default:
			imdct12x3((*[18]float32)(xr[sb*18:sb*18+18]), o, out)
		}
		if sb&1 == 1 {
			for t := 1; t < 18; t += 2 {
				out[t] = -out[t]
			}
		}
	}
	s.ovLimit[ch] = nsb
}

func antialias(xr *[576]float32, sb int) {
	a := (*[8]float32)(xr[sb*18-8 : sb*18])
	b := (*[8]float32)(xr[sb*18 : sb*18+8])
	for i := 0; i < 8; i++ {
		u := a[7-i]
		v := b[i]
		a[7-i] = u*aaCs[i] - v*aaCa[i]
		b[i] = v*aaCs[i] + u*aaCa[i]
	}
}
