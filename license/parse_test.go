package license_test

import (
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/license"
)

type resolveCase struct {
	name string
	in   string
	want string // a table id; license.Unknown means ok must be false
}

// resolveURLCases are Creative Commons URLs as sources report them, and URLs
// that only look like them.
var resolveURLCases = []resolveCase{
	// As sources report them.
	{"cc0 http", "http://creativecommons.org/publicdomain/zero/1.0/", "CC0-1.0"},
	{"cc0 https", "https://creativecommons.org/publicdomain/zero/1.0/", "CC0-1.0"},
	{"by-nc 4.0", "https://creativecommons.org/licenses/by-nc/4.0/", "CC-BY-NC-4.0"},
	{"by-nc 3.0", "http://creativecommons.org/licenses/by-nc/3.0/", "CC-BY-NC-3.0"},
	{"by 3.0", "http://creativecommons.org/licenses/by/3.0/", "CC-BY-3.0"},
	{"by 4.0 http", "http://creativecommons.org/licenses/by/4.0/", "CC-BY-4.0"},
	{"by 4.0 https", "https://creativecommons.org/licenses/by/4.0/", "CC-BY-4.0"},
	{"sampling+", "http://creativecommons.org/licenses/sampling+/1.0/", "CC-Sampling+-1.0"},
	{"sampling percent-encoded", "http://creativecommons.org/licenses/sampling%2B/1.0/", "CC-Sampling+-1.0"},
	{"sampling percent-encoded lower", "http://creativecommons.org/licenses/sampling%2b/1.0/", "CC-Sampling+-1.0"},

	// Normalised spellings.
	{"upper-case scheme and host", "HTTPS://CreativeCommons.ORG/licenses/by/4.0", "CC-BY-4.0"},
	{"upper-case path", "https://creativecommons.org/LICENSES/BY-NC/4.0/", "CC-BY-NC-4.0"},
	{"www", "https://www.creativecommons.org/licenses/by/4.0/", "CC-BY-4.0"},
	{"no trailing slash", "https://creativecommons.org/licenses/by/4.0", "CC-BY-4.0"},
	{"double slashes", "https://creativecommons.org//licenses//by/4.0//", "CC-BY-4.0"},
	{"legalcode", "https://creativecommons.org/licenses/by/4.0/legalcode", "CC-BY-4.0"},
	{"legalcode.en", "https://creativecommons.org/licenses/by-nc/4.0/legalcode.en", "CC-BY-NC-4.0"},
	{"deed.en", "https://creativecommons.org/licenses/by/4.0/deed.en", "CC-BY-4.0"},
	{"deed.en cc0", "https://creativecommons.org/publicdomain/zero/1.0/deed.en", "CC0-1.0"},
	{"deed", "https://creativecommons.org/licenses/by/3.0/deed", "CC-BY-3.0"},
	{"scheme-less", "creativecommons.org/licenses/by/3.0/", "CC-BY-3.0"},
	{"scheme-less www", "www.creativecommons.org/licenses/by/3.0/", "CC-BY-3.0"},
	{"scheme-less upper case", "CreativeCommons.org/licenses/by/3.0/", "CC-BY-3.0"},
	{"scheme-relative", "//creativecommons.org/licenses/by/4.0/", "CC-BY-4.0"},
	{"query", "https://creativecommons.org/licenses/by/4.0/?ref=chooser", "CC-BY-4.0"},
	{"fragment", "https://creativecommons.org/licenses/by/4.0/#sa", "CC-BY-4.0"},
	{"query and fragment", "https://creativecommons.org/licenses/by-nc/4.0/deed.en?x=1#nc", "CC-BY-NC-4.0"},
	{"port", "https://creativecommons.org:443/licenses/by/4.0/", "CC-BY-4.0"},
	{"surrounding space", "  https://creativecommons.org/licenses/by/4.0/\n", "CC-BY-4.0"},

	// Whole segments only.
	{"by-nc is not by", "https://creativecommons.org/licenses/by-nc/4.0/", "CC-BY-NC-4.0"},
	{"extra segments", "https://creativecommons.org/licenses/by/4.0/extra/segments", license.Unknown},
	{"byx", "https://creativecommons.org/licenses/byx/4.0", license.Unknown},
	{"version 4.0.1", "https://creativecommons.org/licenses/by/4.0.1", license.Unknown},
	{"version 2.0", "https://creativecommons.org/licenses/by/2.0/", license.Unknown},
	{"no version", "https://creativecommons.org/licenses/by/", license.Unknown},
	{"licenses only", "https://creativecommons.org/licenses/", license.Unknown},
	{"host only", "https://creativecommons.org/", license.Unknown},
	{"host only no slash", "https://creativecommons.org", license.Unknown},
	{"prefix segment", "https://creativecommons.org/x/licenses/by/4.0/", license.Unknown},
	{"dot segment", "https://creativecommons.org/licenses/by-nc/../by/4.0/", license.Unknown},
	{"cc0 wrong version", "https://creativecommons.org/publicdomain/zero/2.0/", license.Unknown},
	{"public domain mark", "https://creativecommons.org/publicdomain/mark/1.0/", license.Unknown},
	{"sampling without plus", "https://creativecommons.org/licenses/sampling/1.0/", license.Unknown},
	{"nc-sampling+", "https://creativecommons.org/licenses/nc-sampling+/1.0/", license.Unknown},
	{"two suffixes", "https://creativecommons.org/licenses/by/4.0/deed.en/legalcode", license.Unknown},

	// ShareAlike and NoDerivatives.
	{"by-sa 3.0", "https://creativecommons.org/licenses/by-sa/3.0/", license.Unknown},
	{"by-sa 4.0", "https://creativecommons.org/licenses/by-sa/4.0/", license.Unknown},
	{"by-nd 3.0", "https://creativecommons.org/licenses/by-nd/3.0/", license.Unknown},
	{"by-nd 4.0", "https://creativecommons.org/licenses/by-nd/4.0/", license.Unknown},
	{"by-nc-sa 3.0", "https://creativecommons.org/licenses/by-nc-sa/3.0/", license.Unknown},
	{"by-nc-sa 4.0", "https://creativecommons.org/licenses/by-nc-sa/4.0/", license.Unknown},
	{"by-nc-nd 3.0", "https://creativecommons.org/licenses/by-nc-nd/3.0/", license.Unknown},
	{"by-nc-nd 4.0", "https://creativecommons.org/licenses/by-nc-nd/4.0/", license.Unknown},
	{"by-nd-nc 1.0", "https://creativecommons.org/licenses/by-nd-nc/1.0/", license.Unknown},
	{"by-sa legalcode", "https://creativecommons.org/licenses/by-sa/4.0/legalcode", license.Unknown},

	// Foreign and lookalike hosts.
	{"suffix host", "https://creativecommons.org.evil.com/licenses/by/4.0/", license.Unknown},
	{"prefix host", "https://evilcreativecommons.org/licenses/by/4.0/", license.Unknown},
	{"subdomain", "https://evil.creativecommons.org/licenses/by/4.0/", license.Unknown},
	{"host in path", "https://evil.com/creativecommons.org/licenses/by/4.0/", license.Unknown},
	{"userinfo", "https://user@creativecommons.org/licenses/by/4.0/", license.Unknown},
	{"userinfo host lookalike", "https://creativecommons.org@evil.com/licenses/by/4.0/", license.Unknown},
	{"ftp", "ftp://creativecommons.org/licenses/by/4.0/", license.Unknown},
	{"file", "file://creativecommons.org/licenses/by/4.0/", license.Unknown},
	{"javascript-ish", "javascript://creativecommons.org/licenses/by/4.0/", license.Unknown},
	{"creativecommons.net", "https://creativecommons.net/licenses/by/4.0/", license.Unknown},
	{"bad escape", "https://creativecommons.org/licenses/by/4.0/%zz", license.Unknown},
	{"pixabay page", "https://pixabay.com/service/license-summary/", license.Unknown},
	{"label with URL", "Attribution (see https://creativecommons.org/licenses/by/4.0/)", license.Unknown},

	// Ported licences fail closed.
	{"ported us", "https://creativecommons.org/licenses/by/3.0/us/", license.Unknown},
	{"ported de", "https://creativecommons.org/licenses/by-nc/3.0/de/", license.Unknown},
	{"ported legalcode", "https://creativecommons.org/licenses/by/3.0/us/legalcode", license.Unknown},
}

