package refine

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/foley-audio/foley"
)

// anthropicVersion is the anthropic-version the SDK v2 sends, and the one
// the fake API speaks.
const anthropicVersion = "2026-10-21"

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

// fakeAnthropic is the Messages API (POST /v1/messages) on an httptest
// server. It checks each request as the real API requires — credentials,
// version, and a body of the shape the refiner must send — and answers
// through reply in the real API's shapes. A request that is not right gets
// the API's 400 or 401 answer and fails the test.
type fakeAnthropic struct {
	t         *testing.T
	key       string
	model     string
	maxTokens int
	effort    string
	n         int // the number of queries the prompt must ask for
	event     foley.SoundEvent
	failure   string
	tried     []string
	reply     func(w http.ResponseWriter, n int) // answers the n-th valid request (from 1)

	srv *httptest.Server

	mu    sync.Mutex
	calls int
}

func newFakeAnthropic(t *testing.T, reply func(w http.ResponseWriter, n int)) *fakeAnthropic {
	t.Helper()
	f := &fakeAnthropic{
		t: t, key: "sk-ant-test-key", model: DefaultAnthropicModel, maxTokens: DefaultMaxTokens, effort: DefaultEffort,
		n: 3, event: testEvent(), failure: testFailure, tried: testTried, reply: reply,
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAnthropic) config() AnthropicConfig {
	return AnthropicConfig{APIKey: f.key, BaseURL: f.srv.URL, Model: f.model}
}

func (f *fakeAnthropic) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func (f *fakeAnthropic) serve(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("x-api-key") != f.key && r.Header.Get("Authorization") != "Bearer "+f.key {
		writeAnthropicError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key")
		return
	}
	if v := r.Header.Get("anthropic-version"); v != anthropicVersion {
		f.reject(w, "anthropic-version: %q is not a supported version (want %q)", v, anthropicVersion)
		return
	}
	if b := r.Header.Values("anthropic-beta"); len(b) > 0 {
		f.t.Errorf("unexpected anthropic-beta header %q: structured outputs and adaptive thinking need none", b)
	}
	if r.URL.Path != "/v1/messages" || r.Method != http.MethodPost {
		writeAnthropicError(w, http.StatusNotFound, "not_found_error", "Not Found")
		f.t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
		return
	}
	if msg := f.check(r); msg != "" {
		f.reject(w, "%s", msg)
		return
	}
	f.mu.Lock()
	f.calls++
	n := f.calls
	f.mu.Unlock()
	f.reply(w, n)
}

func (f *fakeAnthropic) reject(w http.ResponseWriter, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	f.t.Errorf("the fake Anthropic API rejected a request: %s", msg)
	writeAnthropicError(w, http.StatusBadRequest, "invalid_request_error", msg)
}

// check says what is wrong with a Messages request, or "".
func (f *fakeAnthropic) check(r *http.Request) string {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return fmt.Sprintf("content-type %q, want application/json", r.Header.Get("Content-Type"))
	}
	var body map[string]json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		return "the body is not a JSON object: " + err.Error()
	}
	want := []string{"max_tokens", "messages", "model", "output_config", "system", "thinking"}
	var got []string
	for k := range body {
		got = append(got, k)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		return fmt.Sprintf("body fields %v, want %v", got, want)
	}
	var model string
	if json.Unmarshal(body["model"], &model) != nil || model != f.model {
		return fmt.Sprintf("model: %s, want %q", body["model"], f.model)
	}
	var maxTokens int
	if json.Unmarshal(body["max_tokens"], &maxTokens) != nil || maxTokens != f.maxTokens {
		return fmt.Sprintf("max_tokens: %s, want %d", body["max_tokens"], f.maxTokens)
	}
	if !jsonEqual(body["thinking"], map[string]any{"type": "adaptive"}) {
		return fmt.Sprintf("thinking: %s, want {\"type\":\"adaptive\"}", body["thinking"])
	}
	system, err := textOf(body["system"])
	if err != nil || system != SystemPrompt {
		return fmt.Sprintf("system: %s (%v), want SystemPrompt", body["system"], err)
	}
	var messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(body["messages"], &messages); err != nil {
		return "messages: " + err.Error()
	}
	if len(messages) != 1 || messages[0].Role != "user" {
		return fmt.Sprintf("messages: %s, want one user message", body["messages"])
	}
	prompt, err := textOf(messages[0].Content)
	if err != nil {
		return "messages.0.content: " + err.Error()
	}
	if want := Prompt(f.event, f.failure, f.tried, f.n); prompt != want {
		return fmt.Sprintf("the user message is %q, want %q", prompt, want)
	}
	var oc struct {
		Format struct {
			Type   string         `json:"type"`
			Schema map[string]any `json:"schema"`
		} `json:"format"`
		Effort string `json:"effort"`
	}
	if err := strictDecode(body["output_config"], &oc); err != nil {
		return fmt.Sprintf("output_config: %s: %v", body["output_config"], err)
	}
	if oc.Effort != f.effort {
		return fmt.Sprintf("output_config.effort %q, want %q", oc.Effort, f.effort)
	}
	if oc.Format.Type != "json_schema" {
		return fmt.Sprintf("output_config.format.type %q, want json_schema", oc.Format.Type)
	}
	if msg := checkSchema(oc.Format.Schema); msg != "" {
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
	if !jsonEqual(mustJSON(s), Schema()) {
		return fmt.Sprintf("%v, want Schema()", s)
	}
	return ""
}

