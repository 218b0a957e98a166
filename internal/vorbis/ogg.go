package vorbis

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Ogg page layer: page parsing with CRC checks and packet reassembly for one
// logical stream.

const (
	flagContinued = 1
	flagBOS       = 2
	flagEOS       = 4

	maxPageSize   = 27 + 255 + 255*255
	maxPacketSize = 16 << 20
)

var crcTable = func() (t [8][256]uint32) {
	for i := 0; i < 256; i++ {
		r := uint32(i) << 24
		for j := 0; j < 8; j++ {
			if r&0x80000000 != 0 {
				r = r<<1 ^ 0x04c11db7
			} else {
				r <<= 1
			}
		}
		t[0][i] = r
	}
	for i := 0; i < 256; i++ {
		for k := 1; k < 8; k++ {
			t[k][i] = t[k-1][i]<<8 ^ t[0][t[k-1][i]>>24]
		}
	}
	return
}()

func oggCRC(crc uint32, p []byte) uint32 {
	for len(p) >= 8 {
		a := crc ^ binary.BigEndian.Uint32(p)
		b := binary.BigEndian.Uint32(p[4:])
		crc = crcTable[7][a>>24] ^ crcTable[6][a>>16&255] ^ crcTable[5][a>>8&255] ^ crcTable[4][a&255] ^
			crcTable[3][b>>24] ^ crcTable[2][b>>16&255] ^ crcTable[1][b>>8&255] ^ crcTable[0][b&255]
		p = p[8:]
	}
	for _, c := range p {
		crc = crc<<8 ^ crcTable[0][byte(crc>>24)^c]
	}
	return crc
}

type page struct {
	flags   byte
	granule int64
	serial  uint32
	seq     uint32
	lacing  []byte
	body    []byte
	offset  int64 // byte offset of the page in the input
	// truncated: the input ended inside the body; body holds what was
	// there, and the page is not CRC-checked.
	truncated bool
}

// packetRef is a complete packet waiting in the queue.
type packetRef struct {
	start, end int   // in oggReader.arena
	granule    int64 // granule of the page the packet ends on (-1: none)
	last       bool  // the last packet ending on that page
	eos        bool  // that page has the end-of-stream flag
	pageOffset int64
}

type oggReader struct {
	r      io.Reader
	offset int64 // bytes consumed from r
	hdr    [27 + 255]byte
	body   []byte

	serial  uint32
	nextSeq uint32
	started bool // first page of the selected stream seen

	arena    []byte
	queue    []packetRef
	head     int
	partial  int // start of an incomplete packet in arena, or -1
	done     bool
	doneErr  error // io.EOF or the error that ended the stream
	pages    int
	seenData bool // a page without the BOS flag has been read
}

func newOggReader(r io.Reader) *oggReader {
	return &oggReader{r: r, body: make([]byte, 255*255), partial: -1}
}

// readPage reads and checks the next page. At a clean end of input it
// returns io.EOF; inside a page, an error wrapping io.ErrUnexpectedEOF.
func (o *oggReader) readPage(pg *page) error {
	off := o.offset
	n, err := io.ReadFull(o.r, o.hdr[:27])
	o.offset += int64(n)
	if err != nil {
		if err == io.EOF {
			return io.EOF
		}
		if err == io.ErrUnexpectedEOF {
			return fmt.Errorf("ogg: input ends inside the page at byte offset %d: %w", off, io.ErrUnexpectedEOF)
		}
		return fmt.Errorf("ogg: reading page at byte offset %d: %w", off, err)
	}
	h := o.hdr[:27]
	if string(h[:4]) != "OggS" {
		return fmt.Errorf("ogg: no page capture pattern at byte offset %d", off)
	}
	if h[4] != 0 {
		return fmt.Errorf("ogg: page at byte offset %d: unsupported version %d", off, h[4])
	}
	nseg := int(h[26])
	n, err = io.ReadFull(o.r, o.hdr[27:27+nseg])
	o.offset += int64(n)
	if err != nil {
		return o.shortPage(off, err)
	}
	size := 0
	for _, l := range o.hdr[27 : 27+nseg] {
		size += int(l)
	}
	n, err = io.ReadFull(o.r, o.body[:size])
	o.offset += int64(n)
	if err != nil {
		// The packets that are complete in what is there can still be
		// decoded (without a CRC check): see addPage.
		pg.flags = h[5]
		pg.granule = -1
		pg.serial = binary.LittleEndian.Uint32(h[14:])
		pg.seq = binary.LittleEndian.Uint32(h[18:])
		pg.lacing = o.hdr[27 : 27+nseg]
		pg.body = o.body[:n]
		pg.offset = off
		pg.truncated = true
		return o.shortPage(off, err)
	}
	want := binary.LittleEndian.Uint32(h[22:])
	h[22], h[23], h[24], h[25] = 0, 0, 0, 0
	crc := oggCRC(0, o.hdr[:27+nseg])
	crc = oggCRC(crc, o.body[:size])
	if crc != want {
		return fmt.Errorf("ogg: page at byte offset %d: CRC mismatch (stored %08x, computed %08x)", off, want, crc)
	}
	pg.flags = h[5]
	pg.granule = int64(binary.LittleEndian.Uint64(h[6:]))
	pg.serial = binary.LittleEndian.Uint32(h[14:])
	pg.seq = binary.LittleEndian.Uint32(h[18:])
	pg.lacing = o.hdr[27 : 27+nseg]
	pg.body = o.body[:size]
	pg.offset = off
	pg.truncated = false
	o.pages++
	return nil
}

