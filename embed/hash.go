package embed

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/foley-audio/foley"
)

// DefaultHashDim is the dimension of NewHash(0).
const DefaultHashDim = 512

// MaxHashDim is the largest dimension NewHash gives; larger requests are
// clamped to it.
const MaxHashDim = 1 << 16

// HashModelVersion names the hashing scheme: the tokenizer, the features,
// their weights, the stemmer and the hash function. Any change to one of
// them that changes a vector must change this name, so that a library
// embedded by an older scheme is not compared with the new one.
const HashModelVersion = "foley-hash-text-v1"

// The weights of the feature kinds. Words weigh most; then the light stem of
// a word when it differs from the word (so "slams" and "slam" share 0.7 of a
// word); then pairs of adjacent words; the character n-grams of one word
// share a total weight (their L2 norm) of ngramWeight, however long the
// word, so that long words do not drown short ones and n-grams only break
// ties between near spellings ("wood", "wooden").
const (
	wordWeight  = 1.0
	stemWeight  = 0.7
	pairWeight  = 0.6
	ngramWeight = 0.5
	ngramMin    = 3 // n-gram lengths, in characters, boundary markers included
	ngramMax    = 5
)

// The kinds of feature, hashed as the first byte so that the word "door"
// and the n-gram "door" land in unrelated buckets. A word's stem is hashed
// as a word, so a stem meets the same word written plainly elsewhere.
const (
	kindWord  = 'w'
	kindPair  = 'p'
	kindNgram = 'g'
)

// Hash is the built-in text embedder: a deterministic feature-hashing
// embedder that needs no model, no network and no configuration. It embeds
// only text; EmbedAudio fails with code foley.Unavailable.
//
// A text is lower-cased and split into words (runs of Unicode letters and
// decimal digits; combining marks stay inside their word). Its features:
//
//   - each word, weight 1.0;
//   - the word's light English stem when it differs from the word (plural
//     and verb endings -s, -es, -ies, -ed, -ing, a doubled final consonant
//     and a final -e removed: "slams", "slammed", "slamming" all give
//     "slam"; "closes", "closing", "close" all give "clos"), as a word of
//     weight 0.7;
//   - each pair of adjacent words, stemmed ("door slams" and "door slam"
//     are one pair), weight 0.6;
//   - the character n-grams of 3 to 5 characters of each word with
//     boundary markers ("<door>" gives "<do", "doo", ..., "oor>"), which
//     together weigh 0.5 (each 0.5/sqrt(count)).
//
// Each feature is hashed with FNV-1a 64 over its kind byte and its UTF-8
// bytes, then mixed with the splitmix64 finaliser; the hash modulo the
// dimension picks the bucket and its top bit the sign (+ or -), so that
// collisions cancel out on average instead of piling up. Weights of
// repeated features add. The vector is then L2-normalised. A text without
// words (empty, spaces, punctuation) embeds to the zero vector, whose
// cosine with anything is 0: it matches nothing.
//
// The vectors are stable: the same text gives the same vector on every
// platform and run, as long as HashModelVersion is unchanged. A Hash is
// immutable and safe for concurrent use.
type Hash struct {
	dim int
}

var _ foley.Embedder = (*Hash)(nil)

// NewHash returns the built-in text embedder with vectors of dim numbers:
// DefaultHashDim (512) when dim <= 0, at most MaxHashDim.
func NewHash(dim int) *Hash {
	switch {
	case dim <= 0:
		dim = DefaultHashDim
	case dim > MaxHashDim:
		dim = MaxHashDim
	}
	return &Hash{dim: dim}
}

// Model names the scheme and the dimension, e.g.
// "foley-hash-text-v1/512 (text only)".
func (h *Hash) Model() string {
	return fmt.Sprintf("%s/%d (text only)", HashModelVersion, h.dim)
}

// Dim is the length of every vector.
func (h *Hash) Dim() int { return h.dim }

// AudioCapable is false: Hash embeds clips from their text only.
func (h *Hash) AudioCapable() bool { return false }

