package audio

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
)

// Format is a container format foley reads.
type Format string

// The formats.
const (
	WAV  Format = "wav"  // RIFF/WAVE, RF64 and BW64
	FLAC Format = "flac" // native FLAC
	MP3  Format = "mp3"  // MPEG-1/2/2.5 Layer III
	Ogg  Format = "ogg"  // Ogg Vorbis
)

// sniffLen is how many leading bytes Detect looks at.
const sniffLen = 16

// Detect names the format of data that starts with head. For anything it
// does not read, the error describes the first bytes and, when it knows it,
// what the data looks like.
func Detect(head []byte) (Format, error) {
	switch {
	case len(head) >= 12 && (bytes.HasPrefix(head, []byte("RIFF")) || bytes.HasPrefix(head, []byte("RF64")) || bytes.HasPrefix(head, []byte("BW64"))) &&
		string(head[8:12]) == "WAVE":
		return WAV, nil
	case bytes.HasPrefix(head, []byte("fLaC")):
		return FLAC, nil
	case bytes.HasPrefix(head, []byte("OggS")):
		return Ogg, nil
	case isMP3Header(head):
		return MP3, nil
	}
	return "", fmt.Errorf("unknown audio format (first bytes: %s)%s", describeBytes(head), lookalike(head))
}

// isMP3Header reports whether head starts with an MPEG audio Layer III
// frame header.
func isMP3Header(h []byte) bool {
	if len(h) < 4 || h[0] != 0xFF || h[1]&0xE0 != 0xE0 {
		return false
	}
	version := (h[1] >> 3) & 3
	layer := (h[1] >> 1) & 3
	bitrate := h[2] >> 4
	rate := (h[2] >> 2) & 3
	return version != 1 && layer == 1 && bitrate != 15 && rate != 3
}

// lookalike names formats foley does not read, so that the error says more
// than bytes.
func lookalike(h []byte) string {
	has := func(off int, s string) bool { return len(h) >= off+len(s) && string(h[off:off+len(s)]) == s }
	name := ""
	switch {
	case len(h) == 0:
		return "; the file is empty"
	case has(0, "FORM") && (has(8, "AIFF") || has(8, "AIFC")):
		name = "AIFF"
	case has(4, "ftyp"):
		name = "MP4/M4A"
	case has(0, "caff"):
		name = "Core Audio (CAF)"
	case has(0, "MThd"):
		name = "MIDI (notes, not sound)"
	case has(0, "RIFF") && len(h) >= 12:
		name = "a RIFF file that is not WAVE (" + printable(h[8:12]) + ")"
	case has(0, "RIFF"), has(0, "RF64"), has(0, "BW64"):
		name = "a WAV file cut off inside its header"
	case len(h) >= 2 && h[0] == 0xFF && h[1]&0xF6 == 0xF0:
		name = "AAC in ADTS"
	case len(h) >= 2 && h[0] == 0xFF && h[1]&0xE0 == 0xE0 && (h[1]>>1)&3 != 0:
		name = fmt.Sprintf("MPEG audio Layer %s", [4]string{"", "III", "II", "I"}[(h[1]>>1)&3])
	case has(0, "%PDF"):
		name = "PDF"
	case has(0, "PK\x03\x04"):
		name = "a ZIP archive"
	case has(0, "\x89PNG"), has(0, "\xFF\xD8\xFF"):
		name = "an image"
	case has(0, "<"), has(0, "{"), has(0, "["):
		name = "text (HTML, XML or JSON)"
	}
	if name == "" {
		return ""
	}
	return "; it looks like " + name + ", which foley does not read"
}

// describeBytes shows bytes as hex and, beside it, as text.
func describeBytes(b []byte) string {
	if len(b) == 0 {
		return "none"
	}
	b = b[:min(len(b), sniffLen)]
	var hex strings.Builder
	for i, c := range b {
		if i > 0 {
			hex.WriteByte(' ')
		}
		fmt.Fprintf(&hex, "%02x", c)
	}
	return fmt.Sprintf("%s %q", hex.String(), printable(b))
}

func printable(b []byte) string {
	return strings.Map(func(r rune) rune {
		if r >= 0x20 && r < 0x7F {
			return r
		}
		return '.'
	}, string(b))
}

func (f Format) String() string { return string(f) }

// SniffFile reports whether the file at path holds audio foley reads, from
// its first bytes (past an ID3v2 tag), without decoding it.
func SniffFile(path string) (Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, sniffLen)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if skip := id3Size(head); skip > 0 {
		if _, err := f.Seek(skip, io.SeekStart); err != nil {
			return "", err
		}
		n, _ = io.ReadFull(f, head[:cap(head)])
		head = head[:n]
	}
	return Detect(head)
}