func (o *oggReader) shortPage(off int64, err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("ogg: input ends inside the page at byte offset %d: %w", off, io.ErrUnexpectedEOF)
	}
	return fmt.Errorf("ogg: reading page at byte offset %d: %w", off, err)
}

// addPage splits a page of the selected stream into packets.
func (o *oggReader) addPage(pg *page) error {
	if o.started && pg.seq != o.nextSeq {
		return fmt.Errorf("ogg: page at byte offset %d: sequence number %d, expected %d (missing pages)", pg.offset, pg.seq, o.nextSeq)
	}
	o.started = true
	o.nextSeq = pg.seq + 1
	cont := pg.flags&flagContinued != 0
	if cont && o.partial < 0 {
		return fmt.Errorf("ogg: page at byte offset %d continues a packet that was never started", pg.offset)
	}
	if !cont && o.partial >= 0 {
		return fmt.Errorf("ogg: page at byte offset %d does not continue the unfinished packet before it", pg.offset)
	}
	body := pg.body
	first := len(o.queue)
	pos, segStart := 0, 0
	for _, l := range pg.lacing {
		pos += int(l)
		if pos > len(body) {
			// Truncated page: the rest is missing.
			return nil
		}
		if l == 255 {
			continue
		}
		// A packet ends here.
		start := len(o.arena)
		if o.partial >= 0 {
			start = o.partial
			o.partial = -1
		}
		if start+maxPacketSize < len(o.arena)+pos-segStart {
			return fmt.Errorf("ogg: packet ending on the page at byte offset %d is larger than %d bytes", pg.offset, maxPacketSize)
		}
		o.arena = append(o.arena, body[segStart:pos]...)
		segStart = pos
		o.queue = append(o.queue, packetRef{start: start, end: len(o.arena), granule: -1, pageOffset: pg.offset})
	}
	if segStart < pos {
		// The last packet continues on the next page.
		if o.partial < 0 {
			o.partial = len(o.arena)
		}
		if o.partial+maxPacketSize < len(o.arena)+pos-segStart {
			return fmt.Errorf("ogg: packet continuing from the page at byte offset %d is larger than %d bytes", pg.offset, maxPacketSize)
		}
		o.arena = append(o.arena, body[segStart:pos]...)
	}
	if len(o.queue) > first {
		q := &o.queue[len(o.queue)-1]
		q.granule = pg.granule
		q.last = true
	}
	if pg.flags&flagEOS != 0 {
		for i := first; i < len(o.queue); i++ {
			o.queue[i].eos = true
			o.queue[i].granule = pg.granule
		}
		o.done = true
		o.doneErr = io.EOF
		if o.partial >= 0 {
			o.doneErr = fmt.Errorf("ogg: stream ends (page at byte offset %d) inside a packet: %w", pg.offset, io.ErrUnexpectedEOF)
		}
	}
	return nil
}

// fill reads pages until the queue holds more than have packets or the
// stream ends. It returns false when no more packets will come (o.doneErr
// says why).
func (o *oggReader) fill(have int) bool {
	var pg page
	for len(o.queue)-o.head <= have {
		if o.done {
			return false
		}
		if o.head == len(o.queue) {
			o.compact()
		}
		err := o.readPage(&pg)
		if err != nil {
			if pg.truncated && pg.serial == o.serial && o.started {
				// Queue the complete packets of what is there. Any
				// error in them is superseded by the truncation.
				o.addPage(&pg)
			}
			o.done = true
			if err == io.EOF {
				err = fmt.Errorf("ogg: input ends at byte offset %d without an end-of-stream page: %w", o.offset, io.ErrUnexpectedEOF)
			}
			o.doneErr = err
			return len(o.queue)-o.head > have
		}
		if pg.flags&flagBOS == 0 {
			o.seenData = true
		}
		if pg.serial != o.serial {
			if pg.flags&flagBOS != 0 && o.seenData {
				// A new chained stream starts: ours has ended.
				o.done = true
				o.doneErr = io.EOF
				if o.partial >= 0 {
					o.doneErr = fmt.Errorf("ogg: stream ends (page at byte offset %d) inside a packet: %w", pg.offset, io.ErrUnexpectedEOF)
				}
				return len(o.queue)-o.head > have
			}
			continue // a multiplexed stream we don't decode
		}
		if err := o.addPage(&pg); err != nil {
			o.done = true
			o.doneErr = err
			return len(o.queue)-o.head > have
		}
	}
	return true
}

