package foley

import (
	"math"
	"strconv"
	"strings"
)

// IntendedUse is what the caller means to do with a clip. The licence gate
// keeps a clip only when its licence permits every part of it.
type IntendedUse struct {
	Commercial             bool `json:"commercial"`              // for money, or for a business
	Publish                bool `json:"publish"`                 // embedded in a published work
	RedistributeStandalone bool `json:"redistribute_standalone"` // shared as a sound file on its own
	WillTrain              bool `json:"will_train"`              // used to train a model
	CanAttribute           bool `json:"can_attribute"`           // the work can carry credits
	// RevenueUSD is the user's annual revenue, for licences capped by it.
	// nil means unknown, and a capped licence then fails closed.
	RevenueUSD            *float64 `json:"revenue_usd,omitempty"`
	AllowVoiceOrTrademark bool     `json:"allow_voice_or_trademark"` // releases for voices and trademarks are in hand
}

// DefaultUse is the intended use when the caller says nothing: a commercial,
// published work that can carry credits.
func DefaultUse() IntendedUse {
	return IntendedUse{Commercial: true, Publish: true, CanAttribute: true}
}

// useWords maps each word of a use list to the field it sets. The first
// spelling of each is the one String writes.
var useWords = []struct {
	names []string
	field func(*IntendedUse) *bool
}{
	{[]string{"commercial"}, func(u *IntendedUse) *bool { return &u.Commercial }},
	{[]string{"publish", "published"}, func(u *IntendedUse) *bool { return &u.Publish }},
	{[]string{"redistribute", "redistribute_standalone"}, func(u *IntendedUse) *bool { return &u.RedistributeStandalone }},
	{[]string{"train", "will_train"}, func(u *IntendedUse) *bool { return &u.WillTrain }},
	{[]string{"attribute", "can_attribute"}, func(u *IntendedUse) *bool { return &u.CanAttribute }},
	{[]string{"voice", "allow_voice_or_trademark"}, func(u *IntendedUse) *bool { return &u.AllowVoiceOrTrademark }},
}

// UseSyntax describes the words ParseIntendedUse reads, for help texts.
const UseSyntax = "comma-separated: commercial, publish, redistribute, train, attribute, voice, revenue=USD; or none"

// ParseIntendedUse reads a comma-separated list of uses such as
// "commercial,publish,attribute,revenue=250000". "none" is a private,
// unpublished, non-commercial use that cannot credit anyone. The JSON field
// names (will_train, can_attribute, ...) are accepted too.
func ParseIntendedUse(s string) (IntendedUse, error) {
	var u IntendedUse
	if strings.TrimSpace(s) == "" {
		return u, Errorf(Invalid, "intended use is empty (%s)", UseSyntax)
	}
	for _, raw := range strings.Split(s, ",") {
		w := strings.ToLower(strings.TrimSpace(raw))
		if w == "none" {
			continue
		}
		if k, v, ok := strings.Cut(w, "="); ok {
			if k != "revenue" && k != "revenue_usd" {
				return u, Errorf(Invalid, "intended use: unknown setting %q (%s)", raw, UseSyntax)
			}
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
				return u, Errorf(Invalid, "intended use: revenue %q is not a non-negative number of USD", v)
			}
			u.RevenueUSD = &f
			continue
		}
		found := false
		for _, uw := range useWords {
			for _, n := range uw.names {
				if w == n {
					*uw.field(&u) = true
					found = true
				}
			}
		}
		if !found {
			return u, Errorf(Invalid, "intended use: unknown word %q (%s)", raw, UseSyntax)
		}
	}
	return u, nil
}

// String writes u in the form ParseIntendedUse reads.
func (u IntendedUse) String() string {
	var words []string
	for _, uw := range useWords {
		if *uw.field(&u) {
			words = append(words, uw.names[0])
		}
	}
	if u.RevenueUSD != nil {
		words = append(words, "revenue="+strconv.FormatFloat(*u.RevenueUSD, 'f', -1, 64))
	}
	if len(words) == 0 {
		return "none"
	}
	return strings.Join(words, ",")
}
