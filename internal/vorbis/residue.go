package vorbis

import (
	"encoding/binary"
	"errors"
)

var errNoValues = errors.New("residue book has no vector values")

// decodeResidue decodes residue r for the channels in vecs (each of length n,
// zeroed) and adds it to them. dnd[i] marks vectors not to decode. It returns
// errEOP if the packet ended (what was decoded so far stays).
func (d *Decoder) decodeResidue(br *bitReader, r *residueConf, vecs [][]float32, dnd []bool, n int) error {
	if r.typ == 2 {
		any := false
		for _, x := range dnd {
			if !x {
				any = true
				break
			}
		}
		if !any {
			return nil
		}
		ch := len(vecs)
		if ch == 1 {
			return d.decodeResidueVecs(br, r, vecs, dnd[:1], n, 1)
		}
		if ch == 2 && r.evenDims && r.partitionSize%2 == 0 && r.begin%2 == 0 {
			// Every vector covers whole (left, right) pairs: decode
			// straight into the two channels.
			f := [1]bool{false}
			return d.decodeResidueVecs(br, r, vecs, f[:], 2*n, 2)
		}
		buf := d.interleaved[:n*ch]
		clear(buf)
		one := [1][]float32{buf}
		f := [1]bool{false}
		err := d.decodeResidueVecs(br, r, one[:], f[:], n*ch, 1)
		// De-interleave.
		if ch == 2 {
			a, b := vecs[0][:n], vecs[1][:n]
			buf = buf[:2*n]
			for i := range a {
				a[i] = buf[2*i]
				b[i] = buf[2*i+1]
			}
		} else {
			for c, v := range vecs {
				v = v[:n]
				for i := range v {
					v[i] = buf[i*ch+c]
				}
			}
		}
		return err
	}
	return d.decodeResidueVecs(br, r, vecs, dnd, n, r.typ)
}

// decodeResidueVecs is the common residue decode: format 0 (interleaved
// within a partition) or format 1 (contiguous).
func (d *Decoder) decodeResidueVecs(br *bitReader, r *residueConf, vecs [][]float32, dnd []bool, n int, format int) error {
	begin, end := r.begin, r.end
	if begin > n {
		begin = n
	}
	if end > n {
		end = n
	}
	psize := r.partitionSize
	parts := (end - begin) / psize
	if parts <= 0 {
		return nil
	}
	cbook := d.books[r.classBook]
	cpc := cbook.dims
	ncls := r.classifications
	ch := len(vecs)
	stereo := format == 2
	if stereo {
		ch = 1
	}
	if cap(d.classes) < ch*parts {
		d.classes = make([]uint8, ch*parts)
	}
	classes := d.classes[:ch*parts]
	passes := r.maxPass
	if passes == 0 {
		passes = 1 // pass 0 still reads the classifications
	}
	for pass := 0; pass < passes; pass++ {
		for pc := 0; pc < parts; {
			if pass == 0 {
				k := cpc
				if k > parts-pc {
					k = parts - pc
				}
				for j := 0; j < ch; j++ {
					if dnd[j] {
						continue
					}
					t := cbook.decode(br)
					if br.pastEnd() {
						return errEOP
					}
					if t < 0 {
						return errBadCodeword
					}
					if ncls == 1 {
						t = 0
					} else {
						for s := cpc - k; s > 0 && t > 0; s-- {
							t /= ncls
						}
					}
					cl := classes[j*parts+pc : j*parts+pc+k]
					for i := k - 1; i >= 0; i-- {
						cl[i] = uint8(t % ncls)
						t /= ncls
					}
				}
			}
			for i := 0; i < cpc && pc < parts; i++ {
				off := begin + pc*psize
				for j := 0; j < ch; j++ {
					if dnd[j] {
						continue
					}
					b := r.books[classes[j*parts+pc]][pass]
					if b < 0 {
						continue
					}
					book := d.books[b]
					if book.values == nil {
						return errNoValues
					}
					var err error
					switch format {
					case 0:
						err = decodePartition0(br, book, vecs[j][off:off+psize])
					case 1:
						err = decodePartition1(br, book, vecs[j][off:off+psize])
					default:
						err = decodePartitionStereo(br, book, vecs[0][off/2:off/2+psize/2], vecs[1][off/2:off/2+psize/2])
					}
					if err != nil {
						return err
					}
				}
				pc++
			}
		}
	}
	return nil
}

var errEOP = errors.New("end of packet")

// decodePartition0 adds one format 0 partition to v.
func decodePartition0(br *bitReader, c *codebook, v []float32) error {
	dims := c.dims
	step := len(v) / dims
	for i := 0; i < step; i++ {
		e := c.decode(br)
		if br.pastEnd() {
			return errEOP
		}
		if e < 0 {
			return errBadCodeword
		}
		vals := c.values[e*dims : e*dims+dims]
		for j, x := range vals {
			v[i+j*step] += x
		}
	}
	return nil
}

