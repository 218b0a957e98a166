package license_test

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/license"
)

// sample is a licence string with the id it must resolve to; want "" means
// the string is random and its id is not predicted.
type sample struct {
	s    string
	want string
	cc   bool // a URL on creativecommons.org (IsCreativeCommonsURL)
}

const junk = ""

// idSamples are license_id values with known ids.
var idSamples = func() []sample {
	var out []sample
	for _, id := range tableIDs {
		out = append(out, sample{s: id, want: id}, sample{s: strings.ToLower(id), want: id}, sample{s: strings.ToUpper(id), want: id})
	}
	out = append(out,
		sample{s: "BBC RemArc", want: "BBC-RemArc"},
		sample{s: "Creative Commons 0", want: "CC0-1.0"},
		sample{s: "CC0 1.0 Universal", want: "CC0-1.0"},
		sample{s: "Attribution", want: "CC-BY-4.0"},
		sample{s: "Attribution 3.0 Unported", want: "CC-BY-3.0"},
		sample{s: "Attribution NonCommercial", want: "CC-BY-NC-4.0"},
		sample{s: "Attribution Noncommercial", want: "CC-BY-NC-4.0"},
		sample{s: "Attribution-NonCommercial 4.0 International (CC BY-NC 4.0)", want: "CC-BY-NC-4.0"},
		sample{s: "CC BY-NC 3.0", want: "CC-BY-NC-3.0"},
		sample{s: "Sampling+", want: "CC-Sampling+-1.0"},
		sample{s: "Sampling Plus 1.0", want: "CC-Sampling+-1.0"},
		sample{s: "Sampling", want: license.Unknown},
		sample{s: "Attribution 2.0", want: license.Unknown},
		sample{s: "Public Domain", want: license.Unknown},
		sample{s: "CC-BY-SA-4.0", want: license.Unknown},
		sample{s: "CC-BY-ND-4.0", want: license.Unknown},
		sample{s: "CC-BY-NC-SA-4.0", want: license.Unknown},
		sample{s: "CC-BY-NC-ND-3.0", want: license.Unknown},
		sample{s: "Attribution-ShareAlike 4.0", want: license.Unknown},
		sample{s: "Attribution-NonCommercial-NoDerivs", want: license.Unknown},
		sample{s: "GPL-3.0", want: license.Unknown},
		sample{s: "   ", want: license.Unknown},
	)
	for _, u := range urlSamples {
		out = append(out, sample{s: u.s, want: u.want})
	}
	return out
}()

// urlSamples are license_url values with known ids.
var urlSamples = []sample{
	{"http://creativecommons.org/publicdomain/zero/1.0/", "CC0-1.0", true},
	{"https://creativecommons.org/publicdomain/zero/1.0/legalcode", "CC0-1.0", true},
	{"http://creativecommons.org/licenses/by/3.0/", "CC-BY-3.0", true},
	{"https://creativecommons.org/licenses/by/4.0/deed.en", "CC-BY-4.0", true},
	{"HTTPS://CreativeCommons.ORG/licenses/by/4.0", "CC-BY-4.0", true},
	{"creativecommons.org/licenses/by/4.0/", "CC-BY-4.0", true},
	{"//www.creativecommons.org/licenses/by/4.0/", "CC-BY-4.0", true},
	{"https://creativecommons.org/licenses/by-nc/3.0/", "CC-BY-NC-3.0", true},
	{"https://creativecommons.org/licenses/by-nc/4.0/", "CC-BY-NC-4.0", true},
	{"https://creativecommons.org/licenses/by-nc/4.0/legalcode?x#y", "CC-BY-NC-4.0", true},
	{"http://creativecommons.org/licenses/sampling+/1.0/", "CC-Sampling+-1.0", true},
	{"http://creativecommons.org/licenses/sampling%2B/1.0/", "CC-Sampling+-1.0", true},
	{"https://creativecommons.org/licenses/by-sa/4.0/", license.Unknown, true},
	{"https://creativecommons.org/licenses/by-nd/4.0/", license.Unknown, true},
	{"https://creativecommons.org/licenses/by-nc-sa/4.0/", license.Unknown, true},
	{"https://creativecommons.org/licenses/by-nc-nd/3.0/", license.Unknown, true},
	{"https://creativecommons.org/licenses/by/3.0/us/", license.Unknown, true},
	{"https://creativecommons.org/licenses/by/4.0/extra/segments", license.Unknown, true},
	{"https://creativecommons.org/licenses/byx/4.0", license.Unknown, true},
	{"https://creativecommons.org/licenses/by/4.0.1", license.Unknown, true},
	{"https://creativecommons.org.evil.com/licenses/by/4.0/", license.Unknown, false},
	{"https://evil.com/creativecommons.org/licenses/by/4.0/", license.Unknown, false},
	{"https://user@creativecommons.org/licenses/by/4.0/", license.Unknown, false},
	{"ftp://creativecommons.org/licenses/by/4.0/", license.Unknown, false},
	{"https://pixabay.com/service/license-summary/", license.Unknown, false},
}

