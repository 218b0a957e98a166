package license_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/license"
)

func ptr[T any](v T) *T { return &v }

// verified returns a licence record with verified rights.
func verified(id string) foley.License {
	return foley.License{LicenseID: id, RightsVerified: true}
}

func TestNormalize(t *testing.T) {
	const by4 = "https://creativecommons.org/licenses/by/4.0/"
	for _, tc := range []struct {
		name string
		in   foley.License
		want foley.License // only LicenseID, LicenseURL and the derived flags are compared
	}{
		{
			name: "canonical id and flags",
			in:   foley.License{LicenseID: "cc-by-4.0"},
			want: foley.License{LicenseID: "CC-BY-4.0", CommercialOK: true, DerivativeOK: true, RedistributeOK: true, TrainOK: true, AttributionRequired: true},
		},
		{
			name: "label",
			in:   foley.License{LicenseID: "Creative Commons 0"},
			want: foley.License{LicenseID: "CC0-1.0", CommercialOK: true, DerivativeOK: true, RedistributeOK: true, TrainOK: true},
		},
		{
			name: "url only",
			in:   foley.License{LicenseURL: "http://creativecommons.org/licenses/by-nc/3.0/"},
			want: foley.License{LicenseID: "CC-BY-NC-3.0", LicenseURL: "http://creativecommons.org/licenses/by-nc/3.0/", DerivativeOK: true, RedistributeOK: true, AttributionRequired: true},
		},
		{
			name: "url given as id moves to license_url",
			in:   foley.License{LicenseID: " " + by4 + " "},
			want: foley.License{LicenseID: "CC-BY-4.0", LicenseURL: by4, CommercialOK: true, DerivativeOK: true, RedistributeOK: true, TrainOK: true, AttributionRequired: true},
		},
		{
			name: "url given as id does not replace license_url",
			in:   foley.License{LicenseID: by4, LicenseURL: by4 + "legalcode"},
			want: foley.License{LicenseID: "CC-BY-4.0", LicenseURL: by4 + "legalcode", CommercialOK: true, DerivativeOK: true, RedistributeOK: true, TrainOK: true, AttributionRequired: true},
		},
		{
			name: "unknown url given as id is kept",
			in:   foley.License{LicenseID: "https://creativecommons.org/licenses/by-sa/4.0/"},
			want: foley.License{LicenseID: license.Unknown, LicenseURL: "https://creativecommons.org/licenses/by-sa/4.0/"},
		},
		{
			name: "stored flags are reset",
			in: foley.License{LicenseID: "CC-BY-NC-4.0", CommercialOK: true, TrainOK: true,
				RevenueCapUSD: ptr(5.0)},
			want: foley.License{LicenseID: "CC-BY-NC-4.0", DerivativeOK: true, RedistributeOK: true, AttributionRequired: true},
		},
		{
			name: "revenue cap",
			in:   foley.License{LicenseID: "stability community"},
			want: foley.License{LicenseID: "Stability-Community", CommercialOK: true, DerivativeOK: true, RevenueCapUSD: ptr(1_000_000.0)},
		},
		{
			name: "unknown resets everything",
			in: foley.License{LicenseID: "CC-BY-SA-4.0", CommercialOK: true, DerivativeOK: true,
				RedistributeOK: true, TrainOK: true, AttributionRequired: true, RevenueCapUSD: ptr(1.0)},
			want: foley.License{LicenseID: license.Unknown},
		},
		{
			name: "disagreeing id and url",
			in:   foley.License{LicenseID: "CC0-1.0", LicenseURL: "https://creativecommons.org/licenses/by-nc-nd/4.0/", CommercialOK: true},
			want: foley.License{LicenseID: license.Unknown, LicenseURL: "https://creativecommons.org/licenses/by-nc-nd/4.0/"},
		},
		{
			name: "empty",
			in:   foley.License{},
			want: foley.License{LicenseID: license.Unknown},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := license.Normalize(tc.in)
			derived := func(l foley.License) foley.License {
				return foley.License{
					LicenseID: l.LicenseID, LicenseURL: l.LicenseURL,
					CommercialOK: l.CommercialOK, DerivativeOK: l.DerivativeOK, RedistributeOK: l.RedistributeOK,
					TrainOK: l.TrainOK, AttributionRequired: l.AttributionRequired, RevenueCapUSD: l.RevenueCapUSD,
				}
			}
			if g := derived(got); !reflect.DeepEqual(g, tc.want) {
				t.Errorf("Normalize(%+v) =\n  %+v\nwant\n  %+v", tc.in, g, tc.want)
			}
		})
	}
}

