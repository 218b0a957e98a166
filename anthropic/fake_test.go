package anthropic

import (
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

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/verify"
)

// apiVersion is the anthropic-version the SDK v2 sends, and the one the fake
// API speaks.
const apiVersion = "2026-10-21"

// fakeAPI is a Messages API (POST /v1/messages) and Models API
// (GET /v1/models/{model}) on an httptest server. It checks each request as
// the real API requires — headers, credentials, and a body of the shape the
// judge must send for the event and candidate it was made for — and answers
// with reply, in the real API's shapes. A request that is not right gets the
// API's 400 or 401 answer and fails the test.
type fakeAPI struct {
	t         *testing.T
	key       string
	model     string
	maxTokens int
	event     foley.SoundEvent
	cand      foley.Candidate
	// reply answers the n-th (from 1) valid POST /v1/messages.
	reply func(w http.ResponseWriter, r *http.Request, n int)

	srv *httptest.Server

	mu       sync.Mutex
	messages int // valid POST /v1/messages received
	models   int // GET /v1/models/... received
}

func newFakeAPI(t *testing.T, reply func(w http.ResponseWriter, r *http.Request, n int)) *fakeAPI {
	t.Helper()
	f := &fakeAPI{
		t:         t,
		key:       "sk-ant-test-key",
		model:     DefaultModel,
		maxTokens: DefaultMaxTokens,
		event:     testEvent(),
		cand:      testCandidate(),
		reply:     reply,
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// config is a Config for the fake: its URL and key, and fast retries.
func (f *fakeAPI) config() Config {
	return Config{APIKey: f.key, BaseURL: f.srv.URL, Model: f.model, MaxTokens: f.maxTokens}
}

func (f *fakeAPI) messageCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.messages
}

func (f *fakeAPI) modelCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.models
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

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	// Credentials first, as the API does: x-api-key, or a bearer token
	// (which is what the SDK's option.WithAPIKey sends).
	if r.Header.Get("x-api-key") != f.key && r.Header.Get("Authorization") != "Bearer "+f.key {
		writeError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key")
		return
	}
	if v := r.Header.Get("anthropic-version"); v != apiVersion {
		f.reject(w, "anthropic-version: %q is not a supported version (want %q)", v, apiVersion)
		return
	}
	if b := r.Header.Values("anthropic-beta"); len(b) > 0 {
		// Structured outputs (output_config) and adaptive thinking are
		// generally available: no beta is needed, and none is expected.
		f.t.Errorf("unexpected anthropic-beta header %q", b)
	}
	switch {
	case r.URL.Path == "/v1/messages":
		if r.Method != http.MethodPost {
			writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "Method Not Allowed")
			f.t.Errorf("%s /v1/messages, want POST", r.Method)
			return
		}
		if msg := f.checkMessageRequest(r); msg != "" {
			f.reject(w, "%s", msg)
			return
		}
		f.mu.Lock()
		f.messages++
		n := f.messages
		f.mu.Unlock()
		f.reply(w, r, n)
	case strings.HasPrefix(r.URL.Path, "/v1/models/"):
		if r.Method != http.MethodGet {
			f.reject(w, "%s %s, want GET", r.Method, r.URL.Path)
			return
		}
		f.mu.Lock()
		f.models++
		f.mu.Unlock()
		id := strings.TrimPrefix(r.URL.Path, "/v1/models/")
		if id != f.model {
			writeError(w, http.StatusNotFound, "not_found_error", "model: "+id)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"type":          "model",
			"id":            id,
			"display_name":  "Claude Opus 4.8",
			"created_at":    "2026-09-01T00:00:00Z",
			"deprecated_at": nil,
		})
	default:
		writeError(w, http.StatusNotFound, "not_found_error", "Not Found")
		f.t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
	}
}

// reject answers 400 invalid_request_error and fails the test.
func (f *fakeAPI) reject(w http.ResponseWriter, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	f.t.Errorf("the fake API rejected a request: %s", msg)
	writeError(w, http.StatusBadRequest, "invalid_request_error", msg)
}

