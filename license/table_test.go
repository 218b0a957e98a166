package license_test

import (
	"strings"
	"testing"

	"github.com/foley-audio/foley/license"
)

// tableIDs are the ids the policy table must list, Unknown last.
var tableIDs = []string{
	"CC0-1.0", "CC-BY-3.0", "CC-BY-4.0", "CC-BY-NC-3.0", "CC-BY-NC-4.0",
	"CC-Sampling+-1.0", "user-owned", "ElevenLabs-SFX", "Stability-Community",
	"Sonniss-GDC", "BBC-RemArc", "Pixabay", license.Unknown,
}

// isTableID reports whether id is the exact id of a row of the table
// (Unknown included).
func isTableID(id string) bool {
	for _, p := range license.Table() {
		if p.ID == id {
			return true
		}
	}
	return false
}

func TestTableListsEveryID(t *testing.T) {
	rows := license.Table()
	if len(rows) != len(tableIDs) {
		t.Errorf("Table() has %d rows, want %d", len(rows), len(tableIDs))
	}
	seen := map[string]bool{}
	for _, p := range rows {
		if seen[p.ID] {
			t.Errorf("id %q listed twice", p.ID)
		}
		seen[p.ID] = true
		if strings.TrimSpace(p.Note) == "" {
			t.Errorf("row %q has no note", p.ID)
		}
	}
	for _, id := range tableIDs {
		if !seen[id] {
			t.Errorf("Table() lacks %q", id)
		}
	}
	if n := len(rows); n == 0 || rows[n-1].ID != license.Unknown {
		t.Errorf("Table() does not end with %q", license.Unknown)
	}
}

func TestTableReturnsACopy(t *testing.T) {
	rows := license.Table()
	for i := range rows {
		rows[i].Commercial = true
		rows[i].ID = "mutated"
	}
	p, ok := license.Lookup("CC-BY-NC-4.0")
	if !ok || p.Commercial || p.ID != "CC-BY-NC-4.0" {
		t.Errorf("changing Table()'s result changed the table: %+v, %v", p, ok)
	}
	if license.Table()[0].ID == "mutated" {
		t.Error("Table() shares its backing array with the caller")
	}
}