func TestNormalizeKeepsOtherFields(t *testing.T) {
	seed := int64(7)
	in := foley.License{
		Source: "freesound", SourceID: "123", SourceURL: "https://freesound.org/s/123/",
		LicenseID: "Attribution", Creator: "someone", Title: "door", Attribution: "door by someone",
		HasVoiceOrTrademark: true, RightsVerified: true, IsAIGenerated: true,
		Generator: "x/y", GenerationPrompt: "a door", GenerationSeed: &seed,
	}
	got := license.Normalize(in)
	want := in
	want.LicenseID = "CC-BY-4.0"
	want.CommercialOK, want.DerivativeOK, want.RedistributeOK, want.TrainOK, want.AttributionRequired = true, true, true, true, true
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Normalize =\n  %+v\nwant\n  %+v", got, want)
	}
}

func TestNormalizeFlagsMatchTable(t *testing.T) {
	for _, p := range license.Table() {
		t.Run(p.ID, func(t *testing.T) {
			got := license.Normalize(foley.License{LicenseID: p.ID, CommercialOK: !p.Commercial, TrainOK: !p.Train})
			if got.LicenseID != p.ID || got.CommercialOK != p.Commercial || got.DerivativeOK != p.Derivative ||
				got.RedistributeOK != p.Redistribute || got.TrainOK != p.Train || got.AttributionRequired != p.AttributionRequired {
				t.Errorf("Normalize(%q) = %+v, want the flags of %+v", p.ID, got, p)
			}
			switch {
			case p.RevenueCapUSD == 0 && got.RevenueCapUSD != nil:
				t.Errorf("RevenueCapUSD = %v, want nil", *got.RevenueCapUSD)
			case p.RevenueCapUSD != 0 && (got.RevenueCapUSD == nil || *got.RevenueCapUSD != p.RevenueCapUSD):
				t.Errorf("RevenueCapUSD = %v, want %v", got.RevenueCapUSD, p.RevenueCapUSD)
			}
			if again := license.Normalize(got); !reflect.DeepEqual(again, got) {
				t.Errorf("Normalize is not idempotent: %+v then %+v", got, again)
			}
		})
	}
}

func TestNormalizeCapIsNotShared(t *testing.T) {
	a := license.Normalize(foley.License{LicenseID: "Stability-Community"})
	*a.RevenueCapUSD = 1
	b := license.Normalize(foley.License{LicenseID: "Stability-Community"})
	if b.RevenueCapUSD == nil || *b.RevenueCapUSD != 1_000_000 {
		t.Errorf("changing one record's cap changed another's: %v", b.RevenueCapUSD)
	}
	if p, _ := license.Lookup("Stability-Community"); p.RevenueCapUSD != 1_000_000 {
		t.Errorf("changing a record's cap changed the table: %v", p.RevenueCapUSD)
	}
}

