package audio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
)

// maxID3Frame bounds the ID3 frames read into memory; bigger frames
// (pictures, mostly) are skipped without being read.
const maxID3Frame = 256 << 10

// id3Fields maps ID3 frame ids (v2.3/2.4 and v2.2) to Metadata fields.
var id3Fields = map[string]string{
	"TIT2": "title", "TT2": "title",
	"TIT3": "description", "TT3": "description",
	"COMM": "comment", "COM": "comment",
	"TPE1": "artist", "TP1": "artist",
	"TCON": "genre", "TCO": "genre",
	"TCOP": "copyright", "TCR": "copyright",
	"WCOP": "license", "WCP": "license",
}

// id3Size reports the whole length of the ID3v2 tag that head starts
// with, or 0 when it does not start with one.
func id3Size(head []byte) int64 {
	if len(head) < 10 || string(head[:3]) != "ID3" || head[3] < 2 || head[3] > 4 {
		return 0
	}
	size := int64(syncsafe(head[6:10]))
	if head[5]&0x10 != 0 {
		size += 10 // footer
	}
	return 10 + size
}

func syncsafe(b []byte) uint32 {
	return uint32(b[0]&0x7F)<<21 | uint32(b[1]&0x7F)<<14 | uint32(b[2]&0x7F)<<7 | uint32(b[3]&0x7F)
}

// readID3v2 consumes the ID3v2 tag at the start of br and returns its text
// frames. Only the bytes of the frames it keeps are held in memory.
func readID3v2(br *bufio.Reader) (Metadata, error) {
	var m Metadata
	head, err := br.Peek(10)
	if err != nil {
		return m, fmt.Errorf("id3: reading the tag header: %w", eofAsTruncation(err))
	}
	total := id3Size(head)
	if total == 0 {
		return m, errors.New("id3: not an ID3v2 tag")
	}
	version, flags := head[3], head[5]
	br.Discard(10)
	body := &io.LimitedReader{R: br, N: total - 10}
	defer func() { io.Copy(io.Discard, body) }() // whatever is left of the tag
	var r io.Reader = body
	if flags&0x80 != 0 && version < 4 {
		r = &unsyncReader{r: bufio.NewReader(body)}
	}
	fr := bufio.NewReader(r)
	if flags&0x40 != 0 && version >= 3 { // extended header
		var b [4]byte
		if _, err := io.ReadFull(fr, b[:]); err != nil {
			return m, nil
		}
		n := int64(binary.BigEndian.Uint32(b[:]))
		if version == 4 {
			n = int64(syncsafe(b[:])) - 4
		}
		if _, err := fr.Discard(int(min(n, 1<<28))); err != nil {
			return m, nil
		}
	}
	idLen, hdrLen := 4, 10
	if version == 2 {
		idLen, hdrLen = 3, 6
	}
	hdr := make([]byte, hdrLen)
	for {
		if _, err := io.ReadFull(fr, hdr); err != nil || hdr[0] == 0 {
			return m, nil // the end of the frames, or padding
		}
		id := string(hdr[:idLen])
		var size int64
		var fflags uint16
		switch version {
		case 2:
			size = int64(hdr[3])<<16 | int64(hdr[4])<<8 | int64(hdr[5])
		case 3:
			size = int64(binary.BigEndian.Uint32(hdr[4:]))
			fflags = binary.BigEndian.Uint16(hdr[8:])
		default:
			size = int64(syncsafe(hdr[4:]))
			fflags = binary.BigEndian.Uint16(hdr[8:])
		}
		field, wanted := id3Fields[id]
		if !wanted && id != "TXXX" && id != "TXX" {
			if _, err := fr.Discard(int(min(size, 1<<28))); err != nil {
				return m, nil
			}
			continue
		}
		if size > maxID3Frame || skippedFrame(version, fflags) {
			fr.Discard(int(min(size, 1<<28)))
			continue
		}
		data := make([]byte, 0, min(size, 4096))
		data, err := readN(fr, data, int(size))
		if err != nil {
			return m, nil // a truncated tag: keep what was read
		}
		if version == 4 {
			if fflags&0x0002 != 0 {
				data = unsync(data)
			}
			if fflags&0x0001 != 0 && len(data) >= 4 {
				data = data[4:] // data length indicator
			}
		}
		key := "ID3:" + printable([]byte(id))
		switch {
		case id == "TXXX" || id == "TXX":
			desc, value := id3Pair(data)
			k := strings.ToUpper(desc)
			m.add(key+":"+desc, vorbisFields[k], value)
		case id[0] == 'T':
			m.add(key, field, id3Text(data))
		case id[0] == 'W':
			m.add(key, field, string(data))
		case id == "COMM" || id == "COM":
			if len(data) > 4 {
				_, text := id3Pair(append(data[:1:1], data[4:]...)) // skip the language
				m.add(key, field, text)
			}
		}
	}
}