// EmbedText embeds each text. It fails only when ctx is done.
func (h *Hash) EmbedText(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = h.Embed(t)
	}
	return out, nil
}

// EmbedAudio always fails with code foley.Unavailable: the built-in
// embedder does not hear sound.
func (h *Hash) EmbedAudio(_ context.Context, uris []string) ([][]float32, error) {
	return nil, foley.Errorf(foley.Unavailable,
		"the built-in embedder (%s) only embeds text (captions and tags) and cannot embed the sound of %d file(s); "+
			"to embed audio, %s", h.Model(), len(uris), clapHowTo)
}

// clapHowTo says how to configure CLAP; it completes a sentence.
const clapHowTo = "run an Infinity embedding server with a CLAP model " +
	"(e.g. `infinity_emb v2 --model-id " + DefaultCLAPModel + "`) " +
	"and set FOLEY_CLAP_URL to its base URL, e.g. http://localhost:7997 " +
	"(FOLEY_CLAP_MODEL picks the model, FOLEY_CLAP_API_KEY sets a bearer token)"

// Embed embeds one text: the L2-normalised hashed features, or the zero
// vector when the text has no words.
func (h *Hash) Embed(text string) []float32 {
	acc := make([]float64, h.dim)
	words := Words(text)
	prev := ""
	for i, w := range words {
		s := stem(w)
		h.add(acc, wordWeight, kindWord, w)
		if s != w {
			h.add(acc, stemWeight, kindWord, s)
		}
		if i > 0 {
			h.add(acc, pairWeight, kindPair, prev, " ", s)
		}
		prev = s
		h.addNgrams(acc, w)
	}
	return normalize64(acc)
}

// add adds weight w to the bucket of the feature whose bytes are the kind
// and the parts, with the feature's sign.
func (h *Hash) add(acc []float64, w float64, kind byte, parts ...string) {
	f := newFNV().byte(kind)
	for _, p := range parts {
		f = f.str(p)
	}
	h.addHash(acc, w, f.sum())
}

func (h *Hash) addHash(acc []float64, w float64, x uint64) {
	i := x % uint64(h.dim)
	if x>>63 != 0 {
		w = -w
	}
	acc[i] += w
}

// addNgrams adds the character n-grams of "<word>".
func (h *Hash) addNgrams(acc []float64, word string) {
	marked := "<" + word + ">"
	// starts[k] is the byte offset of the k-th character; one more entry
	// for the end.
	var buf [64]int
	starts := buf[:0]
	for i := range marked {
		starts = append(starts, i)
	}
	starts = append(starts, len(marked))
	runes := len(starts) - 1
	count := 0
	for n := ngramMin; n <= ngramMax; n++ {
		count += max(0, runes-n+1)
	}
	if count == 0 {
		return
	}
	w := ngramWeight / math.Sqrt(float64(count))
	for n := ngramMin; n <= ngramMax; n++ {
		for k := 0; k+n <= runes; k++ {
			gram := marked[starts[k]:starts[k+n]]
			h.addHash(acc, w, newFNV().byte(kindNgram).str(gram).sum())
		}
	}
}

// fnv is FNV-1a 64 with a finaliser.
type fnv uint64

func newFNV() fnv { return 14695981039346656037 }

func (f fnv) byte(b byte) fnv { return (f ^ fnv(b)) * 1099511628211 }

func (f fnv) str(s string) fnv {
	for i := 0; i < len(s); i++ {
		f = (f ^ fnv(s[i])) * 1099511628211
	}
	return f
}