// resolveLabelCases are labels and table ids as sources report them.
var resolveLabelCases = []resolveCase{
	{"Creative Commons 0", "Creative Commons 0", "CC0-1.0"},
	{"CC0 1.0 Universal", "CC0 1.0 Universal", "CC0-1.0"},
	{"CC0", "CC0", "CC0-1.0"},
	{"cc0 lower", "cc0", "CC0-1.0"},
	{"CC0 1.0", "CC0 1.0", "CC0-1.0"},
	{"Attribution", "Attribution", "CC-BY-4.0"},
	{"Attribution NonCommercial", "Attribution NonCommercial", "CC-BY-NC-4.0"},
	{"Attribution Noncommercial", "Attribution Noncommercial", "CC-BY-NC-4.0"},
	{"Attribution Non-Commercial", "Attribution Non-Commercial", "CC-BY-NC-4.0"},
	{"Attribution Non Commercial", "Attribution Non Commercial", "CC-BY-NC-4.0"},
	{"BY-NC 4.0 full", "Attribution-NonCommercial 4.0 International (CC BY-NC 4.0)", "CC-BY-NC-4.0"},
	{"Attribution 3.0 Unported", "Attribution 3.0 Unported", "CC-BY-3.0"},
	{"Attribution 4.0 International", "Attribution 4.0 International", "CC-BY-4.0"},
	{"CC BY 3.0", "CC BY 3.0", "CC-BY-3.0"},
	{"Attribution-NonCommercial 3.0 Unported", "Attribution-NonCommercial 3.0 Unported", "CC-BY-NC-3.0"},
	{"Creative Commons Attribution 4.0", "Creative Commons Attribution 4.0 International License", "CC-BY-4.0"},
	{"version without .0", "Attribution 3", "CC-BY-3.0"},
	{"Sampling+", "Sampling+", "CC-Sampling+-1.0"},
	{"Sampling Plus 1.0", "Sampling Plus 1.0", "CC-Sampling+-1.0"},
	{"Sampling+ 1.0", "Sampling+ 1.0", "CC-Sampling+-1.0"},

	{"Sampling alone", "Sampling", license.Unknown},
	{"Sampling 1.0", "Sampling 1.0", license.Unknown},
	{"Sampling+ 2.0", "Sampling+ 2.0", license.Unknown},
	{"NC Sampling+", "NonCommercial Sampling+", license.Unknown},
	{"Attribution 2.0", "Attribution 2.0", license.Unknown},
	{"Attribution 2.5", "Attribution 2.5", license.Unknown},
	{"Attribution 3.0 4.0", "Attribution 3.0 4.0", license.Unknown},
	{"Attribution 4.0.1", "Attribution 4.0.1", license.Unknown},
	{"CC0 2.0", "CC0 2.0", license.Unknown},
	{"Public Domain", "Public Domain", license.Unknown},
	{"Public Domain Mark", "Public Domain Mark 1.0", license.Unknown},
	{"NonCommercial alone", "NonCommercial", license.Unknown},
	{"Creative Commons alone", "Creative Commons", license.Unknown},
	{"CC alone", "CC", license.Unknown},
	{"version alone", "4.0", license.Unknown},
	{"CC0 and Attribution", "CC0 Attribution", license.Unknown},
	{"All rights reserved", "All rights reserved", license.Unknown},
	{"Attribution plus junk", "Attribution foo", license.Unknown},
	{"Attribution 4.0 Ported", "Attribution 4.0 Germany", license.Unknown},
	{"unknown", "unknown", license.Unknown},
	{"empty", "", license.Unknown},
	{"blank", " \t\n", license.Unknown},
	{"GPL-3.0", "GPL-3.0", license.Unknown},

	// ShareAlike and NoDerivatives labels.
	{"Attribution-ShareAlike", "Attribution-ShareAlike", license.Unknown},
	{"Attribution Share Alike 4.0", "Attribution Share Alike 4.0", license.Unknown},
	{"Attribution-NoDerivs", "Attribution-NoDerivs 3.0 Unported", license.Unknown},
	{"Attribution No Derivatives", "Attribution No Derivatives", license.Unknown},
	{"Attribution-NoDerivatives 4.0", "Attribution-NoDerivatives 4.0 International", license.Unknown},
	{"BY-NC-SA full", "Attribution-NonCommercial-ShareAlike 4.0 International (CC BY-NC-SA 4.0)", license.Unknown},
	{"BY-NC-ND", "Attribution-NonCommercial-NoDerivatives 4.0 International", license.Unknown},
	{"CC BY-SA 4.0", "CC BY-SA 4.0", license.Unknown},
	{"CC BY-ND 4.0", "CC BY-ND 4.0", license.Unknown},
	{"CC BY-NC-SA 3.0", "CC BY-NC-SA 3.0", license.Unknown},
	{"CC BY-NC-ND 3.0", "CC BY-NC-ND 3.0", license.Unknown},
	{"CC-BY-SA-4.0 id", "CC-BY-SA-4.0", license.Unknown},
	{"CC-BY-ND-4.0 id", "CC-BY-ND-4.0", license.Unknown},
	{"CC-BY-NC-SA-4.0 id", "CC-BY-NC-SA-4.0", license.Unknown},
	{"CC-BY-NC-ND-4.0 id", "CC-BY-NC-ND-4.0", license.Unknown},
	{"CC-BY-NC-ND-3.0 id", "cc-by-nc-nd-3.0", license.Unknown},

	// Table ids in any case.
	{"cc-by-4.0", "cc-by-4.0", "CC-BY-4.0"},
	{"CC-BY-4.0", "CC-BY-4.0", "CC-BY-4.0"},
	{"cc-by-nc-3.0", "cc-by-nc-3.0", "CC-BY-NC-3.0"},
	{"CC0-1.0", "CC0-1.0", "CC0-1.0"},
	{"CC-Sampling+-1.0", "cc-sampling+-1.0", "CC-Sampling+-1.0"},
	{"BBC RemArc", "BBC RemArc", "BBC-RemArc"},
	{"bbc-remarc", "bbc-remarc", "BBC-RemArc"},
	{"user-owned", "User-Owned", "user-owned"},
	{"ElevenLabs-SFX", "elevenlabs-sfx", "ElevenLabs-SFX"},
	{"Stability-Community", "STABILITY-COMMUNITY", "Stability-Community"},
	{"Sonniss-GDC", "sonniss-gdc", "Sonniss-GDC"},
	{"Pixabay", "PIXABAY", "Pixabay"},
	{"id with spaces", "  CC-BY-4.0  ", "CC-BY-4.0"},
}