// checkMessageRequest says what is wrong with a Messages request, or "".
func (f *fakeAPI) checkMessageRequest(r *http.Request) string {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return fmt.Sprintf("content-type %q, want application/json", r.Header.Get("Content-Type"))
	}
	var body map[string]json.RawMessage
	dec := json.NewDecoder(r.Body)
	dec.UseNumber()
	if err := dec.Decode(&body); err != nil {
		return "the body is not a JSON object: " + err.Error()
	}
	// Exactly the fields the judge must send. temperature, top_p and top_k
	// no longer exist in API version 2026-10-21.
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
	if err != nil || system != verify.JudgeSystemPrompt {
		return fmt.Sprintf("system: %s (%v), want verify.JudgeSystemPrompt", body["system"], err)
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
	if prompt != verify.JudgePrompt(f.event, f.cand) {
		return fmt.Sprintf("messages.0.content is %q, want verify.JudgePrompt of the event and candidate", prompt)
	}
	needles := append([]string{f.event.Query, f.cand.Sound.Caption}, f.cand.Sound.Tags...)
	if f.event.Scene != "" {
		needles = append(needles, f.event.Scene)
	}
	for _, s := range needles {
		if !strings.Contains(prompt, s) {
			return fmt.Sprintf("the user message does not hold %q: %q", s, prompt)
		}
	}

	// Structured output: output_config.format, a json_schema format with
	// the judge's schema, all fields required and no others allowed.
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
	switch oc.Effort {
	case "", "low", "medium", "high", "xhigh", "max":
	default:
		return fmt.Sprintf("output_config.effort %q is not an effort level", oc.Effort)
	}
	if oc.Format.Type != "json_schema" {
		return fmt.Sprintf("output_config.format.type %q, want json_schema", oc.Format.Type)
	}
	if !jsonEqual(mustJSON(oc.Format.Schema), verify.JudgeSchema()) {
		return fmt.Sprintf("output_config.format.schema %v, want verify.JudgeSchema()", oc.Format.Schema)
	}
	s := oc.Format.Schema
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

var requestSeq struct {
	sync.Mutex
	n int
}

func requestID() string {
	requestSeq.Lock()
	defer requestSeq.Unlock()
	requestSeq.n++
	return fmt.Sprintf("req_011CTest%04d", requestSeq.n)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	if w.Header().Get("request-id") == "" {
		w.Header().Set("request-id", requestID())
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers in the API's error shape.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	id := requestID()
	w.Header().Set("request-id", id)
	writeJSON(w, status, map[string]any{
		"type":       "error",
		"error":      map[string]any{"type": typ, "message": msg},
		"request_id": id,
	})
}

// block helpers, in the shapes of the API's content blocks.
func thinkingBlock(text string) map[string]any {
	return map[string]any{"type": "thinking", "thinking": text, "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}
}

func redactedThinkingBlock() map[string]any {
	return map[string]any{"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pUVXQdJYbXv4b2rvuKhS"}
}

func textBlock(text string) map[string]any {
	return map[string]any{"type": "text", "text": text}
}

// message is a Messages API response.
func message(model, stopReason string, content ...map[string]any) map[string]any {
	if content == nil {
		content = []map[string]any{}
	}
	return map[string]any{
		"id":            "msg_01XFDUDYJgAACzvnptvVoYEL",
		"type":          "message",
		"role":          "assistant",
		"model":         model,
		"content":       content,
		"stop_reason":   stopReason,
		"stop_sequence": nil,
		"stop_details":  nil,
		"container":     nil,
		"usage": map[string]any{
			"input_tokens":                412,
			"output_tokens":               187,
			"cache_creation_input_tokens": 20,
			"cache_read_input_tokens":     30,
			"service_tier":                "standard",
		},
	}
}

// answer returns a reply that always sends msg.
func answer(msg map[string]any) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) { writeJSON(w, http.StatusOK, msg) }
}