// sum mixes the FNV state with the splitmix64 finaliser, so that every
// output bit (the bucket's low bits, the sign's top bit) depends on every
// input byte.
func (f fnv) sum() uint64 {
	x := uint64(f)
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Words splits text into the lower-cased words Hash embeds: runs of
// Unicode letters and decimal digits, with combining marks kept inside the
// word they follow. Everything else separates words.
func Words(text string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		case b.Len() > 0 && unicode.IsMark(r):
			b.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// stem removes English plural and verb endings from a lower-case ASCII
// word: a light, predictable stemmer whose only job is to make inflections
// of one word meet. Other words are returned unchanged.
func stem(w string) string {
	if len(w) < 4 || !isASCIILower(w) {
		return w
	}
	s := w
	switch {
	case strings.HasSuffix(s, "ies") && len(s) > 4: // flies → fly
		s = s[:len(s)-3] + "y"
	case strings.HasSuffix(s, "sses"): // glasses → glass
		s = s[:len(s)-2]
	case strings.HasSuffix(s, "ss"), strings.HasSuffix(s, "us"), strings.HasSuffix(s, "is"):
		// glass, bus, this: not plurals
	case strings.HasSuffix(s, "xes"), strings.HasSuffix(s, "zes"),
		strings.HasSuffix(s, "ches"), strings.HasSuffix(s, "shes"): // crashes → crash
		s = s[:len(s)-2]
	case strings.HasSuffix(s, "s"): // slams → slam, closes → close
		s = s[:len(s)-1]
	case strings.HasSuffix(s, "eed"): // speed, bleed
	case strings.HasSuffix(s, "ed") && len(s)-2 >= 3 && hasVowel(s[:len(s)-2]): // slammed → slam
		s = undouble(s[:len(s)-2])
	case strings.HasSuffix(s, "ing") && len(s)-3 >= 3 && hasVowel(s[:len(s)-3]): // slamming → slam
		s = undouble(s[:len(s)-3])
	}
	// A final e goes, so that close, closes, closed and closing meet.
	if len(s) > 3 && s[len(s)-1] == 'e' && s[len(s)-2] != 'e' {
		s = s[:len(s)-1]
	}
	return s
}

func isASCIILower(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

func hasVowel(s string) bool { return strings.ContainsAny(s, "aeiouy") }

// undouble drops one of a doubled final consonant (slamm → slam), except
// l, s and z, which English doubles in the stem itself (roll, hiss, buzz).
func undouble(s string) string {
	n := len(s)
	if n >= 2 && s[n-1] == s[n-2] && !strings.ContainsRune("aeioulsz", rune(s[n-1])) {
		return s[:n-1]
	}
	return s
}

// RecordText is the text a sound record is embedded from by a text-only
// embedder, and the text a library indexes: the caption, the tags and the
// UCS category, in that order, joined by ". " (tags by ", "), empty parts
// left out. A UCS CatID written in camel case ("DOORWood") is split into
// its words ("DOOR Wood").
func RecordText(r foley.SoundRecord) string {
	var parts []string
	if c := strings.TrimSpace(r.Caption); c != "" {
		parts = append(parts, c)
	}
	var tags []string
	for _, t := range r.Tags {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	if len(tags) > 0 {
		parts = append(parts, strings.Join(tags, ", "))
	}
	if u := strings.TrimSpace(r.UCSCategory); u != "" {
		parts = append(parts, splitCamel(u))
	}
	return strings.Join(parts, ". ")
}

// splitCamel puts a space where a lower-case letter meets an upper-case
// one ("doorWood") and before the last capital of a capital run that
// starts a capitalised word ("DOORWood" → "DOOR Wood").
func splitCamel(s string) string {
	if !utf8.ValidString(s) {
		return s
	}
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if i > 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || (unicode.IsUpper(prev) && nextLower) {
				b.WriteByte(' ')
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// normalize64 returns v scaled to unit L2 norm as float32, or the zero
// vector when v is zero.
func normalize64(v []float64) []float32 {
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	out := make([]float32, len(v))
	if ss == 0 {
		return out
	}
	inv := 1 / math.Sqrt(ss)
	for i, x := range v {
		out[i] = float32(x * inv)
	}
	return out
}

// Cosine is the cosine similarity of two vectors of one length, computed
// in float64; 0 when either is the zero vector or the lengths differ.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
