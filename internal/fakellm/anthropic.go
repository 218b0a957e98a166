package fakellm

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// AnthropicVersion is the anthropic-version the SDK v2 sends, and the one
// the fake API speaks.
const AnthropicVersion = "2026-10-21"

// Anthropic is the Messages API (POST /v1/messages) and the Models API
// (GET /v1/models/{model}) on an httptest server. It checks each request as
// the real API requires — credentials, version, and a Messages body of the
// shape a caller asking for structured output with adaptive thinking sends:
// exactly max_tokens, messages (one user message), model, output_config (a
// json_schema format and an effort), system and thinking (adaptive) — and
// answers with Reply, in the real API's shapes.
type Anthropic struct {
	*httptest.Server
	Key       string // the API key it demands
	Model     string // the model requests must name, and the one GET /v1/models knows
	MaxTokens int    // the max_tokens requests must carry
	// Check, when set, says what else is wrong with a Messages request, or
	// "".
	Check func(AnthropicRequest) string
	// Reply answers the n-th (from 1) valid POST /v1/messages.
	Reply func(w http.ResponseWriter, r *http.Request, n int)

	t        testing.TB
	mu       sync.Mutex
	messages int // valid POST /v1/messages received
	models   int // GET /v1/models/... received
}

// AnthropicRequest is what a Messages request asks, as the fake read it.
type AnthropicRequest struct {
	System string         // the system prompt's text
	Prompt string         // the user message's text
	Effort string         // output_config.effort
	Schema map[string]any // output_config.format.schema
}

// NewAnthropic starts a fake, closed when the test ends.
func NewAnthropic(t testing.TB, key, model string, maxTokens int, check func(AnthropicRequest) string,
	reply func(w http.ResponseWriter, r *http.Request, n int)) *Anthropic {
	t.Helper()
	f := &Anthropic{t: t, Key: key, Model: model, MaxTokens: maxTokens, Check: check, Reply: reply}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// MessageCalls is the number of valid POST /v1/messages received.
func (f *Anthropic) MessageCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.messages
}

// ModelCalls is the number of GET /v1/models/{model} received.
func (f *Anthropic) ModelCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.models
}

func (f *Anthropic) serve(w http.ResponseWriter, r *http.Request) {
	// Credentials first, as the API does: x-api-key, or a bearer token
	// (which is what the SDK's option.WithAPIKey sends).
	if r.Header.Get("x-api-key") != f.Key && r.Header.Get("Authorization") != "Bearer "+f.Key {
		WriteAnthropicError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key")
		return
	}
	if v := r.Header.Get("anthropic-version"); v != AnthropicVersion {
		f.reject(w, "anthropic-version: %q is not a supported version (want %q)", v, AnthropicVersion)
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
			WriteAnthropicError(w, http.StatusMethodNotAllowed, "invalid_request_error", "Method Not Allowed")
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
		f.Reply(w, r, n)
	case strings.HasPrefix(r.URL.Path, "/v1/models/"):
		if r.Method != http.MethodGet {
			f.reject(w, "%s %s, want GET", r.Method, r.URL.Path)
			return
		}
		f.mu.Lock()
		f.models++
		f.mu.Unlock()
		id := strings.TrimPrefix(r.URL.Path, "/v1/models/")
		if id != f.Model {
			WriteAnthropicError(w, http.StatusNotFound, "not_found_error", "model: "+id)
			return
		}
		WriteAnthropicJSON(w, http.StatusOK, map[string]any{
			"type":          "model",
			"id":            id,
			"display_name":  "Claude Opus 4.8",
			"created_at":    "2026-09-01T00:00:00Z",
			"deprecated_at": nil,
		})
	default:
		WriteAnthropicError(w, http.StatusNotFound, "not_found_error", "Not Found")
		f.t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
	}
}