// modelResolve predicts ResolveRecord for two samples, both predicted.
func modelResolve(id, url sample) string {
	switch {
	case id.s == "":
		return url.want
	case url.s == "" || !url.cc:
		return id.want
	case id.want == url.want && id.want != license.Unknown:
		return id.want
	}
	return license.Unknown
}

var (
	ccURLGen = rapid.StringMatching(`(https?:|HTTP:|ftp:)?(//)?(www\.)?(creativecommons\.org|CreativeCommons\.ORG|creativecommons\.org\.evil\.com|evil\.com)(/(licenses|publicdomain|by|by-nc|by-sa|by-nd|by-nc-sa|by-nc-nd|zero|sampling\+|sampling%2B|[0-9]\.[0-9]|legalcode|deed\.en|us|x)){0,5}/?`)

	labelWordGen = rapid.SampledFrom([]string{
		"Attribution", "NonCommercial", "Non", "Commercial", "ShareAlike", "Share", "Alike",
		"NoDerivs", "NoDerivatives", "No", "Derivatives", "CC", "BY", "NC", "SA", "ND",
		"4.0", "3.0", "1.0", "2.0", "4", "Sampling+", "Sampling", "Plus", "0", "CC0",
		"Creative", "Commons", "International", "Unported", "Universal", "License",
	})
	separatorGen = rapid.SampledFrom([]string{" ", "-", "_", " (", ") ", ", ", "/", "  "})

	// licenceStringGen draws a license_id or license_url value and what it
	// must resolve to (want == junk when not predicted).
	licenceStringGen = func(known []sample) *rapid.Generator[sample] {
		return rapid.OneOf(
			rapid.Just(sample{}),
			rapid.SampledFrom(known),
			rapid.SampledFrom(known),
			rapid.Custom(func(t *rapid.T) sample { return sample{s: ccURLGen.Draw(t, "cc url"), want: junk} }),
			rapid.Custom(func(t *rapid.T) sample { return sample{s: labelGen.Draw(t, "label").s, want: junk} }),
			rapid.Custom(func(t *rapid.T) sample { return sample{s: rapid.String().Draw(t, "junk"), want: junk} }),
		)
	}

	revenueSpecial = rapid.SampledFrom([]float64{0, 999_999, 1_000_000, 2e6, math.Inf(1), math.NaN()})
	revenueGen     = rapid.Ptr(rapid.OneOf(revenueSpecial, revenueSpecial, rapid.Float64()), true)
)

// label is a composed label and what its words forbid.
type label struct {
	s       string
	noComm  bool // it names NonCommercial: it must never resolve to a licence permitting commercial use
	unknown bool // it names ShareAlike or NoDerivatives: it must be Unknown
}

var labelGen = rapid.Custom(func(t *rapid.T) label {
	words := rapid.SliceOfN(labelWordGen, 1, 6).Draw(t, "words")
	var b strings.Builder
	var l label
	for i, w := range words {
		if i > 0 {
			b.WriteString(separatorGen.Draw(t, "sep"))
		}
		switch rapid.IntRange(0, 2).Draw(t, "case") {
		case 1:
			w = strings.ToLower(w)
		case 2:
			w = strings.ToUpper(w)
		}
		b.WriteString(w)
		switch strings.ToLower(w) {
		case "noncommercial", "nc":
			l.noComm = true
		case "commercial":
			if i > 0 && strings.EqualFold(words[i-1], "non") {
				l.noComm = true
			}
		case "sharealike", "sa", "noderivs", "noderivatives", "nd", "share", "alike", "no":
			l.unknown = true
		}
	}
	l.s = b.String()
	return l
})

// record is a generated licence record and the id it must resolve to
// (junk when not predicted).
type record struct {
	l    foley.License
	want string
}