func TestKeep(t *testing.T) {
	none := foley.IntendedUse{}
	commercial := foley.IntendedUse{Commercial: true}
	attribute := foley.IntendedUse{CanAttribute: true}
	publish := foley.IntendedUse{Publish: true}
	publishCredited := foley.IntendedUse{Publish: true, CanAttribute: true}
	redistribute := foley.IntendedUse{RedistributeStandalone: true}
	train := foley.IntendedUse{WillTrain: true}
	noCredit := foley.IntendedUse{Commercial: true, Publish: true, CanAttribute: false}
	withRevenue := func(r *float64) foley.IntendedUse {
		return foley.IntendedUse{Commercial: true, Publish: true, CanAttribute: true, RevenueUSD: r}
	}
	voiceOK := foley.IntendedUse{AllowVoiceOrTrademark: true}

	for _, tc := range []struct {
		name   string
		l      foley.License
		use    foley.IntendedUse
		wantOK bool
		wantID string
		reason []string // substrings the reason must hold
	}{
		// Rights.
		{"unverified cc0", foley.License{LicenseID: "CC0-1.0"}, none, false, "CC0-1.0", []string{"rights not verified"}},
		{"unverified user-owned", foley.License{LicenseID: "user-owned", CommercialOK: true}, foley.DefaultUse(), false, "user-owned", []string{"rights not verified"}},
		{"unverified unknown", foley.License{LicenseID: "GPL-3.0"}, none, false, license.Unknown, []string{"rights not verified"}},

		// Unknown licences.
		{"unknown id", verified("CC-BY-SA-4.0"), none, false, license.Unknown, []string{"CC-BY-SA-4.0", "not in the policy table"}},
		{"unknown url", foley.License{LicenseURL: "https://creativecommons.org/licenses/by-nd/4.0/", RightsVerified: true}, none, false, license.Unknown, []string{"by-nd/4.0"}},
		{"no licence", foley.License{RightsVerified: true}, none, false, license.Unknown, []string{"no licence"}},
		{"literal unknown", verified("unknown"), none, false, license.Unknown, []string{"unknown"}},
		{"disagreeing id and url", foley.License{LicenseID: "CC0-1.0", LicenseURL: "https://creativecommons.org/licenses/by-nc-nd/4.0/", RightsVerified: true}, none, false, license.Unknown, []string{"CC0-1.0"}},

		// Nothing asked.
		{"attribute only cc-by-nc", verified("CC-BY-NC-4.0"), attribute, true, "CC-BY-NC-4.0", []string{"CC-BY-NC-4.0"}},
		{"attribute only bbc", verified("BBC-RemArc"), attribute, true, "BBC-RemArc", []string{"BBC-RemArc"}},
		{"no use cc0", verified("CC0-1.0"), none, true, "CC0-1.0", []string{"CC0-1.0"}},

		// Commercial.
		{"commercial nc 3.0", verified("CC-BY-NC-3.0"), commercial, false, "CC-BY-NC-3.0", []string{"CC-BY-NC-3.0", "commercial"}},
		{"commercial nc 4.0", verified("cc-by-nc-4.0"), commercial, false, "CC-BY-NC-4.0", []string{"CC-BY-NC-4.0", "commercial"}},
		{"commercial nc url", foley.License{LicenseURL: "https://creativecommons.org/licenses/by-nc/4.0/", RightsVerified: true}, commercial, false, "CC-BY-NC-4.0", []string{"CC-BY-NC-4.0", "commercial"}},
		{"commercial bbc", verified("BBC-RemArc"), commercial, false, "BBC-RemArc", []string{"BBC-RemArc", "commercial"}},
		{"commercial cc0", verified("CC0-1.0"), commercial, true, "CC0-1.0", []string{"CC0-1.0"}},
		{"commercial cc-by (can attribute)", verified("CC-BY-4.0"), foley.IntendedUse{Commercial: true, CanAttribute: true}, true, "CC-BY-4.0", []string{"CC-BY-4.0"}},
		{"commercial sampling+", verified("Sampling+"), foley.IntendedUse{Commercial: true, CanAttribute: true}, true, "CC-Sampling+-1.0", nil},
		{"nc claiming commercial", foley.License{LicenseID: "CC-BY-NC-4.0", CommercialOK: true, DerivativeOK: true, TrainOK: true, RedistributeOK: true, RightsVerified: true}, commercial, false, "CC-BY-NC-4.0", []string{"commercial"}},

		// Publish needs the derivative permission.
		{"publish bbc", verified("BBC-RemArc"), publishCredited, true, "BBC-RemArc", nil},
		{"publish cc0", verified("CC0-1.0"), publish, true, "CC0-1.0", nil},
		{"publish unknown", verified("CC-BY-ND-4.0"), publish, false, license.Unknown, []string{"CC-BY-ND-4.0"}},

		// Standalone redistribution.
		{"redistribute sonniss", verified("Sonniss-GDC"), redistribute, false, "Sonniss-GDC", []string{"Sonniss-GDC", "redistribution"}},
		{"redistribute pixabay", verified("Pixabay"), redistribute, false, "Pixabay", []string{"Pixabay", "redistribution"}},
		{"redistribute elevenlabs", verified("ElevenLabs-SFX"), redistribute, false, "ElevenLabs-SFX", []string{"ElevenLabs-SFX", "redistribution"}},
		{"redistribute stability", verified("Stability-Community"), foley.IntendedUse{RedistributeStandalone: true, RevenueUSD: ptr(0.0)}, false, "Stability-Community", []string{"redistribution"}},
		{"redistribute sampling+", verified("CC-Sampling+-1.0"), foley.IntendedUse{RedistributeStandalone: true, CanAttribute: true}, false, "CC-Sampling+-1.0", []string{"redistribution"}},
		{"redistribute cc0", verified("CC0-1.0"), redistribute, true, "CC0-1.0", nil},
		{"redistribute user-owned", verified("user-owned"), redistribute, true, "user-owned", nil},

		// Training.
		{"train nc", verified("CC-BY-NC-4.0"), foley.IntendedUse{WillTrain: true, CanAttribute: true}, false, "CC-BY-NC-4.0", []string{"training"}},
		{"train sonniss", verified("Sonniss-GDC"), train, false, "Sonniss-GDC", []string{"Sonniss-GDC", "training"}},
		{"train pixabay", verified("Pixabay"), train, false, "Pixabay", []string{"Pixabay", "training"}},
		{"train elevenlabs", verified("ElevenLabs-SFX"), train, false, "ElevenLabs-SFX", []string{"training"}},
		{"train cc0", verified("CC0-1.0"), train, true, "CC0-1.0", nil},
		{"train cc-by", verified("CC-BY-3.0"), foley.IntendedUse{WillTrain: true, CanAttribute: true}, true, "CC-BY-3.0", nil},
		{"nc claiming train", foley.License{LicenseID: "CC-BY-NC-3.0", TrainOK: true, RightsVerified: true}, foley.IntendedUse{WillTrain: true, CanAttribute: true}, false, "CC-BY-NC-3.0", []string{"training"}},

		// Several refusals are named together.
		{"nc commercial and training", verified("CC-BY-NC-4.0"), foley.IntendedUse{Commercial: true, WillTrain: true, CanAttribute: true}, false, "CC-BY-NC-4.0", []string{"commercial", "training"}},

		// Attribution.
		{"cc-by cannot attribute", verified("CC-BY-4.0"), noCredit, false, "CC-BY-4.0", []string{"CC-BY-4.0", "attribution"}},
		{"cc-by-nc cannot attribute", verified("CC-BY-NC-4.0"), foley.IntendedUse{}, false, "CC-BY-NC-4.0", []string{"attribution"}},
		{"bbc cannot attribute", verified("BBC-RemArc"), publish, false, "BBC-RemArc", []string{"BBC-RemArc", "attribution"}},
		{"cc0 cannot attribute", verified("CC0-1.0"), noCredit, true, "CC0-1.0", nil},
		{"pixabay cannot attribute", verified("Pixabay"), noCredit, true, "Pixabay", nil},
		{"cc-by can attribute", verified("CC-BY-4.0"), foley.DefaultUse(), true, "CC-BY-4.0", []string{"credit"}},

		// Revenue cap.
		{"stability revenue nil", verified("Stability-Community"), withRevenue(nil), false, "Stability-Community", []string{"Stability-Community", "revenue", "1,000,000"}},
		{"stability revenue 0", verified("Stability-Community"), withRevenue(ptr(0.0)), true, "Stability-Community", nil},
		{"stability revenue 999999", verified("Stability-Community"), withRevenue(ptr(999_999.0)), true, "Stability-Community", nil},
		{"stability revenue 1000000", verified("Stability-Community"), withRevenue(ptr(1_000_000.0)), false, "Stability-Community", []string{"Stability-Community", "1,000,000"}},
		{"stability revenue 2e6", verified("Stability-Community"), withRevenue(ptr(2e6)), false, "Stability-Community", []string{"2,000,000"}},
		{"stability revenue +Inf", verified("Stability-Community"), withRevenue(ptr(math.Inf(1))), false, "Stability-Community", nil},
		{"uncapped revenue nil", verified("CC0-1.0"), withRevenue(nil), true, "CC0-1.0", nil},
		{"uncapped revenue huge", verified("Pixabay"), withRevenue(ptr(1e12)), true, "Pixabay", nil},

		// Voices and trademarks.
		{"voice not allowed", foley.License{LicenseID: "CC0-1.0", HasVoiceOrTrademark: true, RightsVerified: true}, none, false, "CC0-1.0", []string{"voice"}},
		{"voice allowed", foley.License{LicenseID: "CC0-1.0", HasVoiceOrTrademark: true, RightsVerified: true}, voiceOK, true, "CC0-1.0", nil},
		{"no voice, not allowed", verified("CC0-1.0"), none, true, "CC0-1.0", nil},
		{"no voice, allowed", verified("CC0-1.0"), voiceOK, true, "CC0-1.0", nil},

		// Everything at once.
		{"cc0 everything", foley.License{LicenseID: "http://creativecommons.org/publicdomain/zero/1.0/", HasVoiceOrTrademark: true, RightsVerified: true},
			foley.IntendedUse{Commercial: true, Publish: true, RedistributeStandalone: true, WillTrain: true, AllowVoiceOrTrademark: true, RevenueUSD: ptr(5e9)},
			true, "CC0-1.0", []string{"CC0-1.0"}},
		{"user-owned everything", verified("user-owned"),
			foley.IntendedUse{Commercial: true, Publish: true, RedistributeStandalone: true, WillTrain: true, CanAttribute: true},
			true, "user-owned", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := license.Keep(tc.l, tc.use)
			if d.OK != tc.wantOK || d.LicenseID != tc.wantID {
				t.Errorf("Keep(%+v, %v) = %+v; want OK %v, LicenseID %q", tc.l, tc.use, d, tc.wantOK, tc.wantID)
			}
			if strings.TrimSpace(d.Reason) == "" {
				t.Errorf("Keep(%+v, %v): empty reason", tc.l, tc.use)
			}
			for _, s := range tc.reason {
				if !strings.Contains(strings.ToLower(d.Reason), strings.ToLower(s)) {
					t.Errorf("Keep(%+v, %v).Reason = %q, want it to mention %q", tc.l, tc.use, d.Reason, s)
				}
			}
		})
	}
}