// skippedFrame reports frames foley does not decode: compressed or
// encrypted ones.
func skippedFrame(version byte, flags uint16) bool {
	switch version {
	case 3:
		return flags&0x00C0 != 0
	case 4:
		return flags&0x000C != 0
	}
	return false
}

// readN appends n bytes from r to b, growing it only as bytes arrive.
func readN(r io.Reader, b []byte, n int) ([]byte, error) {
	for len(b) < n {
		chunk := min(n-len(b), 64<<10)
		start := len(b)
		b = append(b, make([]byte, chunk)...)
		if _, err := io.ReadFull(r, b[start:]); err != nil {
			return b[:start], eofAsTruncation(err)
		}
	}
	return b, nil
}

// id3Text decodes a text frame: an encoding byte, then the text.
func id3Text(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	return id3Decode(data[0], data[1:])
}

// id3Pair decodes an encoding byte, a terminated string and a string (the
// shape of TXXX and COMM).
func id3Pair(data []byte) (first, second string) {
	if len(data) == 0 {
		return "", ""
	}
	enc, rest := data[0], data[1:]
	term := []byte{0}
	if enc == 1 || enc == 2 {
		term = []byte{0, 0}
	}
	i := 0
	for {
		j := bytes.Index(rest[i:], term)
		if j < 0 {
			return id3Decode(enc, rest), ""
		}
		i += j
		if len(term) == 1 || i%2 == 0 {
			break
		}
		i++ // a UTF-16 terminator must be aligned
	}
	return id3Decode(enc, rest[:i]), id3Decode(enc, rest[i+len(term):])
}

// id3Decode reads text in an ID3 encoding: 0 Latin-1, 1 UTF-16 with a byte
// order mark, 2 UTF-16BE, 3 UTF-8.
func id3Decode(enc byte, b []byte) string {
	switch enc {
	case 1, 2:
		big := enc == 2
		if len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE {
			big, b = false, b[2:]
		} else if len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF {
			big, b = true, b[2:]
		}
		u := make([]uint16, len(b)/2)
		for i := range u {
			if big {
				u[i] = binary.BigEndian.Uint16(b[2*i:])
			} else {
				u[i] = binary.LittleEndian.Uint16(b[2*i:])
			}
		}
		return string(utf16.Decode(u))
	case 3:
		return strings.ToValidUTF8(string(b), "\uFFFD")
	default:
		r := make([]rune, len(b))
		for i, c := range b {
			r[i] = rune(c)
		}
		return string(r)
	}
}

// unsync undoes ID3 unsynchronisation: every 0xFF 0x00 becomes 0xFF.
func unsync(b []byte) []byte {
	out := b[:0]
	for i := 0; i < len(b); i++ {
		out = append(out, b[i])
		if b[i] == 0xFF && i+1 < len(b) && b[i+1] == 0 {
			i++
		}
	}
	return out
}

// unsyncReader undoes unsynchronisation on a stream.
type unsyncReader struct {
	r    *bufio.Reader
	last byte
}

func (u *unsyncReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c, err := u.r.ReadByte()
		if err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		if u.last == 0xFF && c == 0 {
			u.last = 0
			continue
		}
		u.last = c
		p[n] = c
		n++
		if u.r.Buffered() == 0 {
			break
		}
	}
	return n, nil
}

// readID3v1 reads the 128-byte ID3v1 tag at the end of a file, if any.
func readID3v1(tail []byte) Metadata {
	var m Metadata
	if len(tail) != 128 || string(tail[:3]) != "TAG" {
		return m
	}
	latin := func(b []byte) string { return id3Decode(0, b) }
	m.add("ID3v1:title", "title", latin(tail[3:33]))
	m.add("ID3v1:artist", "artist", latin(tail[33:63]))
	comment := tail[97:127]
	if comment[28] == 0 && comment[29] != 0 { // ID3v1.1: the last byte is a track number
		comment = comment[:28]
	}
	m.add("ID3v1:comment", "comment", latin(comment))
	return m
}
