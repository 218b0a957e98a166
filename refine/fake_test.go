package refine

import (
	"fmt"
	"net/http"
	"reflect"
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/fakellm"
)

// testEvent is the event the fakes expect requests for.
func testEvent() foley.SoundEvent {
	return foley.SoundEvent{
		Query:    "a heavy wooden door slams shut",
		Scene:    "a detective storms out of a cramped office at night",
		EraPlace: "1920s Paris",
		UCSCatID: "DOORWood",
	}
}

const testFailure = "the best clip was a car door, not a wooden house door"

var testTried = []string{"a heavy wooden door slams shut", "wooden door slam"}

// refineRequest is what the fakes expect a request to ask for.
type refineRequest struct {
	n       int // the number of queries the prompt must ask for
	event   foley.SoundEvent
	failure string
	tried   []string
}

func newRefineRequest() refineRequest {
	return refineRequest{n: 3, event: testEvent(), failure: testFailure, tried: testTried}
}

func (q *refineRequest) prompt() string { return Prompt(q.event, q.failure, q.tried, q.n) }

// fakeAnthropic is the Messages API on an httptest server (see
// fakellm.Anthropic), checking that each request is the refiner's.
type fakeAnthropic struct {
	*fakellm.Anthropic
	refineRequest
	effort string
}

func newFakeAnthropic(t *testing.T, reply func(w http.ResponseWriter, n int)) *fakeAnthropic {
	t.Helper()
	f := &fakeAnthropic{refineRequest: newRefineRequest(), effort: DefaultEffort}
	f.Anthropic = fakellm.NewAnthropic(t, "sk-ant-test-key", DefaultAnthropicModel, DefaultMaxTokens, f.check,
		func(w http.ResponseWriter, _ *http.Request, n int) { reply(w, n) })
	return f
}

func (f *fakeAnthropic) config() AnthropicConfig {
	return AnthropicConfig{APIKey: f.Key, BaseURL: f.URL, Model: f.Model}
}

func (f *fakeAnthropic) count() int { return f.MessageCalls() }

// check says what is wrong with the refiner's Messages request, or "".
func (f *fakeAnthropic) check(req fakellm.AnthropicRequest) string {
	if req.System != SystemPrompt {
		return fmt.Sprintf("system: %q, want SystemPrompt", req.System)
	}
	if want := f.prompt(); req.Prompt != want {
		return fmt.Sprintf("the user message is %q, want %q", req.Prompt, want)
	}
	if req.Effort != f.effort {
		return fmt.Sprintf("output_config.effort %q, want %q", req.Effort, f.effort)
	}
	if msg := checkSchema(req.Schema); msg != "" {
		return "output_config.format.schema: " + msg
	}
	return ""
}

// checkSchema says what is wrong with the schema a request carries.
func checkSchema(s map[string]any) string {
	props, _ := s["properties"].(map[string]any)
	queries, _ := props["queries"].(map[string]any)
	items, _ := queries["items"].(map[string]any)
	if s["type"] != "object" || s["additionalProperties"] != false || len(props) != 1 ||
		!reflect.DeepEqual(s["required"], []any{"queries"}) ||
		queries["type"] != "array" || items["type"] != "string" {
		return fmt.Sprintf("%v is not {\"queries\": [string]} with additionalProperties false", s)
	}
	if !fakellm.SameJSON(s, Schema()) {
		return fmt.Sprintf("%v, want Schema()", s)
	}
	return ""
}

var writeJSON = fakellm.WriteJSON

// writeAnthropicError answers in the Anthropic API's error shape, with the
// request id req_011CTestRefine.
func writeAnthropicError(w http.ResponseWriter, status int, typ, msg string) {
	fakellm.WriteAnthropicErrorID(w, status, "req_011CTestRefine", typ, msg)
}

// claudeMessage is a Messages API response holding a thinking block and
// a text block.
func claudeMessage(stopReason, text string) map[string]any {
	m := fakellm.Message(DefaultAnthropicModel, stopReason,
		fakellm.ThinkingBlock("Shorter, library-style terms."), fakellm.TextBlock(text))
	m["usage"] = map[string]any{
		"input_tokens": 312, "output_tokens": 87,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
		"service_tier": "standard",
	}
	return m
}

// fakeChat is an OpenAI-compatible server (see fakellm.Chat), checking
// that every chat completion is the refiner's.
type fakeChat struct {
	*fakellm.Chat
	refineRequest
}

func newFakeChat(t *testing.T, reply func(w http.ResponseWriter, n int)) *fakeChat {
	t.Helper()
	f := &fakeChat{refineRequest: newRefineRequest()}
	f.Chat = fakellm.NewChat(t, "qwen2.5-7b-instruct", f.check, reply)
	return f
}

func (f *fakeChat) config() OpenAIConfig {
	return OpenAIConfig{BaseURL: f.Base(), Model: f.Model, APIKey: f.APIKey}
}

func (f *fakeChat) count() int { return f.Count() }

func (f *fakeChat) check(body map[string]any) string {
	return f.CheckSchemaRequest(body, DefaultMaxTokens, SystemPrompt, f.prompt(), SchemaName, checkSchema)
}

// completion is a chat completion as vLLM answers it.
func completion(content any, refusal any, finish string) map[string]any {
	return fakellm.Completion("qwen2.5-7b-instruct", content, refusal, nil, finish, fakellm.Usage(412, 31))
}

// recordSpans records the spans of the test (see fakellm.RecordSpans).
var recordSpans = fakellm.RecordSpans