func TestTableFlags(t *testing.T) {
	type flags struct {
		commercial, derivative, redistribute, train, attribution bool
		cap                                                      float64
	}
	for _, tc := range []struct {
		id   string
		want flags
	}{
		{"CC0-1.0", flags{commercial: true, derivative: true, redistribute: true, train: true}},
		{"CC-BY-3.0", flags{commercial: true, derivative: true, redistribute: true, train: true, attribution: true}},
		{"CC-BY-4.0", flags{commercial: true, derivative: true, redistribute: true, train: true, attribution: true}},
		{"CC-BY-NC-3.0", flags{derivative: true, redistribute: true, attribution: true}},
		{"CC-BY-NC-4.0", flags{derivative: true, redistribute: true, attribution: true}},
		{"CC-Sampling+-1.0", flags{commercial: true, derivative: true, attribution: true}},
		{"user-owned", flags{commercial: true, derivative: true, redistribute: true, train: true}},
		{"ElevenLabs-SFX", flags{commercial: true, derivative: true}},
		{"Stability-Community", flags{commercial: true, derivative: true, cap: 1_000_000}},
		{"Sonniss-GDC", flags{commercial: true, derivative: true}},
		{"BBC-RemArc", flags{derivative: true, attribution: true}},
		{"Pixabay", flags{commercial: true, derivative: true}},
	} {
		t.Run(tc.id, func(t *testing.T) {
			p, ok := license.Lookup(tc.id)
			if !ok {
				t.Fatalf("Lookup(%q): ok false", tc.id)
			}
			if p.ID != tc.id {
				t.Errorf("Lookup(%q).ID = %q", tc.id, p.ID)
			}
			got := flags{p.Commercial, p.Derivative, p.Redistribute, p.Train, p.AttributionRequired, p.RevenueCapUSD}
			if got != tc.want {
				t.Errorf("flags = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestTableLicenceFamilies(t *testing.T) {
	for _, id := range []string{"CC-BY-NC-3.0", "CC-BY-NC-4.0"} {
		if p, _ := license.Lookup(id); p.Commercial {
			t.Errorf("%s permits commercial use", id)
		}
	}
	for _, id := range []string{"CC0-1.0", "CC-BY-3.0", "CC-BY-4.0"} {
		if p, _ := license.Lookup(id); !p.Commercial {
			t.Errorf("%s forbids commercial use", id)
		}
	}
	for _, id := range []string{"CC-BY-3.0", "CC-BY-4.0", "CC-BY-NC-3.0", "CC-BY-NC-4.0"} {
		if p, _ := license.Lookup(id); !p.AttributionRequired {
			t.Errorf("%s does not require attribution", id)
		}
	}
	if p, _ := license.Lookup("CC0-1.0"); p.AttributionRequired {
		t.Error("CC0-1.0 requires attribution")
	}
	// Only Stability-Community is capped.
	for _, p := range license.Table() {
		if p.RevenueCapUSD != 0 && p.ID != "Stability-Community" {
			t.Errorf("%s has revenue cap %v", p.ID, p.RevenueCapUSD)
		}
	}
}

func TestLookupUnknownAndUnlisted(t *testing.T) {
	for _, id := range []string{
		license.Unknown, "UNKNOWN", "CC-BY-SA-4.0", "CC-BY-ND-4.0", "CC-BY-NC-SA-4.0",
		"CC-BY-NC-ND-4.0", "CC-BY-2.0", "GPL-3.0", "MIT", "", "   ", "-", "CC", "CC-BY",
	} {
		t.Run(id, func(t *testing.T) {
			p, ok := license.Lookup(id)
			if ok {
				t.Fatalf("Lookup(%q) = %+v, ok true; want the unknown row", id, p)
			}
			if p.ID != license.Unknown {
				t.Errorf("Lookup(%q).ID = %q, want %q", id, p.ID, license.Unknown)
			}
			if p.Permissions != (license.Permissions{}) {
				t.Errorf("Lookup(%q) permissions = %+v, want all false", id, p.Permissions)
			}
		})
	}
}

func TestLookupIgnoresCaseAndPunctuation(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"cc-by-4.0", "CC-BY-4.0"},
		{"CC BY 4.0", "CC-BY-4.0"},
		{"cc_by_nc_3.0", "CC-BY-NC-3.0"},
		{"BBC RemArc", "BBC-RemArc"},
		{"bbc-remarc", "BBC-RemArc"},
		{"USER-OWNED", "user-owned"},
		{"elevenlabs sfx", "ElevenLabs-SFX"},
		{"stability community", "Stability-Community"},
		{"sonniss gdc", "Sonniss-GDC"},
		{"pixabay", "Pixabay"},
		{"cc0-1.0", "CC0-1.0"},
		{"cc-sampling+-1.0", "CC-Sampling+-1.0"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			p, ok := license.Lookup(tc.in)
			if !ok || p.ID != tc.want {
				t.Errorf("Lookup(%q) = %q, %v; want %q, true", tc.in, p.ID, ok, tc.want)
			}
		})
	}
}

func TestDeed(t *testing.T) {
	for id, want := range map[string][2]string{
		"CC0-1.0":      {"CC0 1.0 Universal", "https://creativecommons.org/publicdomain/zero/1.0/"},
		"CC-BY-4.0":    {"Creative Commons Attribution 4.0 International (CC BY 4.0)", "https://creativecommons.org/licenses/by/4.0/"},
		"CC-BY-NC-3.0": {"Creative Commons Attribution-NonCommercial 3.0 Unported (CC BY-NC 3.0)", "https://creativecommons.org/licenses/by-nc/3.0/"},
		"Pixabay":      {"Pixabay", "https://pixabay.com/service/license/"},
	} {
		name, url := license.Deed(id, "https://pixabay.com/service/license/")
		if name != want[0] || (id != "Pixabay" && url != want[1]) || (id == "Pixabay" && url != want[1]) {
			t.Errorf("Deed(%s) = %q, %q; want %q", id, name, url, want)
		}
	}
}