var recordGen = rapid.Custom(func(t *rapid.T) record {
	id := licenceStringGen(idSamples).Draw(t, "license_id")
	url := licenceStringGen(urlSamples).Draw(t, "license_url")
	l := foley.License{
		LicenseID:           id.s,
		LicenseURL:          url.s,
		CommercialOK:        rapid.Bool().Draw(t, "commercial_ok"),
		DerivativeOK:        rapid.Bool().Draw(t, "derivative_ok"),
		RedistributeOK:      rapid.Bool().Draw(t, "redistribute_ok"),
		TrainOK:             rapid.Bool().Draw(t, "train_ok"),
		AttributionRequired: rapid.Bool().Draw(t, "attribution_required"),
		RevenueCapUSD:       rapid.Ptr(rapid.Float64(), true).Draw(t, "revenue_cap_usd"),
		HasVoiceOrTrademark: rapid.Bool().Draw(t, "has_voice_or_trademark"),
		RightsVerified:      rapid.Bool().Draw(t, "rights_verified"),
	}
	want := junk
	idKnown := id.s == "" || id.want != junk
	urlKnown := url.s == "" || url.want != junk
	if idKnown && urlKnown {
		if id.s == "" && url.s == "" {
			want = license.Unknown
		} else {
			want = modelResolve(id, url)
		}
	}
	return record{l, want}
})

func useGen(commercial *bool) *rapid.Generator[foley.IntendedUse] {
	return rapid.Custom(func(t *rapid.T) foley.IntendedUse {
		u := foley.IntendedUse{
			Publish:                rapid.Bool().Draw(t, "publish"),
			RedistributeStandalone: rapid.Bool().Draw(t, "redistribute_standalone"),
			WillTrain:              rapid.Bool().Draw(t, "will_train"),
			CanAttribute:           rapid.Bool().Draw(t, "can_attribute"),
			RevenueUSD:             revenueGen.Draw(t, "revenue_usd"),
			AllowVoiceOrTrademark:  rapid.Bool().Draw(t, "allow_voice_or_trademark"),
		}
		if commercial != nil {
			u.Commercial = *commercial
		} else {
			u.Commercial = rapid.Bool().Draw(t, "commercial")
		}
		return u
	})
}

func candidatesGen() *rapid.Generator[[]record] {
	return rapid.SliceOfN(recordGen, 0, 12)
}

// TestPropertyGateCommercial: for a commercial use, Gate never returns a clip
// whose licence forbids commercial use or whose rights are unverified, and
// it returns the kept clips as an order-preserving subsequence of its input.
func TestPropertyGateCommercial(t *testing.T) {
	commercial := true
	rapid.Check(t, func(t *rapid.T) {
		recs := candidatesGen().Draw(t, "records")
		use := useGen(&commercial).Draw(t, "use")
		cands := make([]foley.Candidate, len(recs))
		for i, r := range recs {
			cands[i] = foley.Candidate{Sound: foley.SoundRecord{ID: strconv.Itoa(i), License: r.l}}
		}
		kept := license.Gate(cands, use)

		last := -1
		for _, c := range kept {
			i, err := strconv.Atoi(c.Sound.ID)
			if err != nil || i <= last || i >= len(cands) {
				t.Fatalf("kept candidate %q is out of order (after %d) or not from the input", c.Sound.ID, last)
			}
			last = i
			if !reflect.DeepEqual(c, cands[i]) {
				t.Fatalf("kept candidate %d differs from the input one:\n  %+v\n  %+v", i, c, cands[i])
			}
			if !c.Sound.License.RightsVerified {
				t.Fatalf("kept candidate %d has unverified rights: %+v", i, c.Sound.License)
			}
			id, _ := license.ResolveRecord(c.Sound.License)
			p, ok := license.Lookup(id)
			if !ok || !p.Commercial {
				t.Fatalf("kept candidate %d for commercial use under %q (row %+v, ok %v): %+v", i, id, p, ok, c.Sound.License)
			}
			if w := recs[i].want; w != junk {
				if wp, _ := license.Lookup(w); !wp.Commercial {
					t.Fatalf("kept candidate %d for commercial use; its licence should be %q: %+v", i, w, c.Sound.License)
				}
			}
		}

		nKept := 0
		for i, c := range cands {
			if c.LicenseOK == nil {
				t.Fatalf("candidate %d: LicenseOK nil after Gate", i)
			}
			if *c.LicenseOK {
				nKept++
			}
		}
		if nKept != len(kept) {
			t.Fatalf("%d candidates have LicenseOK true, Gate returned %d", nKept, len(kept))
		}
	})
}