// reject answers 400 invalid_request_error and fails the test.
func (f *Anthropic) reject(w http.ResponseWriter, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	f.t.Errorf("the fake Anthropic API rejected a request: %s", msg)
	WriteAnthropicError(w, http.StatusBadRequest, "invalid_request_error", msg)
}

// checkMessageRequest says what is wrong with a Messages request, or "".
func (f *Anthropic) checkMessageRequest(r *http.Request) string {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return fmt.Sprintf("content-type %q, want application/json", r.Header.Get("Content-Type"))
	}
	var body map[string]json.RawMessage
	dec := json.NewDecoder(r.Body)
	dec.UseNumber()
	if err := dec.Decode(&body); err != nil {
		return "the body is not a JSON object: " + err.Error()
	}
	// Exactly these fields. temperature, top_p and top_k no longer exist
	// in API version 2026-10-21.
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
	if json.Unmarshal(body["model"], &model) != nil || model != f.Model {
		return fmt.Sprintf("model: %s, want %q", body["model"], f.Model)
	}
	var maxTokens int
	if json.Unmarshal(body["max_tokens"], &maxTokens) != nil || maxTokens != f.MaxTokens {
		return fmt.Sprintf("max_tokens: %s, want %d", body["max_tokens"], f.MaxTokens)
	}
	if !SameJSON(body["thinking"], map[string]any{"type": "adaptive"}) {
		return fmt.Sprintf("thinking: %s, want {\"type\":\"adaptive\"}", body["thinking"])
	}
	var req AnthropicRequest
	var err error
	if req.System, err = textOf(body["system"]); err != nil {
		return fmt.Sprintf("system: %s: %v", body["system"], err)
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
	if req.Prompt, err = textOf(messages[0].Content); err != nil {
		return "messages.0.content: " + err.Error()
	}

	// Structured output: output_config.format, a json_schema format, and
	// the effort.
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
	req.Effort, req.Schema = oc.Effort, oc.Format.Schema
	if f.Check != nil {
		return f.Check(req)
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

var requestSeq struct {
	sync.Mutex
	n int
}

// RequestID is a new request-id, as the API gives each answer.
func RequestID() string {
	requestSeq.Lock()
	defer requestSeq.Unlock()
	requestSeq.n++
	return fmt.Sprintf("req_011CTest%04d", requestSeq.n)
}

// WriteAnthropicJSON answers with status and v as JSON, with a request-id
// header unless w has one.
func WriteAnthropicJSON(w http.ResponseWriter, status int, v any) {
	if w.Header().Get("request-id") == "" {
		w.Header().Set("request-id", RequestID())
	}
	WriteJSON(w, status, v)
}

// WriteAnthropicError answers in the API's error shape, with a new
// request id.
func WriteAnthropicError(w http.ResponseWriter, status int, typ, msg string) {
	WriteAnthropicErrorID(w, status, RequestID(), typ, msg)
}

// WriteAnthropicErrorID answers in the API's error shape, with request id
// id.
func WriteAnthropicErrorID(w http.ResponseWriter, status int, id, typ, msg string) {
	w.Header().Set("request-id", id)
	WriteJSON(w, status, map[string]any{
		"type":       "error",
		"error":      map[string]any{"type": typ, "message": msg},
		"request_id": id,
	})
}

// ThinkingBlock, RedactedThinkingBlock and TextBlock are content blocks in
// the API's shapes.
func ThinkingBlock(text string) map[string]any {
	return map[string]any{"type": "thinking", "thinking": text, "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}
}

func RedactedThinkingBlock() map[string]any {
	return map[string]any{"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pUVXQdJYbXv4b2rvuKhS"}
}

func TextBlock(text string) map[string]any {
	return map[string]any{"type": "text", "text": text}
}

// Message is a Messages API response (id msg_01XFDUDYJgAACzvnptvVoYEL)
// with usage input_tokens 412, output_tokens 187,
// cache_creation_input_tokens 20 and cache_read_input_tokens 30.
func Message(model, stopReason string, content ...map[string]any) map[string]any {
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
