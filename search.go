package foley

import (
	"math"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
)

// MaxK bounds the results of one library search.
const MaxK = 1000

// RRFK is the k of reciprocal rank fusion: a result's fused score is the sum
// of 1/(RRFK + rank) over the ranked lists it appears in.
const RRFK = 60

var queryWord = regexp.MustCompile(`[\p{L}\p{N}]+`)

// stopwords are left out of full-text queries: they match most captions
// ("a door slams"), add nothing to the ranking and make every search score
// most of the library.
var stopwords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "or": true, "of": true, "on": true, "in": true,
	"at": true, "to": true, "into": true, "onto": true, "with": true, "by": true, "for": true, "from": true,
	"is": true, "are": true, "it": true, "its": true, "as": true, "than": true, "then": true,
}

// QueryWords are the words of a full-text query as every backend searches
// them: lower-cased letters and digits, at most 32, without stopwords
// (unless the query has nothing else).
func QueryWords(text string) []string {
	all := queryWord.FindAllString(strings.ToLower(text), 32)
	var words []string
	for _, w := range all {
		if !stopwords[w] {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return all
	}
	return words
}

// Check validates a search and returns it with its defaults filled in
// (K 10), or an Invalid error naming the problem.
func (q SearchQuery) Check() (SearchQuery, error) {
	if q.K == 0 {
		q.K = 10
	}
	if q.K < 0 || q.K > MaxK {
		return q, Errorf(Invalid, "search: k must be 1..%d, got %d", MaxK, q.K)
	}
	f := q.Filter
	if f.MinDurationS < 0 || f.MaxDurationS < 0 || (f.MaxDurationS > 0 && f.MaxDurationS < f.MinDurationS) {
		return q, Errorf(Invalid, "search: duration range %g..%g s is empty or negative", f.MinDurationS, f.MaxDurationS)
	}
	if len(QueryWords(q.Text)) == 0 && q.Vector == nil {
		return q, Errorf(Invalid, "search: the query has no words and no vector")
	}
	return q, nil
}

// CheckUpsert checks a record and its vector (nil for none) before a
// library stores them, and clears the record's EmbeddingModel when it has
// no vector.
func CheckUpsert(r *SoundRecord, vector []float32) error {
	if r.ID == "" {
		return Errorf(Invalid, "library: a record has no id")
	}
	if vector == nil {
		r.EmbeddingModel = ""
		return nil
	}
	if r.EmbeddingModel == "" {
		return Errorf(Invalid, "library: record %q has a vector but no embedding_model", r.ID)
	}
	if len(vector) == 0 {
		return Errorf(Invalid, "library: record %q has an empty vector", r.ID)
	}
	for _, v := range vector {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return Errorf(Invalid, "library: record %q has a vector with %v", r.ID, v)
		}
	}
	return nil
}

// ReindexHint tells a user what to do when a library holds vectors of
// another embedder than the one at hand.
const ReindexHint = "re-index with the same embedder, or run `foley index DIR --reembed` to embed the whole library again with the new one"

// CheckEmbedder refuses, as Invalid, a query vector q made by model when
// the library's vectors were made by libModel with libDim dimensions. A
// library without vectors yet (libModel "") takes any query. op, when not
// "", begins the message.
func CheckEmbedder(op, libModel string, libDim int, model string, q []float32) error {
	if libModel == "" || (model == libModel && len(q) == libDim) {
		return nil
	}
	if op != "" {
		op += ": "
	}
	return Errorf(Invalid, "%sthe library's vectors were made by %s (%d dimensions) but the query by %s (%d); query with the library's embedder, or %s",
		op, libModel, libDim, model, len(q), ReindexHint)
}

// SearchFields are the words of a record that full-text search matches, in
// four fields weighted apart: the caption, the tags, the file name split
// into words, and the UCS category (split, and whole).
func SearchFields(r SoundRecord) (caption, tags, filename, category string) {
	name := r.URI
	if u, err := url.Parse(r.URI); err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
		name = u.Path
	}
	stem := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	return r.Caption, strings.Join(r.Tags, " "), strings.Join(SplitWords(stem), " "), strings.Join(SplitWords(r.UCSCategory), " ") + " " + r.UCSCategory
}

var camel = regexp.MustCompile(`([a-z0-9])([A-Z])|([A-Z])([A-Z][a-z])`)

// SplitWords splits a file stem or identifier into words: on '_', '-', '.',
// spaces and camelCase boundaries ("DOORWood_HeavySlam-01" gives DOOR, Wood,
// Heavy, Slam, 01).
func SplitWords(s string) []string {
	s = camel.ReplaceAllString(s, "$1$3 $2$4")
	return strings.FieldsFunc(s, func(r rune) bool {
		return r == '_' || r == '-' || r == '.' || r == ' ' || r == '\t' || r == '(' || r == ')' || r == '[' || r == ']' || r == ','
	})
}
