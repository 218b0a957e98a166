// Package license decides whether a clip may be used: the policy table from
// licence id to permissions, the parsing of licences as sources report them
// (Creative Commons URLs and labels), and the fail-closed gate.
//
// Fail-closed means: a licence the table does not list, a URL or label that
// does not match exactly, rights that nobody verified, or any error while
// deciding, all drop the clip.
package license

import (
	"slices"
	"strings"
	"unicode"
)

// Permissions are what a licence allows.
type Permissions struct {
	Commercial          bool    // use for money or by a business
	Derivative          bool    // embed in a published work
	Redistribute        bool    // share the file on its own
	Train               bool    // train a model on it
	AttributionRequired bool    // users must credit the creator
	RevenueCapUSD       float64 // users with a higher annual revenue may not use it; 0 means no cap
}

// Policy is a row of the table: a licence id, its permissions and why.
type Policy struct {
	ID string
	Permissions
	Note string // the reading of the licence behind the flags
}

// Unknown is the id of every licence the table does not list. All its flags
// are false.
const Unknown = "unknown"

// The table. Where a licence is unclear about a use, the flag is false.
var table = []Policy{
	{"CC0-1.0", Permissions{Commercial: true, Derivative: true, Redistribute: true, Train: true},
		"public domain dedication: anything, no credit needed"},
	{"CC-BY-3.0", Permissions{Commercial: true, Derivative: true, Redistribute: true, Train: true, AttributionRequired: true},
		"anything, with credit to the creator"},
	{"CC-BY-4.0", Permissions{Commercial: true, Derivative: true, Redistribute: true, Train: true, AttributionRequired: true},
		"anything, with credit to the creator"},
	{"CC-BY-NC-3.0", Permissions{Derivative: true, Redistribute: true, AttributionRequired: true},
		"non-commercial use only, with credit; training left out (fail-closed)"},
	{"CC-BY-NC-4.0", Permissions{Derivative: true, Redistribute: true, AttributionRequired: true},
		"non-commercial use only, with credit; training left out (fail-closed)"},
	{"CC-Sampling+-1.0", Permissions{Commercial: true, Derivative: true, AttributionRequired: true},
		"commercial use only transformed inside a new work, with credit; no commercial redistribution of the clip itself; retired by Creative Commons"},
	{"user-owned", Permissions{Commercial: true, Derivative: true, Redistribute: true, Train: true},
		"recorded or bought outright by the user"},
	{"ElevenLabs-SFX", Permissions{Commercial: true, Derivative: true},
		"ElevenLabs sound effects made on a paid plan: commercial use in works; not resold as sound files nor used to train models"},
	{"Stability-Community", Permissions{Commercial: true, Derivative: true, RevenueCapUSD: 1_000_000},
		"Stability AI Community License: outputs usable by users with annual revenue under USD 1M"},
	{"Sonniss-GDC", Permissions{Commercial: true, Derivative: true},
		"Sonniss GDC bundle: royalty-free in games and films, no credit needed; not redistributed as sounds nor used for training"},
	{"BBC-RemArc", Permissions{Derivative: true, AttributionRequired: true},
		"BBC Sound Effects under the RemArc licence: personal, educational and research use only, credited to the BBC"},
	{"Pixabay", Permissions{Commercial: true, Derivative: true},
		"Pixabay Content License: commercial use in works, no credit needed; not redistributed standalone; training left out (fail-closed)"},
	{Unknown, Permissions{},
		"not in the table or not recognised: nothing is permitted (fail-closed)"},
}

// byKey indexes the table by the lower-case alphanumerics of each id, so
// "cc-by-4.0", "CC BY 4.0" and "BBC RemArc" find their rows.
var byKey = func() map[string]Policy {
	m := make(map[string]Policy, len(table))
	for _, p := range table {
		m[key(p.ID)] = p
	}
	return m
}()

// key folds an id to its lower-case ASCII letters, digits and '+'. Text
// with any other letter, digit or mark (a full-width "ＮＣ", a Cyrillic
// "НС") has no key: dropping those would turn CC-BY-NC into CC-BY.
func key(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+':
			b.WriteRune(r)
		case r > unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)):
			return ""
		}
	}
	return b.String()
}

// Table returns the policy table, in a fixed order ending with Unknown.
func Table() []Policy { return slices.Clone(table) }

// Lookup returns the row of a canonical id (matched ignoring case and
// punctuation), or the Unknown row with ok false.
func Lookup(id string) (p Policy, ok bool) {
	k := key(id)
	p, ok = byKey[k]
	if k == "" {
		ok = false
	}
	if !ok || p.ID == Unknown {
		return byKey[Unknown], false
	}
	return p, true
}
