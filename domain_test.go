package foley_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/foley-audio/foley"
)

func TestVerifyLevelOrderAndParse(t *testing.T) {
	if !(foley.LevelClap < foley.LevelListen && foley.LevelListen < foley.LevelJudge) {
		t.Fatal("levels are not ordered clap < listen < judge")
	}
	for _, tc := range []struct {
		in   string
		want foley.VerifyLevel
	}{
		{"clap", foley.LevelClap}, {"listen", foley.LevelListen}, {"judge", foley.LevelJudge},
		{" Listen ", foley.LevelListen}, {"JUDGE", foley.LevelJudge},
	} {
		got, err := foley.ParseVerifyLevel(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseVerifyLevel(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if got.String() != strings.ToLower(strings.TrimSpace(tc.in)) {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
	for _, bad := range []string{"listn", "", "clap,listen", "0", "2"} {
		_, err := foley.ParseVerifyLevel(bad)
		if err == nil {
			t.Errorf("ParseVerifyLevel(%q): no error", bad)
			continue
		}
		if foley.CodeOf(err) != foley.Invalid {
			t.Errorf("ParseVerifyLevel(%q): code %q, want invalid", bad, foley.CodeOf(err))
		}
		if msg := err.Error(); !strings.Contains(msg, "clap, listen, judge") || !strings.Contains(msg, "verify level") {
			t.Errorf("ParseVerifyLevel(%q) error %q does not name the valid levels", bad, msg)
		}
	}
	if foley.VerifyLevel(0).Valid() || foley.VerifyLevel(7).Valid() {
		t.Error("invalid levels report Valid")
	}
	if _, err := foley.VerifyLevel(7).MarshalText(); err == nil {
		t.Error("MarshalText of level 7: no error")
	}
}

func TestOriginAndLayer(t *testing.T) {
	if o, err := foley.ParseOrigin("generated"); err != nil || o != foley.OriginGenerated {
		t.Errorf("ParseOrigin(generated) = %v, %v", o, err)
	}
	if foley.Origin(0) != foley.OriginRetrieved || foley.OriginRetrieved.String() != "retrieved" {
		t.Error("the zero Origin is not retrieved")
	}
	b, _ := json.Marshal(foley.Candidate{Sound: foley.SoundRecord{ID: "x"}})
	if !bytes.Contains(b, []byte(`"origin":"retrieved"`)) {
		t.Errorf("zero origin marshals as %s", b)
	}
	if _, err := foley.ParseLayer("ambient"); err == nil || !strings.Contains(err.Error(), "ambience, foley, sfx, music, dialogue") {
		t.Errorf("ParseLayer(ambient) error = %v", err)
	}
}

// TestPythonCandidateRoundTrip decodes a Candidate as the Python project
// writes it (nulls, extra fields) and checks it survives encoding and
// decoding again.
func TestPythonCandidateRoundTrip(t *testing.T) {
	data, err := os.ReadFile("testdata/python_candidate.json")
	if err != nil {
		t.Fatal(err)
	}
	var c foley.Candidate
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatalf("decode: %v", err)
	}
	switch {
	case c.Sound.ID != "fs-417362" || c.Sound.License.LicenseID != "CC0-1.0" || !c.Sound.License.RightsVerified:
		t.Errorf("sound decoded wrong: %+v", c.Sound)
	case c.ClapScore == nil || *c.ClapScore != 0.412:
		t.Errorf("clap_score = %v", c.ClapScore)
	case c.BM25Score != nil || c.RerankScore != nil:
		t.Error("null scores decoded as present")
	case c.Verdict == nil || c.Verdict.Level != foley.LevelClap || !c.Verdict.Match:
		t.Errorf("verdict = %+v", c.Verdict)
	case !c.Licensed():
		t.Error("license_ok true decoded as not licensed")
	case c.Event == nil || c.Event.Layer != foley.LayerSFX || !c.Event.IsDiegetic() || *c.Event.Salience != 0.8:
		t.Errorf("event = %+v", c.Event)
	}
	out, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"clap_score":0.412`, `"license_ok":true`, `"content_sha256"`, `"ucs_catid":"DOORWood"`, `"level":"clap"`, `"rights_verified":true`} {
		if !bytes.Contains(out, []byte(key)) {
			t.Errorf("re-encoded JSON lacks %s: %s", key, out)
		}
	}
	for _, absent := range []string{`"bm25_score"`, `"rerank_score"`, `"generation_seed"`} {
		if bytes.Contains(out, []byte(absent)) {
			t.Errorf("re-encoded JSON has absent field %s", absent)
		}
	}
	var back foley.Candidate
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, back) {
		t.Errorf("round trip changed the candidate:\n%+v\n%+v", c, back)
	}
}

func TestAbsentScoresStayAbsent(t *testing.T) {
	for _, in := range []string{
		`{"sound":{"id":"a"}}`,
		`{"sound":{"id":"a"},"clap_score":null}`,
	} {
		var c foley.Candidate
		if err := json.Unmarshal([]byte(in), &c); err != nil {
			t.Fatal(err)
		}
		if c.ClapScore != nil || c.LicenseOK != nil || c.Verdict != nil {
			t.Errorf("%s: absent values decoded as present: %+v", in, c)
		}
	}
	var c foley.Candidate
	if err := json.Unmarshal([]byte(`{"sound":{"id":"a"},"clap_score":0}`), &c); err != nil || c.ClapScore == nil || *c.ClapScore != 0 {
		t.Errorf("a zero clap_score is not kept as 0: %v %v", c.ClapScore, err)
	}
}

func TestSoundRecordTagsNeverNull(t *testing.T) {
	b, err := json.Marshal(foley.SoundRecord{ID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"tags":[]`)) {
		t.Errorf("nil tags marshal as %s", b)
	}
}

func TestDiegeticDefaultsToTrue(t *testing.T) {
	var e foley.SoundEvent
	if err := json.Unmarshal([]byte(`{"query":"a stinger"}`), &e); err != nil {
		t.Fatal(err)
	}
	if !e.IsDiegetic() || !foley.NewEvent("x").IsDiegetic() {
		t.Error("an event that does not say is not diegetic")
	}
	if err := json.Unmarshal([]byte(`{"query":"a stinger","diegetic":false}`), &e); err != nil || e.IsDiegetic() {
		t.Errorf("diegetic false decoded as %v (%v)", e.IsDiegetic(), err)
	}
}

func TestBadValuesNameTheField(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"sound":{"id":"a"},"verdict":{"match":true,"confidence":0.5,"reason":"","level":"listn"}}`, `verdict.level`},
		{`{"sound":{"id":"a"},"verdict":{"match":true,"confidence":1.5,"reason":"","level":"clap"}}`, `verdict.confidence`},
		{`{"sound":{"id":"a"},"verdict":{"match":true,"confidence":-0.1,"reason":"","level":"clap"}}`, `verdict.confidence`},
		{`{"sound":{"id":"a"},"origin":"found"}`, `origin`},
		{`{"sound":{"id":"a"},"event":{"query":"q","layer":"bed"}}`, `event.layer`},
		{`{"sound":{"id":"a"},"event":{"query":"q","salience":2}}`, `event.salience`},
		{`{"sound":{"id":"a"},"event":{"query":"q","onset":-1}}`, `event.onset`},
		{`{"sound":{"id":"a","duration_s":-2}}`, `sound.duration_s`},
		{`{"sound":{"id":"a"},"clap_score":"high"}`, `clap_score`},
		{`{"sound":{"id":"a","license":{"rights_verified":"yes"}}}`, `sound.license.rights_verified`},
	} {
		var c foley.Candidate
		err := json.Unmarshal([]byte(tc.in), &c)
		if err == nil {
			t.Errorf("%s: no error", tc.in)
			continue
		}
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) || te.Field != tc.want {
			t.Errorf("%s: error %v does not name field %s", tc.in, err, tc.want)
		}
	}
	var c foley.Candidate
	err := json.Unmarshal([]byte(`{"sound":{"id":"a"},"verdict":{"level":"listn"}}`), &c)
	if err == nil || !strings.Contains(err.Error(), "clap, listen, judge") {
		t.Errorf("bad level error %v does not list the valid levels", err)
	}
}

func TestUnknownFieldsIgnored(t *testing.T) {
	var c foley.Candidate
	in := `{"sound":{"id":"a","mystery":{"x":[1,2]}},"extra":true,"verdict":{"match":false,"confidence":0,"reason":"r","level":"judge","cost_usd":0.01}}`
	if err := json.Unmarshal([]byte(in), &c); err != nil {
		t.Fatalf("unknown fields: %v", err)
	}
	if c.Verdict.Level != foley.LevelJudge {
		t.Errorf("level = %v", c.Verdict.Level)
	}
}

func TestEventValidate(t *testing.T) {
	if err := foley.NewEvent("").Validate(); foley.CodeOf(err) != foley.Invalid {
		t.Errorf("empty query: %v", err)
	}
	e := foley.NewEvent("door")
	e.Salience = new(1.5)
	if err := e.Validate(); err == nil || !strings.Contains(err.Error(), "salience") {
		t.Errorf("salience 1.5: %v", err)
	}
	if err := foley.NewEvent("door").Validate(); err != nil {
		t.Errorf("valid event: %v", err)
	}
}

func TestErrorCodes(t *testing.T) {
	base := errors.New("disk on fire")
	for _, tc := range []struct {
		err  error
		want foley.ErrorCode
	}{
		{nil, ""},
		{base, foley.Internal},
		{foley.Errorf(foley.Invalid, "bad %s", "x"), foley.Invalid},
		{foley.WrapError(foley.Unavailable, base), foley.Unavailable},
		{errors.Join(errors.New("ctx"), foley.Errorf(foley.NotFound, "no sound")), foley.NotFound},
	} {
		if got := foley.CodeOf(tc.err); got != tc.want {
			t.Errorf("CodeOf(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
	wrapped := foley.Errorf(foley.Unavailable, "judge: %w", base)
	if !errors.Is(wrapped, base) || wrapped.Error() != "judge: disk on fire" {
		t.Errorf("Errorf %%w: %v (Is=%v)", wrapped, errors.Is(wrapped, base))
	}
	if foley.WrapError(foley.Invalid, nil) != nil {
		t.Error("WrapError(nil) is not nil")
	}
}

func TestParseIntendedUse(t *testing.T) {
	def := foley.DefaultUse()
	if def.String() != "commercial,publish,attribute" {
		t.Errorf("DefaultUse().String() = %q", def.String())
	}
	for _, tc := range []struct {
		in   string
		want foley.IntendedUse
	}{
		{"commercial,publish,attribute", def},
		{"none", foley.IntendedUse{}},
		{" Commercial , will_train,can_attribute", foley.IntendedUse{Commercial: true, WillTrain: true, CanAttribute: true}},
		{"redistribute,voice,revenue=250000", foley.IntendedUse{RedistributeStandalone: true, AllowVoiceOrTrademark: true, RevenueUSD: new(250000.0)}},
		{"revenue_usd=0", foley.IntendedUse{RevenueUSD: new(0.0)}},
	} {
		got, err := foley.ParseIntendedUse(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseIntendedUse(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			continue
		}
		again, err := foley.ParseIntendedUse(got.String())
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("String() %q does not parse back: %+v %v", got.String(), again, err)
		}
	}
	for _, bad := range []string{"", "comercial", "revenue=-1", "revenue=lots", "budget=3", "revenue=NaN"} {
		if _, err := foley.ParseIntendedUse(bad); foley.CodeOf(err) != foley.Invalid {
			t.Errorf("ParseIntendedUse(%q) = %v, want an invalid error", bad, err)
		}
	}
}

func TestCandidateCloneIsDeep(t *testing.T) {
	orig := foley.Candidate{
		Sound: foley.SoundRecord{ID: "a", Tags: []string{"door"},
			License: foley.License{RevenueCapUSD: new(1.0), GenerationSeed: new(int64(7))}},
		Event:     &foley.SoundEvent{Query: "q", Diegetic: new(true), Salience: new(0.5), Onset: new(1.0), AudioSet: []string{"Door"}},
		ClapScore: new(0.5), BM25Score: new(1.0), RRFScore: new(0.1), RerankScore: new(0.2),
		Verdict:   &foley.Verdict{Match: true, Confidence: 0.9},
		LicenseOK: new(true),
	}
	want, _ := json.Marshal(orig)
	cp := orig.Clone()
	cp.Sound.Tags[0] = "x"
	*cp.Sound.License.RevenueCapUSD = 9
	*cp.Sound.License.GenerationSeed = 9
	cp.Event.Query = "x"
	*cp.Event.Diegetic = false
	*cp.Event.Salience = 0
	*cp.Event.Onset = 9
	cp.Event.AudioSet[0] = "x"
	*cp.ClapScore, *cp.BM25Score, *cp.RRFScore, *cp.RerankScore = 9, 9, 9, 9
	cp.Verdict.Confidence = 0
	*cp.LicenseOK = false
	if got, _ := json.Marshal(orig); !bytes.Equal(got, want) {
		t.Errorf("changing the clone changed the original:\n%s\n%s", want, got)
	}
}
