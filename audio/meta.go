package audio

import (
	"strings"
	"unicode/utf8"
)

// Metadata is the descriptive text a file carries, gathered from WAV bext
// and LIST/INFO chunks, ID3 tags and Vorbis comments. Ingest uses it for
// captions, tags and licences.
type Metadata struct {
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Comment     string `json:"comment,omitempty"`
	Keywords    string `json:"keywords,omitempty"`
	Artist      string `json:"artist,omitempty"`
	Genre       string `json:"genre,omitempty"`
	Copyright   string `json:"copyright,omitempty"`
	License     string `json:"license,omitempty"`
	// Tags holds every tag as read, in file order, keyed by where it came
	// from: "INFO:INAM", "BEXT:Description", "ID3:TIT2", "VORBIS:TITLE".
	Tags []Tag `json:"tags,omitempty"`
}

// Tag is one metadata field as the file holds it.
type Tag struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// IsZero reports whether m holds nothing.
func (m Metadata) IsZero() bool { return len(m.Tags) == 0 }

// field returns the Metadata field a well-known field name fills.
func (m *Metadata) field(name string) *string {
	switch name {
	case "title":
		return &m.Title
	case "description":
		return &m.Description
	case "comment":
		return &m.Comment
	case "keywords":
		return &m.Keywords
	case "artist":
		return &m.Artist
	case "genre":
		return &m.Genre
	case "copyright":
		return &m.Copyright
	case "license":
		return &m.License
	}
	return nil
}

// add records a tag and, when field names a Metadata field that is still
// empty, fills it. Empty values are skipped.
func (m *Metadata) add(key, field, value string) {
	value = cleanText(value)
	if value == "" {
		return
	}
	m.Tags = append(m.Tags, Tag{key, value})
	if f := m.field(field); f != nil && *f == "" {
		*f = value
	}
}

// merge adds the tags of o that m does not have.
func (m *Metadata) merge(o Metadata) {
	for _, t := range o.Tags {
		m.Tags = append(m.Tags, t)
	}
	for _, name := range []string{"title", "description", "comment", "keywords", "artist", "genre", "copyright", "license"} {
		if f := m.field(name); *f == "" {
			*f = *o.field(name)
		}
	}
}

// vorbisFields maps Vorbis comment names to Metadata fields.
var vorbisFields = map[string]string{
	"TITLE": "title", "DESCRIPTION": "description", "COMMENT": "comment", "COMMENTS": "comment",
	"ARTIST": "artist", "GENRE": "genre", "LICENSE": "license", "LICENCE": "license",
	"COPYRIGHT": "copyright", "KEYWORDS": "keywords",
}

// vorbisComments reads "KEY=value" comments.
func vorbisComments(comments []string) Metadata {
	var m Metadata
	for _, c := range comments {
		k, v, ok := strings.Cut(c, "=")
		if !ok {
			continue
		}
		k = strings.ToUpper(k)
		m.add("VORBIS:"+k, vorbisFields[k], v)
	}
	return m
}

// maxTextLen bounds one metadata value.
const maxTextLen = 64 << 10

// cleanText trims NULs and space, reads bytes that are not UTF-8 as
// Latin-1, and bounds the length.
func cleanText(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	if !utf8.ValidString(s) {
		r := make([]rune, 0, len(s))
		for i := 0; i < len(s); i++ {
			r = append(r, rune(s[i]))
		}
		s = string(r)
	}
	s = strings.TrimSpace(s)
	if len(s) > maxTextLen {
		s = strings.ToValidUTF8(s[:maxTextLen], "")
	}
	return s
}