// TestKeepUnverifiedReason checks the exact reason for unverified rights,
// whatever the licence and use.
func TestKeepUnverifiedReason(t *testing.T) {
	for _, p := range license.Table() {
		t.Run(p.ID, func(t *testing.T) {
			d := license.Keep(foley.License{LicenseID: p.ID, CommercialOK: true, DerivativeOK: true, RedistributeOK: true, TrainOK: true},
				foley.IntendedUse{CanAttribute: true, AllowVoiceOrTrademark: true, RevenueUSD: ptr(0.0)})
			if d.OK || d.Reason != "rights not verified" || d.LicenseID != p.ID {
				t.Errorf("Keep(unverified %s) = %+v; want refused with reason %q", p.ID, d, "rights not verified")
			}
		})
	}
}

// TestKeepIgnoresStoredFlags checks that the decision depends only on the
// licence, not on the permission flags a record claims for itself.
func TestKeepIgnoresStoredFlags(t *testing.T) {
	uses := []foley.IntendedUse{
		{}, {Commercial: true}, {Publish: true}, {RedistributeStandalone: true}, {WillTrain: true},
		{CanAttribute: true}, foley.DefaultUse(),
		{Commercial: true, Publish: true, RedistributeStandalone: true, WillTrain: true, CanAttribute: true, RevenueUSD: ptr(10.0)},
	}
	for _, p := range license.Table() {
		t.Run(p.ID, func(t *testing.T) {
			bare := verified(p.ID)
			for _, claim := range []bool{false, true} {
				l := bare
				l.CommercialOK, l.DerivativeOK, l.RedistributeOK, l.TrainOK = claim, claim, claim, claim
				l.AttributionRequired = !claim
				l.RevenueCapUSD = ptr(1e15)
				if !claim {
					l.RevenueCapUSD = nil
				}
				for _, use := range uses {
					if got, want := license.Keep(l, use), license.Keep(bare, use); got != want {
						t.Errorf("Keep with stored flags %v, use %v = %+v; without = %+v", claim, use, got, want)
					}
				}
			}
		})
	}
}