// TestPropertyKeep: Keep never panics, decides on the id ResolveRecord
// gives, keeps only known licences with verified rights, and resolves
// the records whose licence strings are predicted to the predicted id.
func TestPropertyKeep(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := recordGen.Draw(t, "record")
		use := useGen(nil).Draw(t, "use")
		d := license.Keep(r.l, use)
		id, ok := license.ResolveRecord(r.l)
		if d.LicenseID != id {
			t.Fatalf("Keep decided on %q, ResolveRecord gives %q", d.LicenseID, id)
		}
		if !isTableID(id) || ok != (id != license.Unknown) {
			t.Fatalf("ResolveRecord = %q, %v", id, ok)
		}
		if d.OK && (id == license.Unknown || !r.l.RightsVerified) {
			t.Fatalf("Keep(%+v, %v) = %+v", r.l, use, d)
		}
		if strings.TrimSpace(d.Reason) == "" {
			t.Fatalf("Keep(%+v, %v): empty reason", r.l, use)
		}
		if r.want != junk && id != r.want {
			t.Fatalf("ResolveRecord(id %q, url %q) = %q, want %q", r.l.LicenseID, r.l.LicenseURL, id, r.want)
		}
	})
}

// TestPropertyKeepPermitsEveryPart: a kept clip's table row permits every
// part of the intended use, its revenue cap included.
func TestPropertyKeepPermitsEveryPart(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := recordGen.Draw(t, "record")
		use := useGen(nil).Draw(t, "use")
		d := license.Keep(r.l, use)
		if !d.OK {
			return
		}
		p, _ := license.Lookup(d.LicenseID)
		switch {
		case use.Commercial && !p.Commercial,
			use.Publish && !p.Derivative,
			use.RedistributeStandalone && !p.Redistribute,
			use.WillTrain && !p.Train,
			p.AttributionRequired && !use.CanAttribute,
			r.l.HasVoiceOrTrademark && !use.AllowVoiceOrTrademark:
			t.Fatalf("Keep(%+v, %v) = %+v, but row %+v forbids it", r.l, use, d, p)
		case p.RevenueCapUSD > 0 && (use.RevenueUSD == nil || !(*use.RevenueUSD < p.RevenueCapUSD)):
			t.Fatalf("Keep(%+v, %v) = %+v, but revenue %v is not under the cap %v", r.l, use, d, use, p.RevenueCapUSD)
		}
	})
}

// TestPropertyLabels: a label naming NonCommercial never resolves to a
// licence permitting commercial use, and one naming ShareAlike or
// NoDerivatives is Unknown.
func TestPropertyLabels(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		l := labelGen.Draw(t, "label")
		id, ok := license.Resolve(l.s)
		if !isTableID(id) || ok != (id != license.Unknown) {
			t.Fatalf("Resolve(%q) = %q, %v", l.s, id, ok)
		}
		if l.unknown && id != license.Unknown {
			t.Fatalf("Resolve(%q) = %q, want %q (ShareAlike or NoDerivatives)", l.s, id, license.Unknown)
		}
		if p, _ := license.Lookup(id); l.noComm && p.Commercial {
			t.Fatalf("Resolve(%q) = %q, which permits commercial use", l.s, id)
		}
	})
}

// TestPropertyNormalize: Normalize is idempotent, its flags are the table
// row's, and it does not change the gate's decision.
func TestPropertyNormalize(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := recordGen.Draw(t, "record")
		use := useGen(nil).Draw(t, "use")
		n := license.Normalize(r.l)
		if again := license.Normalize(n); !reflect.DeepEqual(again, n) {
			t.Fatalf("Normalize not idempotent:\n  %+v\n  %+v", n, again)
		}
		id, _ := license.ResolveRecord(r.l)
		p, _ := license.Lookup(id)
		if n.LicenseID != p.ID || n.CommercialOK != p.Commercial || n.DerivativeOK != p.Derivative ||
			n.RedistributeOK != p.Redistribute || n.TrainOK != p.Train || n.AttributionRequired != p.AttributionRequired ||
			(n.RevenueCapUSD == nil) != (p.RevenueCapUSD == 0) {
			t.Fatalf("Normalize(%+v) = %+v, want the row %+v", r.l, n, p)
		}
		a, b := license.Keep(r.l, use), license.Keep(n, use)
		if a.OK != b.OK || a.LicenseID != b.LicenseID {
			t.Fatalf("Keep before Normalize %+v, after %+v (record %+v)", a, b, r.l)
		}
	})
}

// TestPropertyRevenueCap: a capped licence keeps a clip only for a known
// revenue under the cap.
func TestPropertyRevenueCap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		use := useGen(nil).Draw(t, "use")
		use.Publish, use.CanAttribute = true, true
		l := foley.License{LicenseID: "Stability-Community", RightsVerified: true, RevenueCapUSD: rapid.Ptr(rapid.Float64(), true).Draw(t, "stored cap")}
		d := license.Keep(l, use)
		if d.OK && (use.RevenueUSD == nil || !(*use.RevenueUSD < 1_000_000)) {
			t.Fatalf("Keep(Stability-Community, %v) = %+v", use, d)
		}
	})
}
