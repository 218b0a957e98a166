package refine

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/obs"
)

// refineFake calls r as the fakes expect: their event, failure and tried
// queries, and n = 3.
func refineFake(r foley.Refiner) ([]string, error) {
	return r.Refine(context.Background(), testEvent(), testFailure, testTried, 3)
}

// wantFail checks that err is a foley error with code and a message that
// holds every part of want.
func wantFail(t *testing.T, got []string, err error, code foley.ErrorCode, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got %q and no error, want a %s error", got, code)
	}
	if got != nil {
		t.Errorf("got queries %q with the error", got)
	}
	if c := foley.CodeOf(err); c != code {
		t.Errorf("code %s, want %s: %v", c, code, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

func newAnthropicRefiner(t *testing.T, cfg AnthropicConfig) *LLM {
	t.Helper()
	r, err := NewAnthropic(cfg)
	if err != nil {
		t.Fatalf("NewAnthropic: %v", err)
	}
	return r
}

func newOpenAIRefiner(t *testing.T, cfg OpenAIConfig) *LLM {
	t.Helper()
	r, err := NewOpenAI(cfg)
	if err != nil {
		t.Fatalf("NewOpenAI: %v", err)
	}
	return r
}

func spanAttrs(kv []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, a := range kv {
		m[string(a.Key)] = a.Value.Emit()
	}
	return m
}

func TestAnthropicRefine(t *testing.T) {
	rec := recordSpans(t)
	f := newFakeAnthropic(t, func(w http.ResponseWriter, _ int) {
		writeJSON(w, http.StatusOK, claudeMessage("end_turn", `{"queries": ["door slam", "wood door bang", "DOORS Wood slam"]}`))
	})
	r := newAnthropicRefiner(t, f.config())
	if r.Name() != "anthropic:"+DefaultAnthropicModel || r.Model() != DefaultAnthropicModel {
		t.Errorf("Name %q, Model %q", r.Name(), r.Model())
	}
	got, err := refineFake(r)
	if err != nil {
		t.Fatalf("Refine: %v", err)
	}
	if want := []string{"door slam", "wood door bang", "DOORS Wood slam"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	s := spans[0]
	attrs := spanAttrs(s.Attributes())
	if s.Name() != "chat "+DefaultAnthropicModel || attrs[obs.AttrProvider] != "anthropic" ||
		attrs[obs.AttrMaxTokens] != "400" || attrs[obs.AttrInputTokens] != "312" || attrs[obs.AttrOutputTokens] != "87" {
		t.Errorf("span %q with %v", s.Name(), attrs)
	}
}

func TestAnthropicRefineSettings(t *testing.T) {
	f := newFakeAnthropic(t, func(w http.ResponseWriter, _ int) {
		writeJSON(w, http.StatusOK, claudeMessage("end_turn", `{"queries": ["door slam"]}`))
	})
	f.Model, f.MaxTokens, f.effort = "claude-sonnet-4-7", 1000, "medium"
	cfg := f.config()
	cfg.MaxTokens, cfg.Effort = 1000, "Medium"
	r := newAnthropicRefiner(t, cfg)
	if got, err := refineFake(r); err != nil || !slices.Equal(got, []string{"door slam"}) {
		t.Errorf("got %q, %v", got, err)
	}
	if r.Name() != "anthropic:claude-sonnet-4-7" {
		t.Errorf("Name %q", r.Name())
	}
}

func TestAnthropicRefineFilters(t *testing.T) {
	f := newFakeAnthropic(t, func(w http.ResponseWriter, _ int) {
		writeJSON(w, http.StatusOK, claudeMessage("end_turn", `{"queries": [
			"  Wooden  Door Slam ", "", "   ", "door slam", "DOOR SLAM", "door\nbang",
			"A heavy wooden door slams shut", "doors slam", "door impact", "door shut"]}`))
	})
	got, err := refineFake(newAnthropicRefiner(t, f.config()))
	if err != nil {
		t.Fatalf("Refine: %v", err)
	}
	// Tried queries, blanks and repeats are dropped; the cap is n = 3.
	if want := []string{"door slam", "door bang", "doors slam"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestAnthropicRefineFailures(t *testing.T) {
	refusal := claudeMessage("refusal", `{"queries": ["door slam"]}`)
	refusal["stop_details"] = map[string]any{"type": "refusal", "category": "cyber", "explanation": "This request was declined."}
	for _, tc := range []struct {
		name  string
		reply func(w http.ResponseWriter, n int)
		cfg   func(*AnthropicConfig)
		calls int
		code  foley.ErrorCode
		want  []string
	}{
		{
			name:  "malformed JSON",
			reply: answer(claudeMessage("end_turn", `{"queries": ["door slam"`)),
			calls: 1, code: foley.Unavailable,
			want: []string{"refiner anthropic:claude-opus-4-8: the answer is not the JSON object the schema asks for"},
		},
		{
			name:  "other fields",
			reply: answer(claudeMessage("end_turn", `{"queries": ["door slam"], "why": "shorter"}`)),
			calls: 1, code: foley.Unavailable, want: []string{`unknown field "why"`},
		},
		{
			name:  "no queries field",
			reply: answer(claudeMessage("end_turn", `{}`)),
			calls: 1, code: foley.Unavailable, want: []string{`the answer has no "queries"`},
		},
		{
			name:  "only tried queries",
			reply: answer(claudeMessage("end_turn", `{"queries": ["Wooden door slam", " "]}`)),
			calls: 1, code: foley.Unavailable, want: []string{"no usable query (2 proposed"},
		},
		{
			name:  "refusal",
			reply: answer(refusal),
			calls: 1, code: foley.Unavailable,
			want: []string{"the model refused to answer (category cyber: This request was declined.) (message msg_"},
		},
		{
			name:  "cut off",
			reply: answer(claudeMessage("max_tokens", `{"queries": ["door sl`)),
			calls: 1, code: foley.Unavailable, want: []string{"stopped at max_tokens", "max_tokens=400"},
		},
		{
			name: "500 throughout",
			reply: func(w http.ResponseWriter, _ int) {
				w.Header().Set("retry-after-ms", "1")
				writeAnthropicError(w, http.StatusInternalServerError, "api_error", "Internal server error")
			},
			cfg:   func(c *AnthropicConfig) { c.MaxRetries = 2 },
			calls: 3, code: foley.Unavailable,
			want: []string{"refiner anthropic:claude-opus-4-8: 500 api_error: Internal server error (after 3 attempts; request-id req_011CTestRefine)"},
		},
		{
			name: "invalid key",
			reply: func(w http.ResponseWriter, _ int) {
				t.Error("a request with a bad key reached the reply")
			},
			cfg:   func(c *AnthropicConfig) { c.APIKey = "sk-ant-revoked" },
			calls: 0, code: foley.Unavailable,
			want: []string{"401 authentication_error: invalid x-api-key", "check ANTHROPIC_API_KEY"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeAnthropic(t, tc.reply)
			cfg := f.config()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			got, err := refineFake(newAnthropicRefiner(t, cfg))
			wantFail(t, got, err, tc.code, tc.want...)
			if f.count() != tc.calls {
				t.Errorf("%d requests, want %d", f.count(), tc.calls)
			}
		})
	}
}

func answer(msg map[string]any) func(http.ResponseWriter, int) {
	return func(w http.ResponseWriter, _ int) { writeJSON(w, http.StatusOK, msg) }
}

func TestAnthropicRefineRetries429(t *testing.T) {
	f := newFakeAnthropic(t, func(w http.ResponseWriter, n int) {
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			writeAnthropicError(w, http.StatusTooManyRequests, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit")
			return
		}
		writeJSON(w, http.StatusOK, claudeMessage("end_turn", `{"queries": ["door slam", "door bang"]}`))
	})
	start := time.Now()
	got, err := refineFake(newAnthropicRefiner(t, f.config()))
	if err != nil || !slices.Equal(got, []string{"door slam", "door bang"}) {
		t.Fatalf("got %q, %v", got, err)
	}
	if f.count() != 2 {
		t.Errorf("%d requests, want 2", f.count())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
}

func TestAnthropicRefineUnreachable(t *testing.T) {
	f := newFakeAnthropic(t, nil)
	f.Close()
	cfg := f.config()
	cfg.MaxRetries = -1
	got, err := refineFake(newAnthropicRefiner(t, cfg))
	wantFail(t, got, err, foley.Unavailable, "refiner anthropic:claude-opus-4-8: cannot reach "+f.URL)
}

func TestNewAnthropicInvalid(t *testing.T) {
	for _, cfg := range []AnthropicConfig{
		{},
		{APIKey: "  "},
		{APIKey: "k", MaxTokens: -1},
		{APIKey: "k", Effort: "extreme"},
		{APIKey: "k", Timeout: -time.Second},
		{APIKey: "k", BaseURL: "ftp://example.com"},
		{APIKey: "k", BaseURL: "http://"},
	} {
		if r, err := NewAnthropic(cfg); err == nil || foley.CodeOf(err) != foley.Invalid {
			t.Errorf("NewAnthropic(%+v) = %v, %v; want an Invalid error", cfg, r, err)
		}
	}
}

func TestOpenAIRefine(t *testing.T) {
	rec := recordSpans(t)
	f := newFakeChat(t, func(w http.ResponseWriter, _ int) {
		writeJSON(w, http.StatusOK, completion(`{"queries": ["door slam", "door bang", "doors wood slam", "door shut"]}`, nil, "stop"))
	})
	f.APIKey = "secret-token"
	r := newOpenAIRefiner(t, f.config())
	if r.Name() != "llm:qwen2.5-7b-instruct" {
		t.Errorf("Name %q", r.Name())
	}
	got, err := refineFake(r)
	if err != nil {
		t.Fatalf("Refine: %v", err)
	}
	if want := []string{"door slam", "door bang", "doors wood slam"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	attrs := spanAttrs(spans[0].Attributes())
	if spans[0].Name() != "chat qwen2.5-7b-instruct" || attrs[obs.AttrProvider] != "openai" || attrs[obs.AttrInputTokens] != "412" {
		t.Errorf("span %q with %v", spans[0].Name(), attrs)
	}
}

func TestOpenAIRefineNoEnvironment(t *testing.T) {
	// The SDK's client would send OPENAI_API_KEY; the refiner must not.
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	f := newFakeChat(t, answerChat(completion(`{"queries": ["door slam"]}`, nil, "stop")))
	if got, err := refineFake(newOpenAIRefiner(t, f.config())); err != nil || !slices.Equal(got, []string{"door slam"}) {
		t.Errorf("got %q, %v", got, err)
	}
}

func answerChat(v any) func(http.ResponseWriter, int) {
	return func(w http.ResponseWriter, _ int) { writeJSON(w, http.StatusOK, v) }
}

func TestOpenAIRefineFilters(t *testing.T) {
	f := newFakeChat(t, answerChat(completion(
		`{"queries": ["a heavy wooden door slams shut", "door slam", " door  slam ", "", "Wooden Door Slam", "`+strings.Repeat("x", 300)+`", "door bang"]}`,
		nil, "stop")))
	got, err := refineFake(newOpenAIRefiner(t, f.config()))
	if err != nil {
		t.Fatalf("Refine: %v", err)
	}
	if want := []string{"door slam", "door bang"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestOpenAIRefineFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply func(w http.ResponseWriter, n int)
		cfg   func(*OpenAIConfig)
		calls int
		code  foley.ErrorCode
		want  []string
	}{
		{
			name:  "malformed JSON",
			reply: answerChat(completion(`{"queries": "door slam"}`, nil, "stop")),
			calls: 1, code: foley.Unavailable,
			want: []string{"refiner llm:qwen2.5-7b-instruct: the answer is not the JSON object the schema asks for"},
		},
		{
			name:  "prose",
			reply: answerChat(completion(`Sure! Try "door slam".`, nil, "stop")),
			calls: 1, code: foley.Unavailable, want: []string{"not the JSON object"},
		},
		{
			name:  "refusal",
			reply: answerChat(completion(nil, "I can't help with that.", "stop")),
			calls: 1, code: foley.Unavailable, want: []string{`gave a refusal: "I can't help with that."`},
		},
		{
			name:  "cut off",
			reply: answerChat(completion(`{"queries": ["door`, nil, "length")),
			calls: 1, code: foley.Unavailable, want: []string{"cut off at 400 tokens"},
		},
		{
			name:  "empty",
			reply: answerChat(completion("", nil, "stop")),
			calls: 1, code: foley.Unavailable, want: []string{"an empty answer"},
		},
		{
			name:  "no usable query",
			reply: answerChat(completion(`{"queries": []}`, nil, "stop")),
			calls: 1, code: foley.Unavailable, want: []string{"no usable query (0 proposed"},
		},
		{
			name: "malformed body",
			reply: func(w http.ResponseWriter, _ int) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"id": "chatcmpl-1", "choices": [{"message": `))
			},
			calls: 1, code: foley.Unavailable, want: []string{"refiner llm:qwen2.5-7b-instruct at "},
		},
		{
			name: "500 throughout",
			reply: func(w http.ResponseWriter, _ int) {
				w.Header().Set("Retry-After-Ms", "1")
				writeJSON(w, http.StatusInternalServerError, map[string]any{"error": map[string]any{"message": "CUDA out of memory"}})
			},
			cfg:   func(c *OpenAIConfig) { c.MaxRetries = 1 },
			calls: 2, code: foley.Unavailable,
			want: []string{"500 Internal Server Error after 2 attempts", "CUDA out of memory"},
		},
		{
			name: "400",
			reply: func(w http.ResponseWriter, _ int) {
				writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": "json_schema is not supported"}})
			},
			calls: 1, code: foley.Invalid, want: []string{"rejected POST /chat/completions: 400 Bad Request", "json_schema is not supported"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeChat(t, tc.reply)
			cfg := f.config()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			got, err := refineFake(newOpenAIRefiner(t, cfg))
			wantFail(t, got, err, tc.code, tc.want...)
			if f.count() != tc.calls {
				t.Errorf("%d requests, want %d", f.count(), tc.calls)
			}
		})
	}
}

func TestOpenAIRefineRetries429(t *testing.T) {
	f := newFakeChat(t, func(w http.ResponseWriter, n int) {
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": map[string]any{"message": "rate limited"}})
			return
		}
		writeJSON(w, http.StatusOK, completion(`{"queries": ["door bang"]}`, nil, "stop"))
	})
	got, err := refineFake(newOpenAIRefiner(t, f.config()))
	if err != nil || !slices.Equal(got, []string{"door bang"}) || f.count() != 2 {
		t.Errorf("got %q, %v after %d requests; want [door bang] after 2", got, err, f.count())
	}
}

func TestOpenAIRefineTimeout(t *testing.T) {
	release := make(chan struct{})
	f := newFakeChat(t, func(w http.ResponseWriter, _ int) {
		select {
		case <-release:
		case <-time.After(2 * time.Second):
		}
	})
	t.Cleanup(func() { close(release) })
	cfg := f.config()
	cfg.Timeout, cfg.MaxRetries = 50*time.Millisecond, -1
	got, err := refineFake(newOpenAIRefiner(t, cfg))
	wantFail(t, got, err, foley.Unavailable, "did not answer within 50ms")
}

func TestNewOpenAIInvalid(t *testing.T) {
	for _, cfg := range []OpenAIConfig{
		{},
		{Model: "m"},
		{BaseURL: "http://localhost:8000/v1"},
		{BaseURL: "localhost:8000", Model: "m"},
		{BaseURL: "http://localhost:8000/v1?x=1", Model: "m"},
		{BaseURL: "http://localhost:8000/v1", Model: "m", Timeout: -1},
		{BaseURL: "http://localhost:8000/v1", Model: "m", MaxTokens: -1},
	} {
		if r, err := NewOpenAI(cfg); err == nil || foley.CodeOf(err) != foley.Invalid {
			t.Errorf("NewOpenAI(%+v) = %v, %v; want an Invalid error", cfg, r, err)
		}
	}
}

func TestLLMRefineAsksNothing(t *testing.T) {
	f := newFakeChat(t, func(w http.ResponseWriter, _ int) { t.Error("a request was made") })
	r := newOpenAIRefiner(t, f.config())
	if got, err := r.Refine(context.Background(), testEvent(), "", nil, 0); got != nil || err != nil {
		t.Errorf("n = 0: %q, %v", got, err)
	}
	got, err := r.Refine(context.Background(), foley.SoundEvent{Query: "  "}, "", nil, 3)
	wantFail(t, got, err, foley.Invalid, "no query")
}

func TestLLMRefineCapsN(t *testing.T) {
	f := newFakeChat(t, answerChat(completion(`{"queries": ["door slam", "door bang"]}`, nil, "stop")))
	f.n = MaxQueries
	got, err := newOpenAIRefiner(t, f.config()).Refine(context.Background(), testEvent(), testFailure, testTried, 1000)
	if err != nil || !slices.Equal(got, []string{"door slam", "door bang"}) {
		t.Errorf("got %q, %v", got, err)
	}
}

func TestPrompt(t *testing.T) {
	ev := testEvent()
	ev.Layer = foley.LayerSFX
	got := Prompt(ev, "  the best clip was\na car door ", []string{"a heavy wooden door slams shut", " ", "wooden\tdoor slam"}, 4)
	want := "Wanted sound event: a heavy wooden door slams shut\n" +
		"Scene: a detective storms out of a cramped office at night\n" +
		"Era and place: 1920s Paris\n" +
		"UCS category: DOORWood (DOORS)\n" +
		"Layer: sfx\n" +
		"Why the last search failed: the best clip was a car door\n" +
		"\nQueries already tried:\n- a heavy wooden door slams shut\n- wooden door slam\n" +
		"\nPropose up to 4 new search queries, the likeliest to find the sound first."
	if got != want {
		t.Errorf("Prompt:\n%s\nwant:\n%s", got, want)
	}
	got = Prompt(foley.SoundEvent{Query: "thunder"}, "", nil, 1)
	want = "Wanted sound event: thunder\n\nQueries already tried:\n(none)\n\nPropose 1 new search query."
	if got != want {
		t.Errorf("Prompt:\n%s\nwant:\n%s", got, want)
	}
}