// TestKeepRevenueNaNFailsClosed: a revenue that is not a number is not under
// the cap, so a capped licence must refuse it as it refuses an unknown
// (nil) revenue.
func TestKeepRevenueNaNFailsClosed(t *testing.T) {
	use := foley.IntendedUse{Commercial: true, Publish: true, CanAttribute: true, RevenueUSD: ptr(math.NaN())}
	if d := license.Keep(verified("Stability-Community"), use); d.OK {
		t.Errorf("Keep(Stability-Community, revenue NaN) = %+v; want refused", d)
	}
}

func candidates(ls ...foley.License) []foley.Candidate {
	out := make([]foley.Candidate, len(ls))
	for i, l := range ls {
		out[i] = foley.Candidate{Sound: foley.SoundRecord{ID: string(rune('a' + i)), License: l}, Origin: foley.OriginRetrieved}
	}
	return out
}

func TestCheck(t *testing.T) {
	cands := candidates(
		verified("CC0-1.0"),
		verified("CC-BY-NC-4.0"),
		foley.License{LicenseID: "CC-BY-4.0"}, // unverified
		verified("CC-BY-SA-4.0"),
		verified("CC-BY-4.0"),
		foley.License{},
	)
	// A stale verdict from an earlier gate must be overwritten.
	cands[1].LicenseOK = ptr(true)
	cands[0].LicenseOK = ptr(false)
	use := foley.DefaultUse()
	ds := license.Check(cands, use)
	if len(ds) != len(cands) {
		t.Fatalf("Check returned %d decisions for %d candidates", len(ds), len(cands))
	}
	wantOK := []bool{true, false, false, false, true, false}
	for i, c := range cands {
		if c.LicenseOK == nil {
			t.Errorf("candidate %d: LicenseOK is nil", i)
			continue
		}
		if *c.LicenseOK != wantOK[i] || ds[i].OK != wantOK[i] {
			t.Errorf("candidate %d (%q): LicenseOK %v, decision %+v; want %v", i, c.Sound.License.LicenseID, *c.LicenseOK, ds[i], wantOK[i])
		}
		if want := license.Keep(c.Sound.License, use); ds[i] != want {
			t.Errorf("candidate %d: Check decision %+v, Keep %+v", i, ds[i], want)
		}
		if c.Licensed() != wantOK[i] {
			t.Errorf("candidate %d: Licensed() = %v", i, c.Licensed())
		}
	}
	// Every candidate has its own bool.
	*cands[0].LicenseOK = false
	if !*cands[4].LicenseOK {
		t.Error("candidates share one LicenseOK pointer")
	}
}

