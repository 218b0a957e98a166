package audio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"os"
	"strings"
	"testing"
	"unicode/utf16"
)

// id3Tag builds an ID3v2 tag of version 2, 3 or 4 from frames.
func id3Tag(version byte, flags byte, frames ...[]byte) []byte {
	body := bytes.Join(frames, nil)
	body = append(body, make([]byte, 10)...) // padding
	h := []byte{'I', 'D', '3', version, 0, flags, 0, 0, 0, 0}
	putSyncsafe(h[6:], len(body))
	return append(h, body...)
}

func putSyncsafe(b []byte, n int) {
	b[0], b[1], b[2], b[3] = byte(n>>21)&0x7F, byte(n>>14)&0x7F, byte(n>>7)&0x7F, byte(n)&0x7F
}

func id3Frame(version byte, id string, data []byte) []byte {
	switch version {
	case 2:
		return append([]byte{id[0], id[1], id[2], byte(len(data) >> 16), byte(len(data) >> 8), byte(len(data))}, data...)
	case 3:
		h := append([]byte(id), 0, 0, 0, 0, 0, 0)
		binary.BigEndian.PutUint32(h[4:], uint32(len(data)))
		return append(h, data...)
	default:
		h := append([]byte(id), 0, 0, 0, 0, 0, 0)
		putSyncsafe(h[4:], len(data))
		return append(h, data...)
	}
}

func utf16BOM(s string) []byte {
	b := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

func TestID3v2(t *testing.T) {
	v3 := id3Tag(3, 0,
		id3Frame(3, "TIT2", append([]byte{1}, utf16BOM("Porte qui claque")...)),
		id3Frame(3, "COMM", append(append([]byte{0}, "eng"...), "\x00Heavy oak door"...)),
		id3Frame(3, "TPE1", []byte("\x00Foley Team")),
		id3Frame(3, "APIC", make([]byte, 5000)),
		id3Frame(3, "TXXX", []byte("\x03LICENSE\x00CC-BY-4.0")),
		id3Frame(3, "WCOP", []byte("https://creativecommons.org/licenses/by/4.0/")),
		id3Frame(3, "TCON", []byte("\x00Foley\x00")),
	)
	v4 := id3Tag(4, 0,
		id3Frame(4, "TIT2", []byte("\x03Pluie sur le toit — été")),
		id3Frame(4, "TIT3", []byte("\x02"+string([]byte{0, 'R', 0, 'a', 0, 'i', 0, 'n'}))),
	)
	v2 := id3Tag(2, 0, id3Frame(2, "TT2", []byte("\x00Wind")), id3Frame(2, "COM", []byte("\x00eng\x00gusts")))
	// Unsynchronised v2.3: every 0xFF is followed by a 0x00 that must go.
	unsynced := id3Tag(3, 0x80, bytes.ReplaceAll(id3Frame(3, "TIT2", []byte("\x00\xff door")), []byte{0xFF}, []byte{0xFF, 0}))
	for _, tc := range []struct {
		name string
		tag  []byte
		want Metadata
	}{
		{"v2.3", v3, Metadata{Title: "Porte qui claque", Comment: "Heavy oak door", Artist: "Foley Team", License: "CC-BY-4.0", Genre: "Foley"}},
		{"v2.4", v4, Metadata{Title: "Pluie sur le toit — été", Description: "Rain"}},
		{"v2.2", v2, Metadata{Title: "Wind", Comment: "gusts"}},
		{"unsynchronised", unsynced, Metadata{Title: "ÿ door"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			br := bufio.NewReader(bytes.NewReader(append(tc.tag, "after"...)))
			m, err := readID3v2(br)
			if err != nil {
				t.Fatal(err)
			}
			tags := m.Tags
			m.Tags = nil
			if m.Title != tc.want.Title || m.Comment != tc.want.Comment || m.Artist != tc.want.Artist ||
				m.License != tc.want.License || m.Description != tc.want.Description || m.Genre != tc.want.Genre {
				t.Errorf("got %+v\nwant %+v", m, tc.want)
			}
			if rest, _ := br.Peek(5); string(rest) != "after" {
				t.Errorf("the tag was not consumed exactly: next bytes %q", rest)
			}
			if len(tags) == 0 {
				t.Error("no raw tags")
			}
		})
	}
	// WCOP is kept as a raw tag even when TXXX:LICENSE filled the field.
	m, _ := readID3v2(bufio.NewReader(bytes.NewReader(v3)))
	if !hasTag(m, "ID3:WCOP") || !hasTag(m, "ID3:TXXX:LICENSE") {
		t.Errorf("raw tags %+v", m.Tags)
	}
}

func TestID3v1(t *testing.T) {
	tail := make([]byte, 128)
	copy(tail, "TAG")
	copy(tail[3:], "Thunder clap")
	copy(tail[33:], "Storm Crew")
	copy(tail[97:], "distant")
	tail[126] = 5 // v1.1 track
	m := readID3v1(tail)
	if m.Title != "Thunder clap" || m.Artist != "Storm Crew" || m.Comment != "distant" {
		t.Errorf("%+v", m)
	}
	if readID3v1(make([]byte, 128)).Title != "" {
		t.Error("no TAG read as a tag")
	}
}

func TestDetect(t *testing.T) {
	for file, want := range map[string]Format{
		"wav_s16.wav": WAV, "wav_rf64.wav": WAV, "flac_s16.flac": FLAC, "mp3_id3.mp3": MP3, "ogg_vorbis.ogg": Ogg,
	} {
		data, err := os.ReadFile("testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		if n := id3Size(data); n > 0 {
			data = data[n:]
		}
		if got, err := Detect(data[:sniffLen]); err != nil || got != want {
			t.Errorf("%s: %v %v", file, got, err)
		}
	}
	for _, tc := range []struct {
		head []byte
		want string
	}{
		{nil, "the file is empty"},
		{[]byte("FORM\x00\x00\x10\x00AIFFCOMM"), "looks like AIFF"},
		{[]byte("\x00\x00\x00\x20ftypM4A "), "MP4/M4A"},
		{[]byte("\xFF\xF1\x50\x80"), "AAC in ADTS"},
		{[]byte("\xFF\xFD\x90\x00"), "MPEG audio Layer II"},
		{[]byte("RIFF\x00\x00\x00\x00AVI LIST"), "RIFF file that is not WAVE (AVI )"},
		{[]byte("<!DOCTYPE html>"), "text"},
		{[]byte{1, 2, 3, 0xFE}, `01 02 03 fe "...."`},
	} {
		_, err := Detect(tc.head)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "unknown audio format") {
			t.Errorf("%q: %v, want %q", tc.head, err, tc.want)
		}
	}
}

