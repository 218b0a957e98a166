package weaviate

import (
	"regexp"
	"strings"
	"unicode"

	porter "github.com/blevesearch/go-porterstemmer"
	"golang.org/x/text/unicode/norm"
)

var termWord = regexp.MustCompile(`[\p{L}\p{N}]+`)

// terms is text as the embedded library's full-text index sees it (SQLite
// FTS5's "porter unicode61 remove_diacritics 2" tokenizer): words of
// letters and digits, lower-cased, without diacritics, each reduced to its
// Porter stem, joined by spaces. Weaviate has no stemmer, so foley stems
// both the stored words and the query's, and BM25 then matches "slamming"
// with "slams" on either backend.
func terms(text string) string {
	words := termWord.FindAllString(foldDiacritics(strings.ToLower(text)), -1)
	for i, w := range words {
		words[i] = stem(w)
	}
	return strings.Join(words, " ")
}

// stem is the Porter stem of a lower-case word; words with other than
// ASCII letters are kept as they are (the Porter algorithm is for English).
func stem(w string) string {
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return w
		}
	}
	if len(w) <= 2 {
		return w
	}
	return porter.StemString(w)
}

// foldDiacritics removes combining marks ("café" gives "cafe").
func foldDiacritics(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}
