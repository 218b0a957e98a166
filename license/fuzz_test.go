package license_test

import (
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/license"
)

func FuzzResolve(f *testing.F) {
	for _, cases := range [][]resolveCase{resolveURLCases, resolveLabelCases} {
		for _, tc := range cases {
			f.Add(tc.in)
		}
	}
	for _, id := range tableIDs {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, ok := license.Resolve(s)
		if !isTableID(id) {
			t.Fatalf("Resolve(%q) = %q, not a table id", s, id)
		}
		if p, found := license.Lookup(id); found != (id != license.Unknown) || p.ID != id {
			t.Fatalf("Resolve(%q) = %q; Lookup of it = %q, %v", s, id, p.ID, found)
		}
		if ok != (id != license.Unknown) {
			t.Fatalf("Resolve(%q) = %q, %v", s, id, ok)
		}
		if id2, ok2 := license.Resolve(s); id2 != id || ok2 != ok {
			t.Fatalf("Resolve(%q) is not deterministic: %q, %v then %q, %v", s, id, ok, id2, ok2)
		}
		// A table id resolves to itself.
		if id3, ok3 := license.Resolve(id); id3 != id || ok3 != ok {
			t.Fatalf("Resolve(%q) = %q, but Resolve(%q) = %q, %v", s, id, id, id3, ok3)
		}
		// The record resolver agrees when the string is the only field.
		if id4, ok4 := license.ResolveRecord(foley.License{LicenseID: s}); id4 != id || ok4 != ok {
			t.Fatalf("Resolve(%q) = %q, %v; ResolveRecord with it as id = %q, %v", s, id, ok, id4, ok4)
		}
	})
}

func FuzzKeep(f *testing.F) {
	f.Add("CC0-1.0", "", true, false, true, true, false, false, true, false, true, 0.0, false)
	f.Add("CC-BY-NC-4.0", "", true, false, true, true, false, false, true, false, true, 0.0, false)
	f.Add("", "https://creativecommons.org/licenses/by-nc/4.0/", true, false, true, false, false, false, true, false, true, 0.0, false)
	f.Add("CC-BY-4.0", "https://creativecommons.org/licenses/by/4.0/deed.en", true, false, true, true, true, true, true, false, false, 0.0, false)
	f.Add("CC0-1.0", "https://creativecommons.org/licenses/by-nc-nd/4.0/", true, true, true, true, false, false, true, true, true, 0.0, false)
	f.Add("Stability-Community", "", true, false, true, true, false, false, true, false, false, 999_999.0, true)
	f.Add("Stability-Community", "", true, false, true, true, false, false, true, false, false, 1_000_000.0, true)
	f.Add("Pixabay", "https://pixabay.com/service/license-summary/", true, false, true, true, true, true, false, false, true, 0.0, false)
	f.Add("BBC RemArc", "", true, false, false, true, false, false, true, false, false, 0.0, false)
	f.Add("Attribution NonCommercial", "http://creativecommons.org/licenses/by-nc/3.0/", false, false, false, true, false, false, true, false, true, 0.0, false)
	f.Add("user-owned", "", true, true, true, true, true, true, true, true, false, 5e9, true)
	f.Fuzz(func(t *testing.T, id, url string, rightsVerified, hasVoice, commercial, publish, redistribute, train, canAttribute, allowVoice, claimAll bool, revenue float64, hasRevenue bool) {
		l := foley.License{
			LicenseID: id, LicenseURL: url, RightsVerified: rightsVerified, HasVoiceOrTrademark: hasVoice,
			CommercialOK: claimAll, DerivativeOK: claimAll, RedistributeOK: claimAll, TrainOK: claimAll,
		}
		use := foley.IntendedUse{
			Commercial: commercial, Publish: publish, RedistributeStandalone: redistribute, WillTrain: train,
			CanAttribute: canAttribute, AllowVoiceOrTrademark: allowVoice,
		}
		if hasRevenue {
			use.RevenueUSD = &revenue
		}
		d := license.Keep(l, use)
		if d.Reason == "" {
			t.Fatalf("Keep(%+v, %v): empty reason", l, use)
		}
		rid, rok := license.ResolveRecord(l)
		if d.LicenseID != rid || !isTableID(rid) || rok != (rid != license.Unknown) {
			t.Fatalf("Keep decided on %q; ResolveRecord = %q, %v", d.LicenseID, rid, rok)
		}
		if !d.OK {
			return
		}
		if !rightsVerified {
			t.Fatalf("Keep(%+v, %v) = %+v with unverified rights", l, use, d)
		}
		if d.LicenseID == license.Unknown {
			t.Fatalf("Keep(%+v, %v) = %+v on an unknown licence", l, use, d)
		}
		p, _ := license.Lookup(d.LicenseID)
		if commercial && !p.Commercial || publish && !p.Derivative || redistribute && !p.Redistribute ||
			train && !p.Train || p.AttributionRequired && !canAttribute || hasVoice && !allowVoice {
			t.Fatalf("Keep(%+v, %v) = %+v, but row %+v forbids it", l, use, d, p)
		}
		if p.RevenueCapUSD > 0 && !hasRevenue {
			t.Fatalf("Keep(%+v, %v) = %+v without a revenue under a capped licence", l, use, d)
		}
		// Check and Gate agree with Keep.
		cands := []foley.Candidate{{Sound: foley.SoundRecord{License: l}}}
		if ds := license.Check(cands, use); len(ds) != 1 || ds[0] != d || !cands[0].Licensed() {
			t.Fatalf("Check = %+v (LicenseOK %v), Keep = %+v", ds, cands[0].LicenseOK, d)
		}
	})
}
