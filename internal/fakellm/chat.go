package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Chat is an OpenAI-compatible server (vLLM, as far as a client can tell)
// under /v1: GET /v1/models lists Model, and POST /v1/chat/completions
// takes a JSON body, which Check checks, and answers through Reply.
type Chat struct {
	*httptest.Server
	Model  string // the model it serves
	APIKey string // the bearer token it demands; "" demands none be sent
	// Check says what is wrong with the body of a chat completion (decoded
	// with json.Number for numbers), or "".
	Check func(body map[string]any) string
	// Reply answers the n-th (from 1) valid chat completion.
	Reply func(w http.ResponseWriter, n int)

	t  testing.TB
	mu sync.Mutex
	n  int
}

// NewChat starts a fake serving model, closed when the test ends.
func NewChat(t testing.TB, model string, check func(body map[string]any) string, reply func(w http.ResponseWriter, n int)) *Chat {
	t.Helper()
	f := &Chat{t: t, Model: model, Check: check, Reply: reply}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// Base is the server's OpenAI base URL.
func (f *Chat) Base() string { return f.URL + "/v1" }

// Count is the number of valid chat completions received.
func (f *Chat) Count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// reject answers as vLLM does to a request it cannot serve, and fails the
// test: the client sent something the real server would not take.
func (f *Chat) reject(w http.ResponseWriter, status int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	f.t.Errorf("fake server: %s", msg)
	WriteJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "BadRequestError", "code": status}})
}

func (f *Chat) serve(w http.ResponseWriter, r *http.Request) {
	want := ""
	if f.APIKey != "" {
		want = "Bearer " + f.APIKey
	}
	if got := r.Header.Get("Authorization"); got != want {
		f.reject(w, http.StatusUnauthorized, "Authorization %q, want %q", got, want)
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		WriteJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{
			map[string]any{"id": f.Model, "object": "model", "created": 1700000000, "owned_by": "vllm"},
		}})
		return
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
	default:
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
	if problem := f.Check(body); problem != "" {
		f.reject(w, http.StatusBadRequest, "%s", problem)
		return
	}
	f.mu.Lock()
	f.n++
	n := f.n
	f.mu.Unlock()
	f.Reply(w, n)
}

// CheckCommon checks what every chat completion carries: no field but the
// allowed ones, the served model, exactly one of max_tokens and
// max_completion_tokens (vLLM takes either) saying maxTokens, and
// temperature 0. It returns the messages, or what is wrong.
func (f *Chat) CheckCommon(body map[string]any, allowed []string, maxTokens int) ([]any, string) {
	for k := range body {
		if !slices.Contains(allowed, k) {
			return nil, fmt.Sprintf("unexpected field %q", k)
		}
	}
	if body["model"] != f.Model {
		return nil, fmt.Sprintf("model %v, want %q", body["model"], f.Model)
	}
	mt, mct := body["max_tokens"], body["max_completion_tokens"]
	if (mt == nil) == (mct == nil) {
		return nil, fmt.Sprintf("max_tokens %v, max_completion_tokens %v: want exactly one", mt, mct)
	}
	if mt == nil {
		mt = mct
	}
	if got := fmt.Sprint(mt); got != fmt.Sprint(maxTokens) {
		return nil, fmt.Sprintf("max tokens %s, want %d", got, maxTokens)
	}
	if temp, ok := body["temperature"].(json.Number); !ok || temp.String() != "0" {
		return nil, fmt.Sprintf("temperature %v, want 0", body["temperature"])
	}
	msgs, ok := body["messages"].([]any)
	if !ok {
		return nil, fmt.Sprintf("messages %v is not a list", body["messages"])
	}
	return msgs, ""
}

// CheckSchemaRequest checks a chat completion that asks for a JSON answer:
// what CheckCommon checks, with response_format the only other field; the
// system prompt system; one user message, user (or any non-empty one when
// user is ""); and a strict json_schema response format named name, whose
// schema the schema function checks.
func (f *Chat) CheckSchemaRequest(body map[string]any, maxTokens int, system, user, name string, schema func(map[string]any) string) string {
	msgs, problem := f.CheckCommon(body, []string{"model", "messages", "max_tokens", "max_completion_tokens", "temperature", "response_format"}, maxTokens)
	if problem != "" {
		return problem
	}
	if len(msgs) != 2 {
		return fmt.Sprintf("%d messages, want system and user", len(msgs))
	}
	sys, _ := msgs[0].(map[string]any)
	usr, _ := msgs[1].(map[string]any)
	if sys["role"] != "system" || sys["content"] != system {
		return fmt.Sprintf("first message %v, want the system prompt", sys)
	}
	if usr["role"] != "user" {
		return fmt.Sprintf("second message role %v, want user", usr["role"])
	}
	if s, ok := usr["content"].(string); !ok || s == "" || (user != "" && s != user) {
		return fmt.Sprintf("user message %v, want %q", usr["content"], user)
	}
	rf, _ := body["response_format"].(map[string]any)
	if rf["type"] != "json_schema" {
		return fmt.Sprintf("response_format %v, want json_schema", rf)
	}
	js, _ := rf["json_schema"].(map[string]any)
	if js["name"] != name || js["strict"] != true {
		return fmt.Sprintf("json_schema name %v strict %v, want %q and true", js["name"], js["strict"], name)
	}
	s, _ := js["schema"].(map[string]any)
	if msg := schema(s); msg != "" {
		return "json_schema.schema: " + msg
	}
	return ""
}

// Completion is a chat completion as vLLM answers it, of one choice:
// content and refusal are strings, or nil for JSON null; logprobs nil is
// JSON null; usage nil leaves usage out (see Usage).
func Completion(model string, content, refusal any, logprobs map[string]any, finish string, usage map[string]any) map[string]any {
	var lp any
	if logprobs != nil {
		lp = logprobs
	}
	c := map[string]any{
		"id":      "chatcmpl-7f3a9c",
		"object":  "chat.completion",
		"created": 1700000000,
		"model":   model,
		"choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": content, "refusal": refusal, "tool_calls": []any{}},
			"logprobs":      lp,
			"finish_reason": finish,
			"stop_reason":   nil,
		}},
	}
	if usage != nil {
		c["usage"] = usage
	}
	return c
}

// Usage is the usage of a completion.
func Usage(prompt, completion int) map[string]any {
	return map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
}
