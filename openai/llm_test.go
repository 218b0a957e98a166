package openai

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/verify"
)

func newLLMJudge(t *testing.T, f *fakeServer, mod func(*LLMConfig)) *LLMJudge {
	t.Helper()
	cfg := LLMConfig{BaseURL: f.Base(), Model: f.Model, APIKey: f.APIKey, MaxRetries: 2, Timeout: 5 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	j, err := NewLLMJudge(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

var sceneEvent = foley.SoundEvent{Query: "a heavy wooden door slams shut", Scene: "a 1920s Paris apartment at night"}

func TestLLMJudge(t *testing.T) {
	for _, tc := range []struct {
		answer string
		match  bool
		conf   float64
	}{
		{`{"match": true, "confidence": 0.85, "reason": "A wooden door slamming, as wanted."}`, true, 0.85},
		{`{"match": false, "confidence": 0.1, "reason": "A car door, not a wooden one."}`, false, 0.1},
	} {
		f := newFake(t, "llm", answerWith(completion("qwen2.5-7b-instruct", tc.answer, nil, "stop", true)))
		f.APIKey = "llm-key"
		c := candidate("/clips/door.wav")
		f.wantPrompt = verify.JudgePrompt(sceneEvent, c)
		v, err := newLLMJudge(t, f, nil).Judge(context.Background(), sceneEvent, c, foley.LevelJudge)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := verify.ParseJudgeAnswer(tc.answer)
		want := foley.Verdict{Match: tc.match, Confidence: tc.conf, Reason: a.Reason, Level: foley.LevelJudge, Judge: "llm:qwen2.5-7b-instruct"}
		if v != want {
			t.Errorf("verdict %+v, want %+v", v, want)
		}
	}
}

func TestLLMJudgeMaxTokens(t *testing.T) {
	f := newFake(t, "llm", answerWith(completion("qwen2.5-7b-instruct", `{"match": true, "confidence": 1, "reason": "r"}`, nil, "stop", false)))
	f.wantMaxTokens = 64
	if _, err := newLLMJudge(t, f, func(c *LLMConfig) { c.MaxTokens = 64 }).Judge(context.Background(), doorEvent, candidate("x.wav"), foley.LevelJudge); err != nil {
		t.Fatal(err)
	}
}

func TestLLMJudgeBadAnswers(t *testing.T) {
	refusal := completion("qwen2.5-7b-instruct", "", nil, "stop", true)
	msg := refusal["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
	msg["content"], msg["refusal"] = nil, "I can't help with that."
	null := completion("qwen2.5-7b-instruct", "", nil, "stop", true)
	null["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"] = nil

	for _, tc := range []struct {
		name string
		body map[string]any
		want string
	}{
		{"confidence above 1", completion("m", `{"match": true, "confidence": 1.5, "reason": "sure"}`, nil, "stop", true), "outside 0..1"},
		{"confidence below 0", completion("m", `{"match": true, "confidence": -0.1, "reason": "sure"}`, nil, "stop", true), "outside 0..1"},
		{"empty content", completion("m", "", nil, "stop", true), "empty answer"},
		{"null content", null, "empty answer"},
		{"refusal", refusal, "refusal"},
		{"cut off", completion("m", `{"match": true, "confid`, nil, "length", true), `finish_reason "length"`},
		{"not JSON", completion("m", "Yes, it is the door.", nil, "stop", true), "not the JSON object"},
		{"missing field", completion("m", `{"match": true, "reason": "r"}`, nil, "stop", true), `no "confidence"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, "llm", answerWith(tc.body))
			failJudge(t, newLLMJudge(t, f, nil), candidate("x.wav"), foley.Unavailable, "LLM judge at "+f.Base(), tc.want)
		})
	}
}

func TestLLMJudgeMalformedBody(t *testing.T) {
	f := newFake(t, "llm", func(w http.ResponseWriter, _ int) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id": "chatcmpl-1", "choices": [{"message": `))
	})
	failJudge(t, newLLMJudge(t, f, nil), candidate("x.wav"), foley.Unavailable, "LLM judge at "+f.Base())
}

func TestLLMJudgeRetries(t *testing.T) {
	t.Run("429 then success", func(t *testing.T) {
		f := newFake(t, "llm", func(w http.ResponseWriter, n int) {
			if n == 1 {
				w.Header().Set("Retry-After", "0")
				writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": map[string]any{"message": "rate limited"}})
				return
			}
			writeJSON(w, http.StatusOK, completion("m", `{"match": true, "confidence": 0.9, "reason": "r"}`, nil, "stop", true))
		})
		v, err := newLLMJudge(t, f, nil).Judge(context.Background(), doorEvent, candidate("x.wav"), foley.LevelJudge)
		if err != nil || !v.Match || f.count() != 2 {
			t.Errorf("%+v, %v after %d requests; want a match after 2", v, err, f.count())
		}
	})
	t.Run("503 throughout", func(t *testing.T) {
		f := newFake(t, "llm", func(w http.ResponseWriter, _ int) {
			w.Header().Set("Retry-After-Ms", "1")
			writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": map[string]any{"message": "model is loading"}})
		})
		failJudge(t, newLLMJudge(t, f, func(c *LLMConfig) { c.MaxRetries = 1 }), candidate("x.wav"), foley.Unavailable,
			"LLM judge at "+f.Base(), "503 Service Unavailable after 2 attempts", "model is loading")
		if f.count() != 2 {
			t.Errorf("%d requests, want 2", f.count())
		}
	})
	t.Run("timeout", func(t *testing.T) {
		release := make(chan struct{})
		f := newFake(t, "llm", func(w http.ResponseWriter, _ int) {
			select {
			case <-release:
			case <-time.After(2 * time.Second):
			}
		})
		t.Cleanup(func() { close(release) })
		failJudge(t, newLLMJudge(t, f, func(c *LLMConfig) { c.Timeout = 50 * time.Millisecond }), candidate("x.wav"), foley.Unavailable,
			"did not answer within 50ms")
	})
}

func TestLLMJudgeCheck(t *testing.T) {
	f := newFake(t, "llm", answerWith(nil))
	if err := newLLMJudge(t, f, nil).Check(context.Background()); err != nil {
		t.Errorf("Check = %v", err)
	}
	err := newLLMJudge(t, f, func(c *LLMConfig) { c.Model = "llama3.1:8b" }).Check(context.Background())
	if foley.CodeOf(err) != foley.Unavailable || !strings.Contains(err.Error(), "llama3.1:8b") || !strings.Contains(err.Error(), f.Model) {
		t.Errorf("Check = %v, want Unavailable naming the wanted and the served models", err)
	}
}

func TestLLMJudgeIdentity(t *testing.T) {
	j, err := NewLLMJudge(LLMConfig{BaseURL: "http://localhost:11434/v1", Model: "qwen2.5:7b"})
	if err != nil {
		t.Fatal(err)
	}
	if j.Identity() != "llm|qwen2.5:7b|prompt=v1" || j.Name() != "llm:qwen2.5:7b" {
		t.Errorf("Identity %q Name %q", j.Identity(), j.Name())
	}
	for _, cfg := range []LLMConfig{
		{Model: "m"},
		{BaseURL: "http://host/v1"},
		{BaseURL: "unix:///tmp/sock", Model: "m"},
		{BaseURL: "http://host/v1", Model: "m", MaxTokens: -1},
	} {
		if _, err := NewLLMJudge(cfg); foley.CodeOf(err) != foley.Invalid {
			t.Errorf("NewLLMJudge(%+v) = %v, want Invalid", cfg, err)
		}
	}
}