// compact drops consumed packets from the arena.
func (o *oggReader) compact() {
	o.queue = o.queue[:0]
	o.head = 0
	if o.partial >= 0 {
		n := copy(o.arena, o.arena[o.partial:])
		o.arena = o.arena[:n]
		o.partial = 0
	} else {
		o.arena = o.arena[:0]
	}
}

// next returns the next packet, or false at the end of the stream.
func (o *oggReader) next() (packetRef, []byte, bool) {
	if o.head == len(o.queue) && !o.fill(0) {
		return packetRef{}, nil, false
	}
	p := o.queue[o.head]
	o.head++
	return p, o.arena[p.start:p.end], true
}

// peek returns the i-th packet after the current one without consuming it.
func (o *oggReader) peek(i int) (packetRef, []byte, bool) {
	if o.head+i >= len(o.queue) && !o.fill(i) {
		return packetRef{}, nil, false
	}
	p := o.queue[o.head+i]
	return p, o.arena[p.start:p.end], true
}

var errNotOgg = errors.New("ogg: input is not an Ogg stream")

// codecName names the codec whose first header packet is p.
func codecName(p []byte) string {
	s := string(p)
	has := func(prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }
	switch {
	case has("\x01vorbis"):
		return "Vorbis"
	case has("OpusHead"):
		return "Opus"
	case has("Speex   "):
		return "Speex"
	case has("\x7fFLAC"), has("fLaC"):
		return "FLAC"
	case has("\x80theora"):
		return "Theora"
	case has("fishead\x00"):
		return "Skeleton"
	case has("\x80kate"):
		return "Kate"
	case has("CELT    "):
		return "CELT"
	case has("PCM     "):
		return "PCM"
	case has("OVP80"):
		return "VP8"
	case has("\x80daala"):
		return "Daala"
	case has("BBCD\x00"):
		return "Dirac"
	case has("Annodex"):
		return "Annodex"
	case has("\x01video\x00\x00\x00"), has("\x01audio\x00\x00\x00"), has("\x01text\x00\x00\x00\x00"):
		return "OGM"
	case has("\x8bJNG"), has("\x8bMNG"), has("\x8bPNG"):
		return "image"
	}
	return "an unknown codec"
}

// selectStream reads the beginning-of-stream pages and selects the first
// Vorbis stream. The packets of the selected stream are queued.
func (o *oggReader) selectStream() error {
	var pg page
	firstCodec := ""
	for {
		err := o.readPage(&pg)
		if err != nil {
			if o.pages == 0 {
				if o.offset == 0 {
					return errors.New("ogg: empty input")
				}
				if o.offset < 4 || string(o.hdr[:4]) != "OggS" {
					return errNotOgg
				}
			}
			if firstCodec != "" && firstCodec != "Skeleton" {
				return fmt.Errorf("ogg: Ogg stream holds %s, not Vorbis", firstCodec)
			}
			if err == io.EOF {
				err = fmt.Errorf("ogg: input ends at byte offset %d before a Vorbis stream starts: %w", o.offset, io.ErrUnexpectedEOF)
			}
			return err
		}
		if pg.flags&flagBOS == 0 {
			break
		}
		// The first packet of a BOS page identifies the codec.
		n := 0
		for _, l := range pg.lacing {
			n += int(l)
			if l < 255 {
				break
			}
		}
		name := codecName(pg.body[:n])
		if name == "Vorbis" {
			o.serial = pg.serial
			return o.addPage(&pg)
		}
		if firstCodec == "" || firstCodec == "Skeleton" {
			firstCodec = name
		}
	}
	if firstCodec == "" {
		return errors.New("ogg: the first page (byte offset 0) does not begin a logical stream")
	}
	if firstCodec == "Skeleton" {
		return errors.New("ogg: Ogg stream holds no Vorbis stream")
	}
	return fmt.Errorf("ogg: Ogg stream holds %s, not Vorbis", firstCodec)
}