// textOf reads a system prompt or message content: a string, or a list of
// text blocks.
func textOf(raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var blocks []map[string]any
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", fmt.Errorf("neither a string nor a list of blocks: %v", err)
	}
	var b strings.Builder
	for _, bl := range blocks {
		if bl["type"] != "text" {
			return "", fmt.Errorf("a block of type %v, want text", bl["type"])
		}
		t, ok := bl["text"].(string)
		if !ok {
			return "", fmt.Errorf("a text block without text")
		}
		b.WriteString(t)
	}
	return b.String(), nil
}

func strictDecode(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// jsonEqual reports whether raw and want encode the same JSON value.
func jsonEqual(raw json.RawMessage, want any) bool {
	var a, b any
	if json.Unmarshal(raw, &a) != nil || json.Unmarshal(mustJSON(want), &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeAnthropicError answers in the Anthropic API's error shape.
func writeAnthropicError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("request-id", "req_011CTestRefine")
	writeJSON(w, status, map[string]any{
		"type":       "error",
		"error":      map[string]any{"type": typ, "message": msg},
		"request_id": "req_011CTestRefine",
	})
}

// claudeMessage is a Messages API response holding a thinking block and
// a text block.
func claudeMessage(stopReason, text string) map[string]any {
	return map[string]any{
		"id":    "msg_01XFDUDYJgAACzvnptvVoYEL",
		"type":  "message",
		"role":  "assistant",
		"model": DefaultAnthropicModel,
		"content": []map[string]any{
			{"type": "thinking", "thinking": "Shorter, library-style terms.", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"},
			{"type": "text", "text": text},
		},
		"stop_reason":   stopReason,
		"stop_sequence": nil,
		"stop_details":  nil,
		"container":     nil,
		"usage": map[string]any{
			"input_tokens": 312, "output_tokens": 87,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
			"service_tier": "standard",
		},
	}
}

// fakeChat is an OpenAI-compatible server (vLLM, as far as the refiner can
// tell) under /v1: it checks every chat completion as the real server
// would, and answers through reply.
type fakeChat struct {
	t       *testing.T
	model   string
	apiKey  string // the bearer token it demands; "" demands none be sent
	n       int
	event   foley.SoundEvent
	failure string
	tried   []string
	reply   func(w http.ResponseWriter, n int)

	srv *httptest.Server

	mu    sync.Mutex
	calls int
}

func newFakeChat(t *testing.T, reply func(w http.ResponseWriter, n int)) *fakeChat {
	t.Helper()
	f := &fakeChat{t: t, model: "qwen2.5-7b-instruct", n: 3, event: testEvent(), failure: testFailure, tried: testTried, reply: reply}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeChat) base() string { return f.srv.URL + "/v1" }

func (f *fakeChat) config() OpenAIConfig {
	return OpenAIConfig{BaseURL: f.base(), Model: f.model, APIKey: f.apiKey}
}

func (f *fakeChat) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func (f *fakeChat) reject(w http.ResponseWriter, status int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	f.t.Errorf("fake server: %s", msg)
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "BadRequestError", "code": status}})
}

