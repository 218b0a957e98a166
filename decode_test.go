package foley_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/foley-audio/foley"
)

func TestDecodeCandidates(t *testing.T) {
	array := `[
  {"sound": {"id": "a", "caption": "door slam"}, "clap_score": 0.5},
  {"sound": {"id": "b"}, "origin": "generated"}
]`
	lines := `{"sound": {"id": "a", "caption": "door slam"}, "clap_score": 0.5}
{"sound": {"id": "b"}, "origin": "generated"}
`
	for name, in := range map[string]string{"array": array, "json lines": lines} {
		got, err := foley.DecodeCandidates(strings.NewReader(in), "list.json")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != 2 || got[0].Sound.ID != "a" || *got[0].ClapScore != 0.5 || got[1].Origin != foley.OriginGenerated || got[1].ClapScore != nil {
			t.Errorf("%s: decoded %+v", name, got)
		}
	}
	if got, err := foley.DecodeCandidates(strings.NewReader(" [ ] "), "x"); err != nil || len(got) != 0 {
		t.Errorf("empty array: %v %v", got, err)
	}
}

func TestDecodeCandidatesErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"empty", "  \n", []string{"list.json", "empty"}},
		{"syntax", "[\n  {\"sound\": {\"id\": \"a\"},}\n]", []string{"list.json:2:", "invalid JSON"}},
		{"truncated", `[{"sound": {"id": "a"}`, []string{"list.json", "unexpected end"}},
		{"bad level", "[\n{\"sound\":{\"id\":\"a\"}},\n{\"sound\":{\"id\":\"b\"},\"verdict\":{\"level\":\"listn\"}}\n]",
			[]string{"candidate 2", "line 3", "verdict.level", `"listn"`, "clap, listen, judge"}},
		{"wrong type", `[{"sound":{"id":"a"},"clap_score":"high"}]`, []string{"candidate 1", "clap_score", "got string, want number"}},
		{"not objects", `[1]`, []string{"candidate 1", "got number, want object"}},
		{"no id", `{"candidates": [{"sound": {"id": "a"}}]}`, []string{"candidate 1", "sound.id is empty"}},
		{"trailing data", `[{"sound":{"id":"a"}}] [`, []string{"after the array"}},
		{"scalar", `"door"`, []string{"list.json", "want object"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := foley.DecodeCandidates(strings.NewReader(tc.in), "list.json")
			if err == nil {
				t.Fatal("no error")
			}
			if foley.CodeOf(err) != foley.Invalid {
				t.Errorf("code %q, want invalid", foley.CodeOf(err))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func FuzzParseVerifyLevel(f *testing.F) {
	for _, s := range []string{"clap", "listen", "judge", "listn", "", "JUDGE", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := foley.ParseVerifyLevel(s)
		if err != nil {
			if l != 0 {
				t.Errorf("error with level %v", l)
			}
			return
		}
		if !l.Valid() {
			t.Errorf("ParseVerifyLevel(%q) = invalid %d without error", s, l)
		}
		back, err := foley.ParseVerifyLevel(l.String())
		if err != nil || back != l {
			t.Errorf("%v does not round-trip: %v %v", l, back, err)
		}
	})
}

func FuzzDecodeCandidates(f *testing.F) {
	for _, s := range []string{
		`[{"sound":{"id":"a","tags":["x"]},"clap_score":0.4,"verdict":{"match":true,"confidence":1,"reason":"r","level":"listen"},"license_ok":true}]`,
		`{"sound":{"id":"a"},"origin":"generated","event":{"query":"q","diegetic":false,"salience":0.2}}`,
		`[{"sound":{"id":"a"},"verdict":{"level":"listn"}}]`,
		`[1, "x", null]`, `[`, ``, `{}`, `[{"sound":{"id":"a","duration_s":1e400}}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cands, err := foley.DecodeCandidates(strings.NewReader(s), "fuzz")
		if err != nil {
			if foley.CodeOf(err) != foley.Invalid {
				t.Errorf("decode error is %q, not invalid: %v", foley.CodeOf(err), err)
			}
			return
		}
		if len(cands) == 0 {
			return
		}
		// What decodes must encode and decode to the same values.
		out, err := json.Marshal(cands)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		back, err := foley.DecodeCandidates(strings.NewReader(string(out)), "re-encoded")
		if err != nil {
			t.Fatalf("decode re-encoded %s: %v", out, err)
		}
		if !reflect.DeepEqual(normalise(cands), normalise(back)) {
			t.Errorf("round trip changed the candidates:\n%s", out)
		}
	})
}

// normalise makes nil and empty slices compare equal.
func normalise(cs []foley.Candidate) []foley.Candidate {
	out := make([]foley.Candidate, len(cs))
	for i, c := range cs {
		if c.Sound.Tags == nil {
			c.Sound.Tags = []string{}
		}
		if c.Event != nil {
			e := *c.Event
			if len(e.AudioSet) == 0 {
				e.AudioSet = nil
			}
			c.Event = &e
		}
		out[i] = c
	}
	return out
}

func TestDecodeEvents(t *testing.T) {
	evs, err := foley.DecodeEvents(strings.NewReader(`[{"query": "door slam", "layer": "sfx"}, {"query": "rain", "diegetic": false}]`), "e.json")
	if err != nil || len(evs) != 2 || evs[0].Layer != foley.LayerSFX || evs[1].IsDiegetic() {
		t.Fatalf("%+v %v", evs, err)
	}
	evs, err = foley.DecodeEvents(strings.NewReader("{\"query\": \"a\"}\n{\"query\": \"b\"}\n"), "e.ndjson")
	if err != nil || len(evs) != 2 || evs[1].Query != "b" {
		t.Fatalf("NDJSON: %+v %v", evs, err)
	}
	for in, want := range map[string]string{
		``:                                  "empty",
		`[{"query": ""}]`:                   "event 1 (line 1): query is empty",
		`[{"query": "a", "layer": "loud"}]`: "event 1 (line 1): field layer",
		`[{"query": "a"`:                    "unexpected end",
	} {
		if _, err := foley.DecodeEvents(strings.NewReader(in), "e.json"); err == nil || !strings.Contains(err.Error(), want) || foley.CodeOf(err) != foley.Invalid {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}