func TestResolve(t *testing.T) {
	for _, group := range []struct {
		name  string
		cases []resolveCase
	}{{"url", resolveURLCases}, {"label", resolveLabelCases}} {
		t.Run(group.name, func(t *testing.T) {
			for _, tc := range group.cases {
				t.Run(tc.name, func(t *testing.T) {
					id, ok := license.Resolve(tc.in)
					wantOK := tc.want != license.Unknown
					if id != tc.want || ok != wantOK {
						t.Errorf("Resolve(%q) = %q, %v; want %q, %v", tc.in, id, ok, tc.want, wantOK)
					}
				})
			}
		})
	}
}

// TestResolveTableIDs checks that every table id resolves to itself.
func TestResolveTableIDs(t *testing.T) {
	for _, p := range license.Table() {
		t.Run(p.ID, func(t *testing.T) {
			id, ok := license.Resolve(p.ID)
			if id != p.ID || ok != (p.ID != license.Unknown) {
				t.Errorf("Resolve(%q) = %q, %v", p.ID, id, ok)
			}
		})
	}
}

// TestResolveNonASCIIFailsClosed: a label or id with a word the parser does
// not understand is Unknown, even when that word is not ASCII. Dropping
// non-ASCII letters silently turns a NonCommercial, ShareAlike or
// NoDerivatives licence written with non-ASCII letters (full-width letters,
// homoglyphs, another language) into plain CC-BY, which permits commercial
// use.
func TestResolveNonASCIIFailsClosed(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"full-width NC in id", "CC-BY-ＮＣ-4.0"},
		{"full-width SA in id", "CC BY-ＳＡ 4.0"},
		{"Cyrillic homoglyph NC in id", "CC-BY-\u041d\u0421-4.0"},
		{"Greek Nu and D-with-stroke ND in id", "CC-BY-\u039d\u0110-4.0"},
		{"Japanese non-commercial in label", "Attribution 非営利"},
		{"Russian non-commercial in label", "Attribution Некоммерческая 4.0"},
		{"accented word in label", "Attribution Ñç"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, ok := license.Resolve(tc.in)
			if ok || id != license.Unknown {
				t.Errorf("Resolve(%q) = %q, %v; want %q, false", tc.in, id, ok, license.Unknown)
			}
		})
	}
}

