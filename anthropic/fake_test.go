package anthropic

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/fakellm"
	"github.com/foley-audio/foley/verify"
)

// fakeAPI is the Messages and Models APIs on an httptest server (see
// fakellm.Anthropic), checking that each Messages request is the judge's
// for the event and candidate it was made for.
type fakeAPI struct {
	*fakellm.Anthropic
	event foley.SoundEvent
	cand  foley.Candidate
}

func newFakeAPI(t *testing.T, reply func(w http.ResponseWriter, r *http.Request, n int)) *fakeAPI {
	t.Helper()
	f := &fakeAPI{event: testEvent(), cand: testCandidate()}
	f.Anthropic = fakellm.NewAnthropic(t, "sk-ant-test-key", DefaultModel, DefaultMaxTokens, f.check, reply)
	return f
}

// config is a Config for the fake: its URL and key, and fast retries.
func (f *fakeAPI) config() Config {
	return Config{APIKey: f.Key, BaseURL: f.URL, Model: f.Model, MaxTokens: f.MaxTokens}
}

func testEvent() foley.SoundEvent {
	return foley.SoundEvent{
		Query:    "a heavy wooden door slams shut",
		Scene:    "a detective storms out of a cramped office at night",
		EraPlace: "1920s Paris",
	}
}

func testCandidate() foley.Candidate {
	return foley.Candidate{Sound: foley.SoundRecord{
		ID:        "fs-123",
		Caption:   "Old oak door slammed hard, interior, close",
		Tags:      []string{"door", "slam", "wood", "interior"},
		DurationS: 1.4,
	}}
}

// check says what is wrong with the judge's Messages request, or "".
func (f *fakeAPI) check(req fakellm.AnthropicRequest) string {
	if req.System != verify.JudgeSystemPrompt {
		return fmt.Sprintf("system: %q, want verify.JudgeSystemPrompt", req.System)
	}
	if req.Prompt != verify.JudgePrompt(f.event, f.cand) {
		return fmt.Sprintf("messages.0.content is %q, want verify.JudgePrompt of the event and candidate", req.Prompt)
	}
	needles := append([]string{f.event.Query, f.cand.Sound.Caption}, f.cand.Sound.Tags...)
	if f.event.Scene != "" {
		needles = append(needles, f.event.Scene)
	}
	for _, s := range needles {
		if !strings.Contains(req.Prompt, s) {
			return fmt.Sprintf("the user message does not hold %q: %q", s, req.Prompt)
		}
	}
	// The judge's schema: all fields required and no others allowed.
	s := req.Schema
	if !fakellm.SameJSON(s, verify.JudgeSchema()) {
		return fmt.Sprintf("output_config.format.schema %v, want verify.JudgeSchema()", s)
	}
	props, _ := s["properties"].(map[string]any)
	types := map[string]string{}
	for name, p := range props {
		if m, ok := p.(map[string]any); ok {
			types[name], _ = m["type"].(string)
		}
	}
	if s["type"] != "object" || s["additionalProperties"] != false ||
		!reflect.DeepEqual(s["required"], []any{"match", "confidence", "reason"}) ||
		!reflect.DeepEqual(types, map[string]string{"match": "boolean", "confidence": "number", "reason": "string"}) {
		return fmt.Sprintf("output_config.format.schema %v is not the judge's answer schema", s)
	}
	return ""
}

// The API's answers and content blocks (see fakellm).
var (
	writeJSON             = fakellm.WriteAnthropicJSON
	writeError            = fakellm.WriteAnthropicError
	thinkingBlock         = fakellm.ThinkingBlock
	redactedThinkingBlock = fakellm.RedactedThinkingBlock
	textBlock             = fakellm.TextBlock
	message               = fakellm.Message
)

// answer returns a reply that always sends msg.
func answer(msg map[string]any) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) { writeJSON(w, http.StatusOK, msg) }
}

// recordSpans records the spans of the test (see fakellm.RecordSpans).
var recordSpans = fakellm.RecordSpans
