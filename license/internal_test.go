package license

import (
	"strings"
	"testing"

	"github.com/foley-audio/foley"
)

// withRow adds p to the lookup index for the duration of the test. No row
// of the real table lacks the derivative permission (only Unknown does, and
// Unknown is refused before permissions are read), so this is how the
// publish check is seen failing on its own.
func withRow(t *testing.T, p Policy) {
	t.Helper()
	k := key(p.ID)
	if _, ok := byKey[k]; ok {
		t.Fatalf("row %q already exists", p.ID)
	}
	byKey[k] = p
	t.Cleanup(func() { delete(byKey, k) })
}

func TestKeepPublishNeedsDerivative(t *testing.T) {
	withRow(t, Policy{ID: "Test-NoDerivative", Permissions: Permissions{Commercial: true, Redistribute: true, Train: true}})
	l := foley.License{LicenseID: "test-noderivative", RightsVerified: true}
	all := foley.IntendedUse{Commercial: true, RedistributeStandalone: true, WillTrain: true, CanAttribute: true}

	for _, tc := range []struct {
		name   string
		use    foley.IntendedUse
		wantOK bool
	}{
		{"without publish", all, true},
		{"publish only", foley.IntendedUse{Publish: true}, false},
		{"publish with everything else permitted", func() foley.IntendedUse { u := all; u.Publish = true; return u }(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Keep(l, tc.use)
			if d.OK != tc.wantOK || d.LicenseID != "Test-NoDerivative" {
				t.Fatalf("Keep(%v) = %+v, want OK %v on Test-NoDerivative", tc.use, d, tc.wantOK)
			}
			if !tc.wantOK && (!strings.Contains(d.Reason, "published work") || !strings.Contains(d.Reason, "Test-NoDerivative")) {
				t.Errorf("Keep(%v).Reason = %q, want it to name the published-work use and the id", tc.use, d.Reason)
			}
		})
	}
}

func TestUSD(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0"}, {999, "999"}, {1000, "1,000"}, {999_999, "999,999"}, {1_000_000, "1,000,000"},
		{2e6, "2,000,000"}, {1234567.6, "1,234,568"}, {-1000, "-1,000"}, {-100, "-100"},
	} {
		if got := usd(tc.in); got != tc.want {
			t.Errorf("usd(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
