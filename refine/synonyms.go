package refine

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/ingest"
)

// Bounds on the query Synonyms reads: the start of a longer one is enough
// to find its source and action.
const (
	maxQueryBytes = 4096
	maxWords      = 200
	maxWordRunes  = 40 // a longer "word" is noise
)

// Synonyms is the deterministic refiner: it reduces an event's query to its
// source and action and proposes reductions, synonyms, broader terms and
// the event's UCS category, from the tables of this package. It reads no
// network and ignores the failure reason. The zero value is ready; it is
// safe for concurrent use.
type Synonyms struct{}

var _ foley.Refiner = Synonyms{}

// Default returns the refiner to use when none is configured: Synonyms.
func Default() foley.Refiner { return Synonyms{} }

// Name implements foley.Refiner: "synonyms".
func (Synonyms) Name() string { return "synonyms" }

// Refine implements foley.Refiner. It returns up to n variants of
// event.Query, likeliest to find the sound first, in lower case, none equal
// (ignoring case and spacing) to the query, to a query in tried, or to
// another. A query it cannot read ("", "!!!") yields at most the UCS
// category's name, and possibly nothing; it never fails.
func (Synonyms) Refine(_ context.Context, event foley.SoundEvent, _ string, tried []string, n int) ([]string, error) {
	if n <= 0 {
		return nil, nil
	}
	seen := map[string]bool{normalize(event.Query): true}
	for _, q := range tried {
		seen[normalize(q)] = true
	}
	category, _ := ingest.UCSCategory(event.UCSCatID)
	var out []string
	for _, v := range analyze(event.Query).variants(category) {
		k := normalize(v)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, k)
		if len(out) == n {
			break
		}
	}
	return out, nil
}

// normalize is the form in which queries are compared: lower case, words
// separated by single spaces.
func normalize(q string) string {
	return strings.Join(strings.Fields(strings.ToLower(q)), " ")
}

// A role is what a word does in a query.
type role byte

const (
	roleUnknown role = iota // a content word the tables do not know
	roleNoun                // a source
	rolePerson              // a person
	roleVerb                // an action
	roleAdj                 // a modifier
)

type token struct {
	lemma string
	role  role
}

type clause struct {
	prep string // the splitter that opened it; "" for the first
	toks []token
}

// analysis is what Synonyms reads in a query.
type analysis struct {
	extra    string // a modifier before the compound or head: "wooden"
	compound string // a noun before the head: "car" in "car horn"
	head     string // the source: "door"
	verb     string // the action: "slam"
	prep     string // for a source without action, the preposition before
	surface  string // the surface it sounds on: "rain on roof"
}