func TestCheckEmpty(t *testing.T) {
	for _, cands := range [][]foley.Candidate{nil, {}} {
		if ds := license.Check(cands, foley.DefaultUse()); len(ds) != 0 {
			t.Errorf("Check(%v) = %v, want empty", cands, ds)
		}
	}
}

func TestGate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		licences []foley.License
		use      foley.IntendedUse
		wantIDs  []string // the sound ids kept, in order
	}{
		{"nil", nil, foley.DefaultUse(), nil},
		{"all kept", []foley.License{verified("CC0-1.0"), verified("CC-BY-4.0"), verified("Pixabay")}, foley.DefaultUse(), []string{"a", "b", "c"}},
		{"none kept", []foley.License{verified("CC-BY-NC-4.0"), {LicenseID: "CC0-1.0"}, verified("GPL-3.0")}, foley.DefaultUse(), nil},
		{"mixed keeps order", []foley.License{
			verified("CC-BY-NC-3.0"), verified("user-owned"), {LicenseID: "CC0-1.0"}, verified("Sonniss-GDC"),
			verified("BBC-RemArc"), verified("CC-BY-3.0"), verified("CC-BY-ND-4.0"), verified("ElevenLabs-SFX"),
		}, foley.DefaultUse(), []string{"b", "d", "f", "h"}},
		{"training", []foley.License{
			verified("Sonniss-GDC"), verified("CC0-1.0"), verified("Pixabay"), verified("CC-BY-4.0"), verified("CC-BY-NC-4.0"),
		}, foley.IntendedUse{WillTrain: true, CanAttribute: true}, []string{"b", "d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cands []foley.Candidate
			if tc.licences != nil {
				cands = candidates(tc.licences...)
			}
			kept := license.Gate(cands, tc.use)
			var got []string
			for _, c := range kept {
				got = append(got, c.Sound.ID)
				if c.LicenseOK == nil || !*c.LicenseOK {
					t.Errorf("kept candidate %s has LicenseOK %v", c.Sound.ID, c.LicenseOK)
				}
			}
			if !reflect.DeepEqual(got, tc.wantIDs) {
				t.Errorf("Gate kept %v, want %v", got, tc.wantIDs)
			}
			keptSet := map[string]bool{}
			for _, id := range got {
				keptSet[id] = true
			}
			for _, c := range cands {
				if c.LicenseOK == nil {
					t.Errorf("input candidate %s: LicenseOK nil after Gate", c.Sound.ID)
					continue
				}
				if *c.LicenseOK != keptSet[c.Sound.ID] {
					t.Errorf("input candidate %s: LicenseOK %v, kept %v", c.Sound.ID, *c.LicenseOK, keptSet[c.Sound.ID])
				}
			}
		})
	}
}