func TestOpenNamesFileAndIgnoresExtension(t *testing.T) {
	dir := t.TempDir()
	// A WAV file named .mp3 still decodes as WAV.
	data, _ := os.ReadFile("testdata/wav_s16.wav")
	os.WriteFile(dir+"/mislabelled.mp3", data, 0o644)
	d, err := Open(dir + "/mislabelled.mp3")
	if err != nil || d.Info().Format != WAV {
		t.Fatalf("mislabelled file: %v", err)
	}
	d.Close()
	_, err = Open("testdata/aiff.aiff")
	if err == nil || !strings.Contains(err.Error(), "testdata/aiff.aiff") || !strings.Contains(err.Error(), "AIFF") {
		t.Errorf("AIFF: %v", err)
	}
	if _, err := Open(dir + "/missing.wav"); err == nil {
		t.Error("missing file: no error")
	}
}

func TestSniffFile(t *testing.T) {
	for file, want := range map[string]Format{"wav_s16.wav": WAV, "mp3_id3.mp3": MP3, "flac_s16.flac": FLAC, "ogg_vorbis.ogg": Ogg} {
		if got, err := SniffFile("testdata/" + file); err != nil || got != want {
			t.Errorf("%s: %v %v", file, got, err)
		}
	}
	if _, err := SniffFile("testdata/make-fixtures.sh"); err == nil {
		t.Error("a shell script sniffed as audio")
	}
}