// decodePartition1 adds one format 1 partition to v.
func decodePartition1(br *bitReader, c *codebook, v []float32) error {
	dims := c.dims
	nvec := (len(v) + dims - 1) / dims
	if br.left() >= nvec*c.maxLen && len(v)%dims == 0 {
		// The packet can't end inside this partition.
		return decodePartition1Fast(br, c, v)
	}
	for i := 0; i < len(v); {
		e := c.decode(br)
		if br.pastEnd() {
			return errEOP
		}
		if e < 0 {
			return errBadCodeword
		}
		vals := c.values[e*dims : e*dims+dims]
		if len(vals) > len(v)-i {
			vals = vals[:len(v)-i]
		}
		w := v[i : i+len(vals)]
		for j, x := range vals {
			w[j] += x
		}
		i += len(vals)
	}
	return nil
}

// decodePartition1Fast is decodePartition1 for a partition that is a
// multiple of the dimensions and ends before the packet does.
func decodePartition1Fast(br *bitReader, c *codebook, v []float32) error {
	dims := c.dims
	bits, n, pos, data := br.bits, br.n, br.pos, br.data
	fast, mask, values := c.fast, c.fastMask, c.values
	var err error
	for i := 0; i+dims <= len(v); i += dims {
		if n < 32 {
			if pos+8 <= len(data) {
				bits |= binary.LittleEndian.Uint64(data[pos:]) << n
				pos += int((63 - n) >> 3)
				n |= 56
			} else {
				br.bits, br.n, br.pos = bits, n, pos
				br.refillSlow()
				bits, n, pos = br.bits, br.n, br.pos
			}
		}
		e := fast[bits&mask]
		l := uint(e & 63)
		if l == 0 {
			var ent uint32
			ent, l = c.decodeSlow(bits)
			if l == 0 {
				err = errBadCodeword
				break
			}
			e = ent << 6
		}
		bits >>= l
		n -= l
		off := int(e>>6) * dims
		switch dims {
		case 2:
			w := v[i : i+2 : i+2]
			x := values[off : off+2 : off+2]
			w[0] += x[0]
			w[1] += x[1]
		case 4:
			w := v[i : i+4 : i+4]
			x := values[off : off+4 : off+4]
			w[0] += x[0]
			w[1] += x[1]
			w[2] += x[2]
			w[3] += x[3]
		default:
			w := v[i : i+dims]
			x := values[off : off+dims]
			for j, xv := range x {
				w[j] += xv
			}
		}
	}
	br.bits, br.n, br.pos = bits, n, pos
	return err
}

// decodePartitionStereo adds one partition of an interleaved stereo residue
// (type 2, format 1) to the left and right channels. The codebook has an
// even number of dimensions.
func decodePartitionStereo(br *bitReader, c *codebook, l, r []float32) error {
	dims := c.dims
	nvec := (2*len(l) + dims - 1) / dims
	r = r[:len(l)]
	if br.left() >= nvec*c.maxLen && (2*len(l))%dims == 0 {
		return decodePartitionStereoFast(br, c, l, r)
	}
	for i := 0; i < len(l); {
		e := c.decode(br)
		if br.pastEnd() {
			return errEOP
		}
		if e < 0 {
			return errBadCodeword
		}
		vals := c.values[e*dims : e*dims+dims]
		for j := 0; j+1 < len(vals) && i < len(l); j += 2 {
			l[i] += vals[j]
			r[i] += vals[j+1]
			i++
		}
	}
	return nil
}

func decodePartitionStereoFast(br *bitReader, c *codebook, l, r []float32) error {
	dims := c.dims
	half := dims / 2
	bits, n, pos, data := br.bits, br.n, br.pos, br.data
	fast, mask, values := c.fast, c.fastMask, c.values
	var err error
	for i := 0; i+half <= len(l); i += half {
		if n < 32 {
			if pos+8 <= len(data) {
				bits |= binary.LittleEndian.Uint64(data[pos:]) << n
				pos += int((63 - n) >> 3)
				n |= 56
			} else {
				br.bits, br.n, br.pos = bits, n, pos
				br.refillSlow()
				bits, n, pos = br.bits, br.n, br.pos
			}
		}
		e := fast[bits&mask]
		ln := uint(e & 63)
		if ln == 0 {
			var ent uint32
			ent, ln = c.decodeSlow(bits)
			if ln == 0 {
				err = errBadCodeword
				break
			}
			e = ent << 6
		}
		bits >>= ln
		n -= ln
		off := int(e>>6) * dims
		switch dims {
		case 2:
			x := values[off : off+2 : off+2]
			l[i] += x[0]
			r[i] += x[1]
		case 4:
			x := values[off : off+4 : off+4]
			wl := l[i : i+2 : i+2]
			wr := r[i : i+2 : i+2]
			wl[0] += x[0]
			wr[0] += x[1]
			wl[1] += x[2]
			wr[1] += x[3]
		default:
			x := values[off : off+dims]
			wl := l[i : i+half]
			wr := r[i : i+half]
			for j := range wl {
				wl[j] += x[2*j]
				wr[j] += x[2*j+1]
			}
		}
	}
	br.bits, br.n, br.pos = bits, n, pos
	return err
}
