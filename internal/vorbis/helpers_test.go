package vorbis

import (
	"encoding/binary"
)

// rawPage is an Ogg page as parsed by the tests.
type rawPage struct {
	offset  int
	flags   byte
	granule int64
	serial  uint32
	seq     uint32
	lacing  []byte
	body    []byte
}

// parsePages splits a valid Ogg file into pages.
func parsePages(data []byte) []rawPage {
	var pages []rawPage
	for off := 0; off+27 <= len(data); {
		h := data[off:]
		n := int(h[26])
		size := 0
		for _, l := range h[27 : 27+n] {
			size += int(l)
		}
		pages = append(pages, rawPage{
			offset:  off,
			flags:   h[5],
			granule: int64(binary.LittleEndian.Uint64(h[6:])),
			serial:  binary.LittleEndian.Uint32(h[14:]),
			seq:     binary.LittleEndian.Uint32(h[18:]),
			lacing:  append([]byte(nil), h[27:27+n]...),
			body:    append([]byte(nil), h[27+n:27+n+size]...),
		})
		off += 27 + n + size
	}
	return pages
}

// encode serializes a page with a correct CRC.
func (p rawPage) encode() []byte {
	b := make([]byte, 27+len(p.lacing)+len(p.body))
	copy(b, "OggS")
	b[5] = p.flags
	binary.LittleEndian.PutUint64(b[6:], uint64(p.granule))
	binary.LittleEndian.PutUint32(b[14:], p.serial)
	binary.LittleEndian.PutUint32(b[18:], p.seq)
	b[26] = byte(len(p.lacing))
	copy(b[27:], p.lacing)
	copy(b[27+len(p.lacing):], p.body)
	binary.LittleEndian.PutUint32(b[22:], oggCRC(0, b))
	return b
}

func joinPages(pages []rawPage) []byte {
	var out []byte
	for _, p := range pages {
		out = append(out, p.encode()...)
	}
	return out
}

// packetsToPages puts each packet on its own page (packets up to 255*255-1
// bytes), with the given granule for the audio pages.
func packetsToPages(serial uint32, packets [][]byte, granules []int64) []rawPage {
	var pages []rawPage
	for i, p := range packets {
		var lacing []byte
		n := len(p)
		for n >= 255 {
			lacing = append(lacing, 255)
			n -= 255
		}
		lacing = append(lacing, byte(n))
		pg := rawPage{serial: serial, seq: uint32(i), lacing: lacing, body: p, granule: granules[i]}
		if i == 0 {
			pg.flags = flagBOS
		}
		if i == len(packets)-1 {
			pg.flags |= flagEOS
		}
		pages = append(pages, pg)
	}
	return pages
}

// bitWriter writes LSB-first bit fields, as Vorbis packets are packed.
type bitWriter struct {
	buf  []byte
	nbit uint
}

func (w *bitWriter) write(v uint64, n uint) {
	for i := uint(0); i < n; i++ {
		if w.nbit%8 == 0 {
			w.buf = append(w.buf, 0)
		}
		if v>>i&1 != 0 {
			w.buf[len(w.buf)-1] |= 1 << (w.nbit % 8)
		}
		w.nbit++
	}
}

func identHeader(channels int, rate uint32, b0, b1 uint) []byte {
	p := []byte("\x01vorbis")
	p = binary.LittleEndian.AppendUint32(p, 0)
	p = append(p, byte(channels))
	p = binary.LittleEndian.AppendUint32(p, rate)
	p = append(p, make([]byte, 12)...)
	p = append(p, byte(b1<<4|b0), 1)
	return p
}

func commentHeader(vendor string, comments ...string) []byte {
	p := []byte("\x03vorbis")
	p = binary.LittleEndian.AppendUint32(p, uint32(len(vendor)))
	p = append(p, vendor...)
	p = binary.LittleEndian.AppendUint32(p, uint32(len(comments)))
	for _, c := range comments {
		p = binary.LittleEndian.AppendUint32(p, uint32(len(c)))
		p = append(p, c...)
	}
	return append(p, 1)
}