// TestResolveBareZeroIsNotCC0: "0" alone names no Creative Commons licence
// (it is, for one, Flickr's licence id for All Rights Reserved), so it must
// not resolve to CC0-1.0; "Creative Commons 0" and "CC0" do.
func TestResolveBareZeroIsNotCC0(t *testing.T) {
	for _, in := range []string{"0", "License 0", "0 1.0"} {
		t.Run(in, func(t *testing.T) {
			id, ok := license.Resolve(in)
			if ok || id != license.Unknown {
				t.Errorf("Resolve(%q) = %q, %v; want %q, false", in, id, ok, license.Unknown)
			}
		})
	}
}

func TestIsCreativeCommonsURL(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"https://creativecommons.org/licenses/by/4.0/", true},
		{"http://www.creativecommons.org/licenses/by-sa/4.0/", true},
		{"HTTPS://CreativeCommons.ORG/licenses/by/4.0", true},
		{"creativecommons.org/licenses/by/3.0/", true},
		{"//creativecommons.org/licenses/by/4.0/", true},
		{"https://creativecommons.org/", true},
		{"https://creativecommons.org/licenses/by/3.0/us/", true},
		{"https://creativecommons.org.evil.com/licenses/by/4.0/", false},
		{"https://evil.com/creativecommons.org/licenses/by/4.0/", false},
		{"https://user@creativecommons.org/licenses/by/4.0/", false},
		{"ftp://creativecommons.org/licenses/by/4.0/", false},
		{"https://pixabay.com/service/license-summary/", false},
		{"CC-BY-4.0", false},
		{"", false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := license.IsCreativeCommonsURL(tc.in); got != tc.want {
				t.Errorf("IsCreativeCommonsURL(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestResolveRecord(t *testing.T) {
	const (
		by4    = "https://creativecommons.org/licenses/by/4.0/"
		byNC4  = "https://creativecommons.org/licenses/by-nc/4.0/"
		cc0URL = "http://creativecommons.org/publicdomain/zero/1.0/"
	)
	for _, tc := range []struct {
		name    string
		id, url string
		want    string
	}{
		{"id only", "CC-BY-4.0", "", "CC-BY-4.0"},
		{"id in other case", "cc-by-nc-4.0", "", "CC-BY-NC-4.0"},
		{"id label", "Attribution NonCommercial", "", "CC-BY-NC-4.0"},
		{"url only", "", byNC4, "CC-BY-NC-4.0"},
		{"url only cc0", "", cc0URL, "CC0-1.0"},
		{"url only unknown", "", "https://creativecommons.org/licenses/by-sa/4.0/", license.Unknown},
		{"url only foreign", "", "https://pixabay.com/service/license-summary/", license.Unknown},
		{"neither", "", "", license.Unknown},
		{"id and agreeing url", "CC-BY-4.0", by4 + "deed.en", "CC-BY-4.0"},
		{"label and agreeing url", "Attribution NonCommercial", byNC4, "CC-BY-NC-4.0"},
		{"id cc0 url nd", "CC0-1.0", "https://creativecommons.org/licenses/by-nc-nd/4.0/", license.Unknown},
		{"id by url nc", "CC-BY-4.0", byNC4, license.Unknown},
		{"id nc url by", "CC-BY-NC-4.0", by4, license.Unknown},
		{"id by4 url by3", "CC-BY-4.0", "https://creativecommons.org/licenses/by/3.0/", license.Unknown},
		{"id by url ported", "CC-BY-3.0", "https://creativecommons.org/licenses/by/3.0/us/", license.Unknown},
		{"id unknown url by", "GPL-3.0", by4, license.Unknown},
		{"id unknown url none", "CC-BY-SA-4.0", "", license.Unknown},
		{"non-cc id with cc url", "Pixabay", by4, license.Unknown},
		{"pixabay page does not override", "Pixabay", "https://pixabay.com/service/license-summary/", "Pixabay"},
		{"foreign url does not override", "CC-BY-4.0", "https://example.com/licenses/by-nc/4.0/", "CC-BY-4.0"},
		{"lookalike url does not override", "CC0-1.0", "https://creativecommons.org.evil.com/licenses/by-nc/4.0/", "CC0-1.0"},
		{"id is a cc url", by4, "", "CC-BY-4.0"},
		{"id is a cc url, url agrees", byNC4, byNC4 + "legalcode", "CC-BY-NC-4.0"},
		{"id is a foreign url", "https://pixabay.com/service/license-summary/", "", license.Unknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, ok := license.ResolveRecord(foley.License{LicenseID: tc.id, LicenseURL: tc.url})
			wantOK := tc.want != license.Unknown
			if id != tc.want || ok != wantOK {
				t.Errorf("ResolveRecord(id %q, url %q) = %q, %v; want %q, %v", tc.id, tc.url, id, ok, tc.want, wantOK)
			}
		})
	}
}
