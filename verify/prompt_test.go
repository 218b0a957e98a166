package verify_test

import (
	"strings"
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/verify"
)

func TestParseJudgeAnswer(t *testing.T) {
	good, err := verify.ParseJudgeAnswer(` {"match": true, "confidence": 0.82, "reason": " a wooden door slams "} `)
	if err != nil || !good.Match || good.Confidence != 0.82 || good.Reason != "a wooden door slams" {
		t.Fatalf("got %+v %v", good, err)
	}
	for _, bad := range []struct{ text, want string }{
		{``, "not the JSON object"},
		{`yes`, "not the JSON object"},
		{`{"match": "yes", "confidence": 0.5, "reason": "r"}`, "not the JSON object"},
		{`{"match": true, "reason": "r"}`, `no "confidence"`},
		{`{"confidence": 0.5, "reason": "r"}`, `no "match"`},
		{`{"match": true, "confidence": 0.5}`, `no "reason"`},
		{`{"match": true, "confidence": 1.5, "reason": "r"}`, "outside 0..1"},
		{`{"match": true, "confidence": -0.1, "reason": "r"}`, "outside 0..1"},
		{`{"match": true, "confidence": 0.5, "reason": "r", "extra": 1}`, "unknown field"},
		{`{"match": true, "confidence": 0.5, "reason": "r"} and more`, "text after"},
	} {
		if a, err := verify.ParseJudgeAnswer(bad.text); err == nil || !strings.Contains(err.Error(), bad.want) || a.Match {
			t.Errorf("%q: got %+v, %v; want an error with %q", bad.text, a, err, bad.want)
		}
	}
}

func TestJudgePrompt(t *testing.T) {
	c := cand("a", "Heavy oak door slam", nil, "door", "slam")
	p := verify.JudgePrompt(foley.SoundEvent{Query: "a heavy wooden door slams shut", Scene: "a 1920s Paris hotel"}, c)
	for _, want := range []string{"a heavy wooden door slams shut", "Scene: a 1920s Paris hotel", "Heavy oak door slam", "Tags: door, slam"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(verify.JudgePrompt(foley.NewEvent("x"), c), "Scene:") {
		t.Error("a prompt without a scene mentions one")
	}
	if got := verify.ListenPrompt(foley.NewEvent(" a dog barks ")); got != "Does this audio contain a dog barks? Answer strictly yes or no." {
		t.Errorf("ListenPrompt = %q", got)
	}
	s := verify.JudgeSchema()
	if s["additionalProperties"] != false || len(s["required"].([]string)) != 3 {
		t.Errorf("schema %v", s)
	}
}
