package eval

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/ingest"
)

// Item is one labelled query of a golden set.
type Item struct {
	ID    string           `json:"id"`
	Event foley.SoundEvent `json:"event"`
	// Relevance grades clips by id: 3 exact, 2 good, 1 acceptable; clips
	// not listed are 0. Empty for an event the library has no good clip
	// for.
	Relevance Grades `json:"relevance"`
	// HardNegatives are clips that look right (the same vibe, shared
	// words) but are wrong; they are graded 0.
	HardNegatives []string `json:"hard_negatives,omitempty"`
	// Kind says what the item tests: direct, paraphrase, near_miss or
	// no_match.
	Kind string `json:"kind,omitempty"`
}

// Family is the item's stratum for per-family averages: the UCS category
// of its event's ucs_catid, or "(none)".
func (it Item) Family() string {
	if c, ok := ingest.UCSCategory(it.Event.UCSCatID); ok {
		return c
	}
	return "(none)"
}

// Golden is a golden set: labelled queries over a corpus of clips.
type Golden struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Items       []Item `json:"items"`
	// SHA256 is the hash of the file it was read from.
	SHA256 string `json:"-"`
	// Source names where it was read from.
	Source string `json:"-"`
}

// The item kinds.
const (
	KindDirect     = "direct"
	KindParaphrase = "paraphrase"
	KindNearMiss   = "near_miss"
	KindNoMatch    = "no_match"
)

// ParseGolden decodes and checks a golden set; source names it in errors.
func ParseGolden(b []byte, source string) (*Golden, error) {
	var g Golden
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&g); err != nil {
		return nil, foley.Errorf(foley.Invalid, "golden set %s: %v", source, err)
	}
	if len(g.Items) == 0 {
		return nil, foley.Errorf(foley.Invalid, "golden set %s: no items", source)
	}
	seen := map[string]bool{}
	for i, it := range g.Items {
		where := fmt.Sprintf("golden set %s: item %d (%q)", source, i, it.ID)
		switch {
		case strings.TrimSpace(it.ID) == "":
			return nil, foley.Errorf(foley.Invalid, "golden set %s: item %d has no id", source, i)
		case seen[it.ID]:
			return nil, foley.Errorf(foley.Invalid, "%s: the id is used twice", where)
		case strings.TrimSpace(it.Event.Query) == "":
			return nil, foley.Errorf(foley.Invalid, "%s: the event has no query", where)
		}
		seen[it.ID] = true
		switch it.Kind {
		case "", KindDirect, KindParaphrase, KindNearMiss, KindNoMatch:
		default:
			return nil, foley.Errorf(foley.Invalid, "%s: kind %q (valid: direct, paraphrase, near_miss, no_match)", where, it.Kind)
		}
		for id, grade := range it.Relevance {
			if grade < 0 || grade > 3 {
				return nil, foley.Errorf(foley.Invalid, "%s: clip %q has grade %d (valid: 0..3)", where, id, grade)
			}
		}
		for _, id := range it.HardNegatives {
			if it.Relevance[id] > 0 {
				return nil, foley.Errorf(foley.Invalid, "%s: clip %q is both relevant and a hard negative", where, id)
			}
		}
	}
	sum := sha256.Sum256(b)
	g.SHA256 = hex.EncodeToString(sum[:])
	g.Source = source
	return &g, nil
}

// LoadGolden reads a golden set from a file.
func LoadGolden(path string) (*Golden, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, foley.Errorf(foley.Invalid, "golden set: %v", err)
	}
	return ParseGolden(b, path)
}

// ClipIDs returns every clip id the set refers to, sorted.
func (g *Golden) ClipIDs() []string {
	set := map[string]bool{}
	for _, it := range g.Items {
		for id := range it.Relevance {
			set[id] = true
		}
		for _, id := range it.HardNegatives {
			set[id] = true
		}
	}
	ids := make([]string, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

//go:embed golden/corpus.json golden/golden.json
var shipped embed.FS

// ShippedGolden is the golden set shipped with foley, over ShippedCorpus.
func ShippedGolden() (*Golden, error) {
	b, err := shipped.ReadFile("golden/golden.json")
	if err != nil {
		return nil, err
	}
	return ParseGolden(b, "(shipped) eval/golden/golden.json")
}

// Corpus is a set of clip records to evaluate over.
type Corpus struct {
	Records []foley.SoundRecord
	SHA256  string // of the file it was read from
	Source  string
}

// ParseCorpus decodes a corpus: a JSON array of sound records with
// unique ids.
func ParseCorpus(b []byte, source string) (*Corpus, error) {
	var recs []foley.SoundRecord
	if err := json.Unmarshal(b, &recs); err != nil {
		return nil, foley.Errorf(foley.Invalid, "corpus %s: %v", source, err)
	}
	seen := map[string]bool{}
	for i, r := range recs {
		if r.ID == "" || seen[r.ID] {
			return nil, foley.Errorf(foley.Invalid, "corpus %s: record %d has an empty or repeated id %q", source, i, r.ID)
		}
		seen[r.ID] = true
	}
	sum := sha256.Sum256(b)
	return &Corpus{Records: recs, SHA256: hex.EncodeToString(sum[:]), Source: source}, nil
}

// ShippedCorpus is the evaluation corpus shipped with foley: catalogue
// records (captions, tags, categories, licences) without audio.
func ShippedCorpus() (*Corpus, error) {
	b, err := shipped.ReadFile("golden/corpus.json")
	if err != nil {
		return nil, err
	}
	return ParseCorpus(b, "(shipped) eval/golden/corpus.json")
}
