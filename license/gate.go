package license

import (
	"fmt"
	"strings"

	"github.com/foley-audio/foley"
)

// Decision is the gate's answer for one clip.
type Decision struct {
	OK        bool   // the clip may be used for the intended use
	LicenseID string // the table id the decision was made on
	Reason    string // why, in words
}

// ResolveRecord returns the table id of a licence record. LicenseID decides,
// or LicenseURL when the id is empty; when both are given and the URL is a
// Creative Commons URL, the two must agree, or the licence is Unknown.
func ResolveRecord(l foley.License) (id string, ok bool) {
	switch {
	case l.LicenseID == "":
		return Resolve(l.LicenseURL)
	case l.LicenseURL == "" || !IsCreativeCommonsURL(l.LicenseURL):
		return Resolve(l.LicenseID)
	}
	a, okA := Resolve(l.LicenseID)
	b, okB := Resolve(l.LicenseURL)
	if !okA || !okB || a != b {
		return Unknown, false
	}
	return a, true
}

// Normalize returns l with LicenseID set to its table id and the permission
// flags set from the table. An id given as a URL moves to LicenseURL when
// that is empty, so nothing the source reported is lost.
func Normalize(l foley.License) foley.License {
	id, _ := ResolveRecord(l)
	if l.LicenseURL == "" && looksLikeURL(l.LicenseID) {
		l.LicenseURL = strings.TrimSpace(l.LicenseID)
	}
	p, _ := Lookup(id)
	l.LicenseID = p.ID
	l.CommercialOK = p.Commercial
	l.DerivativeOK = p.Derivative
	l.RedistributeOK = p.Redistribute
	l.TrainOK = p.Train
	l.AttributionRequired = p.AttributionRequired
	l.RevenueCapUSD = nil
	if p.RevenueCapUSD > 0 {
		l.RevenueCapUSD = new(p.RevenueCapUSD)
	}
	return l
}

// Keep decides whether a clip under licence record l may be used for use.
// Unverified rights fail; then every part of the intended use needs its
// permission in the table row of the record's licence. The permission flags
// stored in l are not consulted.
func Keep(l foley.License, use foley.IntendedUse) Decision {
	id, known := ResolveRecord(l)
	if !l.RightsVerified {
		return Decision{false, id, "rights not verified"}
	}
	if !known {
		if l.LicenseID == "" && l.LicenseURL == "" {
			return Decision{false, id, "no licence given (fail-closed)"}
		}
		return Decision{false, id, fmt.Sprintf("licence %s is not in the policy table (fail-closed)", describe(l))}
	}
	p, _ := Lookup(id)
	var no []string
	if use.Commercial && !p.Commercial {
		no = append(no, "commercial use")
	}
	if use.Publish && !p.Derivative {
		no = append(no, "use in a published work")
	}
	if use.RedistributeStandalone && !p.Redistribute {
		no = append(no, "standalone redistribution")
	}
	if use.WillTrain && !p.Train {
		no = append(no, "model training")
	}
	if len(no) > 0 {
		return Decision{false, id, fmt.Sprintf("%s forbids %s", id, strings.Join(no, ", "))}
	}
	if p.AttributionRequired && !use.CanAttribute {
		return Decision{false, id, id + " requires attribution and the intended use cannot credit the creator"}
	}
	if p.RevenueCapUSD > 0 {
		switch {
		case use.RevenueUSD == nil:
			return Decision{false, id, fmt.Sprintf("%s is for annual revenue under USD %s; the intended use does not give revenue_usd", id, usd(p.RevenueCapUSD))}
		case !(*use.RevenueUSD < p.RevenueCapUSD): // NaN fails too
			return Decision{false, id, fmt.Sprintf("%s is for annual revenue under USD %s; revenue_usd is %s", id, usd(p.RevenueCapUSD), usd(*use.RevenueUSD))}
		}
	}
	if l.HasVoiceOrTrademark && !use.AllowVoiceOrTrademark {
		return Decision{false, id, "the clip holds a voice or trademark and the intended use does not allow one"}
	}
	reason := id + " permits " + use.String()
	if p.AttributionRequired {
		reason += "; credit the creator"
	}
	return Decision{true, id, reason}
}

// Check runs Keep on every candidate and sets its LicenseOK to the answer.
// Any failure while deciding counts as a refusal.
func Check(cands []foley.Candidate, use foley.IntendedUse) []Decision {
	out := make([]Decision, len(cands))
	for i := range cands {
		out[i] = safeKeep(cands[i].Sound.License, use)
		cands[i].LicenseOK = new(out[i].OK)
	}
	return out
}

// Gate sets LicenseOK on every candidate (true or false) and returns the
// kept ones, in their order. It is the fail-closed first pass: nothing may be
// verified or used before it.
func Gate(cands []foley.Candidate, use foley.IntendedUse) []foley.Candidate {
	var kept []foley.Candidate
	for i, d := range Check(cands, use) {
		if d.OK {
			kept = append(kept, cands[i])
		}
	}
	return kept
}

func safeKeep(l foley.License, use foley.IntendedUse) (d Decision) {
	defer func() {
		if r := recover(); r != nil {
			d = Decision{false, Unknown, fmt.Sprintf("error while deciding: %v", r)}
		}
	}()
	return Keep(l, use)
}

func describe(l foley.License) string {
	if l.LicenseID != "" {
		return fmt.Sprintf("%q", l.LicenseID)
	}
	return fmt.Sprintf("%q", l.LicenseURL)
}

// usd writes a whole number of dollars with thousands separators.
func usd(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