// analyze finds the source, its modifiers and the action of a query.
func analyze(query string) analysis {
	clauses := parse(query)
	main := -1
	for i, c := range clauses {
		for _, t := range c.toks {
			if t.role == roleNoun || t.role == rolePerson || t.role == roleVerb {
				main = i
				break
			}
		}
		if main >= 0 {
			break
		}
	}
	if main < 0 {
		for i, c := range clauses {
			if len(c.toks) > 0 {
				main = i
				break
			}
		}
	}
	var a analysis
	if main < 0 {
		return a
	}
	toks := clauses[main].toks
	vi := find(toks, 0, len(toks), roleVerb, true)
	hi := headIndex(toks, vi)
	if vi >= 0 {
		a.verb = toks[vi].lemma
	}
	// An action from a later clause without a source of its own: "a door
	// in the distance slams"; any for a person: "a woman in heels walks".
	if a.verb == "" {
		person := hi >= 0 && toks[hi].role == rolePerson
		for _, c := range clauses[main+1:] {
			if i := find(c.toks, 0, len(c.toks), roleVerb, true); i >= 0 && (person || !hasSource(c.toks)) {
				a.verb = c.toks[i].lemma
				break
			}
		}
	}
	// The thing acted on, from a later clause: "someone knocks on the
	// door", "the slam of a door", "a man lights a match".
	// But not for a person's own sound: "a woman screams", "a man walks".
	bodily := vocal[lexicon[a.verb].vhyper] || lexicon[a.verb].vhyper == "footsteps"
	personal := hi < 0 || toks[hi].role == rolePerson
	if personal && !bodily && (hi < 0 || a.verb != "") {
		for _, c := range clauses[main+1:] {
			if i := find(c.toks, 0, len(c.toks), roleNoun, false); i >= 0 {
				toks, hi = c.toks, i
				break
			}
		}
	}
	if lexicon[a.verb].vhyper == "footsteps" && (hi < 0 || toks[hi].role == rolePerson) {
		// Footsteps are the sound of a walking person: "a woman walks on
		// gravel" is "woman footsteps", "footsteps on gravel".
		if hi >= 0 {
			a.extra = toks[hi].lemma
		}
		a.head, a.verb = "footsteps", ""
	} else if hi < 0 {
		return a
	} else {
		a.head = toks[hi].lemma
		before := hi - 1
		if before >= 0 && isNounish(toks[before].role) {
			a.compound = toks[before].lemma
			before--
		}
		if before >= 0 && (isNounish(toks[before].role) || toks[before].role == roleAdj) {
			a.extra = toks[before].lemma
		}
	}
	if a.verb == "" && main+1 < len(clauses) {
		next := clauses[main+1]
		if surfaces[next.prep] {
			if i := find(next.toks, 0, len(next.toks), roleNoun, false); i >= 0 {
				a.prep, a.surface = next.prep, next.toks[lastNounish(next.toks)].lemma
			}
		}
	}
	return a
}

// headIndex is the index of the source in a clause whose action is at vi
// (-1 for none): the last noun before the action, else the first after it;
// a person when there is no noun, then an unknown word; -1 when none.
func headIndex(toks []token, vi int) int {
	for _, r := range []role{roleNoun, rolePerson, roleUnknown} {
		if vi < 0 {
			if i := find(toks, 0, len(toks), r, false); i >= 0 {
				return i
			}
			continue
		}
		if i := find(toks, 0, vi, r, false); i >= 0 {
			return i
		}
		if i := find(toks, vi+1, len(toks), r, true); i >= 0 {
			return i
		}
	}
	return -1
}

// find returns the index of the first (or last) token of role r in
// toks[from:to], or -1.
func find(toks []token, from, to int, r role, first bool) int {
	found := -1
	for i := from; i < to; i++ {
		if toks[i].role == r {
			if first {
				return i
			}
			found = i
		}
	}
	return found
}

// lastNounish is the index of the last noun or unknown word of toks, or -1.
func lastNounish(toks []token) int {
	found := -1
	for i, t := range toks {
		if t.role == roleNoun || t.role == roleUnknown {
			found = i
		}
	}
	return found
}

func isNounish(r role) bool { return r == roleNoun || r == rolePerson || r == roleUnknown }

func hasSource(toks []token) bool {
	for _, t := range toks {
		if t.role == roleNoun || t.role == rolePerson {
			return true
		}
	}
	return false
}