func TestGateEmpty(t *testing.T) {
	for _, cands := range [][]foley.Candidate{nil, {}} {
		if kept := license.Gate(cands, foley.DefaultUse()); len(kept) != 0 {
			t.Errorf("Gate(%v) = %v, want empty", cands, kept)
		}
	}
}

// TestGateKeepsCandidateFields checks that a kept candidate is the input
// candidate, with only LicenseOK set.
func TestGateKeepsCandidateFields(t *testing.T) {
	ev := foley.NewEvent("door slam")
	c := foley.Candidate{
		Sound:       foley.SoundRecord{ID: "x", URI: "file:///x.wav", Caption: "door", License: verified("CC0-1.0")},
		Origin:      foley.OriginRetrieved,
		Event:       &ev,
		ClapScore:   ptr(0.5),
		Verdict:     &foley.Verdict{Match: true, Confidence: 0.9, Reason: "r"},
		PreviewURI:  "p",
		RerankScore: ptr(0.1),
	}
	in := []foley.Candidate{c}
	kept := license.Gate(in, foley.DefaultUse())
	if len(kept) != 1 {
		t.Fatalf("Gate kept %d candidates, want 1", len(kept))
	}
	want := c
	want.LicenseOK = ptr(true)
	if !reflect.DeepEqual(kept[0], want) {
		t.Errorf("kept candidate =\n  %+v\nwant\n  %+v", kept[0], want)
	}
}

// TestGateRefusesForgedFlags checks that a candidate whose record claims
// every permission is still refused when its licence forbids the use.
func TestGateRefusesForgedFlags(t *testing.T) {
	forged := foley.License{
		LicenseID: "CC-BY-NC-4.0", RightsVerified: true,
		CommercialOK: true, DerivativeOK: true, RedistributeOK: true, TrainOK: true,
	}
	cands := candidates(forged)
	if kept := license.Gate(cands, foley.IntendedUse{Commercial: true, CanAttribute: true}); len(kept) != 0 {
		t.Errorf("Gate kept a forged NC record for commercial use: %+v", kept)
	}
	if cands[0].LicenseOK == nil || *cands[0].LicenseOK {
		t.Errorf("LicenseOK = %v, want false", cands[0].LicenseOK)
	}
}