func (f *fakeChat) serve(w http.ResponseWriter, r *http.Request) {
	want := ""
	if f.apiKey != "" {
		want = "Bearer " + f.apiKey
	}
	if got := r.Header.Get("Authorization"); got != want {
		f.reject(w, http.StatusUnauthorized, "Authorization %q, want %q", got, want)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		f.reject(w, http.StatusNotFound, "no route %s %s", r.Method, r.URL.Path)
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		f.reject(w, http.StatusUnsupportedMediaType, "Content-Type %q", ct)
		return
	}
	var body map[string]any
	dec := json.NewDecoder(r.Body)
	dec.UseNumber()
	if err := dec.Decode(&body); err != nil {
		f.reject(w, http.StatusBadRequest, "body is not JSON: %v", err)
		return
	}
	if problem := f.check(body); problem != "" {
		f.reject(w, http.StatusBadRequest, "%s", problem)
		return
	}
	f.mu.Lock()
	f.calls++
	n := f.calls
	f.mu.Unlock()
	f.reply(w, n)
}

func (f *fakeChat) check(body map[string]any) string {
	allowed := []string{"model", "messages", "max_tokens", "max_completion_tokens", "temperature", "response_format"}
	for k := range body {
		if !slices.Contains(allowed, k) {
			return fmt.Sprintf("unexpected field %q", k)
		}
	}
	if body["model"] != f.model {
		return fmt.Sprintf("model %v, want %q", body["model"], f.model)
	}
	mt, mct := body["max_tokens"], body["max_completion_tokens"]
	if (mt == nil) == (mct == nil) {
		return fmt.Sprintf("max_tokens %v, max_completion_tokens %v: want exactly one", mt, mct)
	}
	if mt == nil {
		mt = mct
	}
	if got := fmt.Sprint(mt); got != fmt.Sprint(DefaultMaxTokens) {
		return fmt.Sprintf("max tokens %s, want %d", got, DefaultMaxTokens)
	}
	if temp, ok := body["temperature"].(json.Number); !ok || temp.String() != "0" {
		return fmt.Sprintf("temperature %v, want 0", body["temperature"])
	}
	msgs, ok := body["messages"].([]any)
	if !ok || len(msgs) != 2 {
		return fmt.Sprintf("messages %v, want system and user", body["messages"])
	}
	sys, _ := msgs[0].(map[string]any)
	user, _ := msgs[1].(map[string]any)
	if sys["role"] != "system" || sys["content"] != SystemPrompt {
		return fmt.Sprintf("first message %v, want the system prompt", sys)
	}
	if want := Prompt(f.event, f.failure, f.tried, f.n); user["role"] != "user" || user["content"] != want {
		return fmt.Sprintf("second message %v, want the user prompt %q", user, want)
	}
	rf, _ := body["response_format"].(map[string]any)
	if rf["type"] != "json_schema" {
		return fmt.Sprintf("response_format %v, want json_schema", rf)
	}
	js, _ := rf["json_schema"].(map[string]any)
	if js["name"] != SchemaName || js["strict"] != true {
		return fmt.Sprintf("json_schema name %v strict %v, want %q and true", js["name"], js["strict"], SchemaName)
	}
	schema, _ := js["schema"].(map[string]any)
	if msg := checkSchema(schema); msg != "" {
		return "json_schema.schema: " + msg
	}
	return ""
}

// completion is a chat completion as vLLM answers it.
func completion(content any, refusal any, finish string) map[string]any {
	return map[string]any{
		"id":      "chatcmpl-7f3a9c",
		"object":  "chat.completion",
		"created": 1700000000,
		"model":   "qwen2.5-7b-instruct",
		"choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": content, "refusal": refusal, "tool_calls": []any{}},
			"logprobs":      nil,
			"finish_reason": finish,
			"stop_reason":   nil,
		}},
		"usage": map[string]any{"prompt_tokens": 412, "completion_tokens": 31, "total_tokens": 443},
	}
}

// recordSpans installs a tracer provider that records spans, for the test.
func recordSpans(t *testing.T) *tracetest.SpanRecorder {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	prev := otel.GetTracerProvider()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	otel.SetTracerProvider(tp)
	t.Cleanup(func() {
		otel.SetTracerProvider(prev)
		_ = tp.Shutdown(context.Background())
	})
	return rec
}