// parse splits a query into clauses of content words, each with its role.
func parse(query string) []clause {
	if len(query) > maxQueryBytes {
		query = query[:maxQueryBytes]
		for !utf8.ValidString(query) {
			query = query[:len(query)-1]
		}
	}
	words := strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’')
	})
	if len(words) > maxWords {
		words = words[:maxWords]
	}
	clauses := []clause{{}}
	for _, w := range words {
		// "dog's" is "dog"; "'twas" is nothing.
		if i := strings.IndexAny(w, "'’"); i >= 0 {
			w = w[:i]
		}
		switch {
		case w == "", fillers[w], isNumber(w), utf8.RuneCountInString(w) > maxWordRunes:
			continue
		case splitters[w]:
			clauses = append(clauses, clause{prep: w})
			continue
		}
		c := &clauses[len(clauses)-1]
		l := lemma(w)
		afterSource := len(c.toks) > 0 && isNounish(c.toks[len(c.toks)-1].role)
		t := token{lemma: l, role: roleUnknown}
		if e, ok := lexicon[l]; ok {
			switch e.kind {
			case noun:
				t.role = roleNoun
			case person:
				t.role = rolePerson
			case adj:
				t.role = roleAdj
			case both:
				t.role = roleNoun
				if afterSource {
					t.role = roleVerb
				}
			case verb:
				// "close", "light": an adjective unless it follows its source.
				t.role = roleVerb
				if adjectives[w] && !afterSource {
					t.role = roleAdj
				}
			}
		} else {
			switch {
			case adjectives[w] || looksAdjective(w):
				t.role = roleAdj
			case isAdverb(w):
				continue
			}
		}
		c.toks = append(c.toks, t)
	}
	return clauses
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// notAdverbs end in -ly without being adverbs.
var notAdverbs = wordSet(`family bully belly jelly holly lily rally tally assembly`)

// isAdverb reports whether an unknown word is an adverb in -ly: "loudly".
func isAdverb(w string) bool {
	if utf8.RuneCountInString(w) < 5 || !strings.HasSuffix(w, "ly") || notAdverbs[w] {
		return false
	}
	for _, s := range []string{"fly", "ply", "mbly"} {
		if strings.HasSuffix(w, s) {
			return false
		}
	}
	return true
}

// looksAdjective reports whether an unknown word has the shape of an
// adjective or a participle: "muffled", "rainy", "thunderous".
func looksAdjective(w string) bool {
	for _, s := range []string{"ous", "ful", "less", "ish", "ed", "ing", "ive"} {
		if strings.HasSuffix(w, s) && len(w) > len(s)+2 {
			return true
		}
	}
	if base, ok := strings.CutSuffix(w, "y"); ok && len(base) >= 3 {
		for _, b := range []string{base, base + "e", undouble(base)} {
			if _, known := lexicon[b]; known {
				return true
			}
		}
	}
	return false
}

// suffixes are the inflections lemma strips, in order, with what replaces
// them.
var suffixes = [][2]string{{"ies", "y"}, {"ied", "y"}, {"ing", ""}, {"ed", ""}, {"es", ""}, {"s", ""}}

// lemma returns the head word of the lexicon that w inflects ("slammed":
// "slam", "doors": "door", "rang": "ring"), or w itself.
func lemma(w string) string {
	if l, ok := irregular[w]; ok {
		return l
	}
	if _, ok := lexicon[w]; ok || adjectives[w] || utf8.RuneCountInString(w) < 4 {
		return w
	}
	for _, s := range suffixes {
		stem, ok := strings.CutSuffix(w, s[0])
		if !ok || len(stem) < 2 {
			continue
		}
		// -ing and -ed inflect actions only: "winding" is not "wind",
		// "clothing" not "cloth".
		action := s[0] == "ing" || s[0] == "ed" || s[0] == "ied"
		stem += s[1]
		for _, c := range []string{stem, stem + "e", undouble(stem)} {
			if e, ok := lexicon[c]; ok && (!action || e.kind == verb || e.kind == both) {
				return c
			}
		}
	}
	return w
}

// undouble drops a doubled final consonant: "slamm": "slam".
func undouble(s string) string {
	n := len(s)
	if n >= 3 && s[n-1] == s[n-2] && !strings.ContainsRune("aeiouls", rune(s[n-1])) {
		return s[:n-1]
	}
	return s
}

// variants lists the candidate queries of an analysis, likeliest first,
// with duplicates; category is the event's UCS category, or "".
func (a analysis) variants(category string) []string {
	var out []string
	// all adds the words when none is missing and none repeats another
	// ("water water").
	all := func(words ...string) {
		seen := map[string]bool{}
		for _, w := range words {
			if w == "" {
				return
			}
			for _, f := range strings.Fields(w) {
				if seen[f] {
					return
				}
				seen[f] = true
			}
		}
		if len(words) > 0 {
			out = append(out, strings.Join(words, " "))
		}
	}
	// with adds the words after the optional modifiers mods.
	with := func(mods []string, words ...string) {
		for _, w := range words {
			if w == "" {
				return
			}
		}
		var kept []string
		for _, m := range mods {
			if m != "" {
				kept = append(kept, m)
			}
		}
		all(append(kept, words...)...)
	}
	h, c, v := a.head, a.compound, a.verb
	he, ve := lexicon[h], lexicon[v]
	hs, vs, acts := he.syn, ve.vsyn, he.acts
	if he.kind == adj {
		hs = nil
	}
	cc := []string{c}          // the compound, if any
	ec := []string{a.extra, c} // the modifiers, if any
	extraSyn := at(lexicon[a.extra].syn, 0)
	cat := catVariant(category, a)

	switch {
	case h != "" && v != "":
		with(ec, h, v) // wooden door slam
		with(cc, h, v) // door slam
		all(h, v)
		with(cc, h, at(vs, 0)) // door bang
		with(cc, at(hs, 0), v)
		all(cat) // doors slam
		with(cc, h, at(vs, 1))
		all(hyper(c), h, v) // sedan door: car door slam
		all(hyper(h), v)
		all(h, ve.vhyper) // door impact
		for _, s := range rest(vs, 2) {
			with(cc, h, s)
		}
		for _, s := range rest(hs, 1) {
			with(cc, s, v)
		}
		all(hyper(hyper(h)), v)
		all(a.extra, c, h, at(vs, 0))
		all(extraSyn, join(c, h), v) // wood door slam
		with(cc, h)
		all(h)
	case h != "":
		with(ec, h)
		with(cc, h, a.prep, a.surface) // rain on roof
		with(cc, h)
		all(h)
		all(h, a.surface)
		with(cc, h, at(acts, 0)) // dog bark
		with(cc, at(hs, 0))
		all(cat)
		with(cc, h, at(acts, 1))
		with(cc, at(hs, 1))
		all(hyper(c), h)
		all(hyper(h))
		for _, s := range rest(acts, 2) {
			with(cc, h, s)
		}
		for _, s := range rest(hs, 2) {
			with(cc, s)
		}
		all(hyper(hyper(h)))
		all(extraSyn, join(c, h))
	case v != "":
		all(v)
		all(at(vs, 0))
		all(cat)
		all(at(vs, 1))
		all(ve.vhyper)
		for _, s := range rest(vs, 2) {
			all(s)
		}
	default:
		all(cat)
	}
	return out
}

// catVariant is the event's UCS category with the action, or the source
// when there is none: "doors slam", "animals dog"; "" without a category.
func catVariant(category string, a analysis) string {
	words := strings.Fields(strings.ToLower(strings.ReplaceAll(category, "&", " ")))
	if len(words) == 0 {
		return ""
	}
	name := strings.Join(words, " ")
	switch {
	case a.verb != "":
		return name + " " + a.verb
	case a.head == "":
		return name
	case len(words) == 1 && lemma(words[0]) == a.head:
		// "RAIN" for "heavy rain": the category is the source.
		if acts := lexicon[a.head].acts; len(acts) > 0 {
			return name + " " + acts[0]
		}
		return name
	default:
		return name + " " + a.head
	}
}

// hyper is the broader term of a head word, or "".
func hyper(w string) string {
	if w == "" {
		return ""
	}
	return lexicon[w].hyper
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}

func rest(s []string, from int) []string {
	if from < len(s) {
		return s[from:]
	}
	return nil
}

// join joins the words that are not empty.
func join(words ...string) string {
	var kept []string
	for _, w := range words {
		if w != "" {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, " ")
}
