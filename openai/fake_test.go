package openai

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/foley-audio/foley/audio"
	"github.com/foley-audio/foley/verify"
)

// fakeServer is an OpenAI-compatible server (vLLM, as far as the judges
// can tell) under /v1: it checks every chat completion as the real server
// would, and answers through the test's answer function.
type fakeServer struct {
	t      *testing.T
	kind   string // "audio" or "llm": which request it expects
	model  string // the model it serves
	apiKey string // the bearer token it demands; "" demands none be sent

	// wantPrompt, when set, is the text part (audio) or user message (llm)
	// the request must carry.
	wantPrompt string
	// wantMaxTokens is the max_tokens the llm request must carry.
	wantMaxTokens int

	// answer answers the n-th valid chat completion (from 1).
	answer func(w http.ResponseWriter, n int)

	srv *httptest.Server

	mu   sync.Mutex
	n    int
	wavs [][]byte // the WAV files the audio requests carried
}

func newFake(t *testing.T, kind string, answer func(w http.ResponseWriter, n int)) *fakeServer {
	f := &fakeServer{t: t, kind: kind, model: DefaultAudioLMModel, answer: answer, wantMaxTokens: DefaultMaxTokens}
	if kind == "llm" {
		f.model = "qwen2.5-7b-instruct"
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// base is the server's OpenAI base URL.
func (f *fakeServer) base() string { return f.srv.URL + "/v1" }

func (f *fakeServer) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

func (f *fakeServer) lastWAV() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.wavs) == 0 {
		return nil
	}
	return f.wavs[len(f.wavs)-1]
}

// reject answers as vLLM does to a request it cannot serve, and fails the
// test: the judge sent something the real server would not take.
func (f *fakeServer) reject(w http.ResponseWriter, status int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	f.t.Errorf("fake server: %s", msg)
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "BadRequestError", "code": status}})
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	if got, want := r.Header.Get("Authorization"), bearer(f.apiKey); got != want {
		f.reject(w, http.StatusUnauthorized, "Authorization %q, want %q", got, want)
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{
			map[string]any{"id": f.model, "object": "model", "created": 1700000000, "owned_by": "vllm"},
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
	var problem string
	if f.kind == "audio" {
		problem = f.checkAudio(body)
	} else {
		problem = f.checkLLM(body)
	}
	if problem != "" {
		f.reject(w, http.StatusBadRequest, "%s", problem)
		return
	}
	f.mu.Lock()
	f.n++
	n := f.n
	f.mu.Unlock()
	f.answer(w, n)
}

func bearer(key string) string {
	if key == "" {
		return ""
	}
	return "Bearer " + key
}

// checkCommon checks what both kinds of request carry and returns the
// messages.
func (f *fakeServer) checkCommon(body map[string]any, allowed []string, maxTokens int) ([]any, string) {
	for k := range body {
		if !slices.Contains(allowed, k) {
			return nil, fmt.Sprintf("unexpected field %q", k)
		}
	}
	if body["model"] != f.model {
		return nil, fmt.Sprintf("model %v, want %q", body["model"], f.model)
	}
	// vLLM takes either name; exactly one must say maxTokens.
	mt, mct := body["max_tokens"], body["max_completion_tokens"]
	if (mt == nil) == (mct == nil) {
		return nil, fmt.Sprintf("max_tokens %v, max_completion_tokens %v: want exactly one", mt, mct)
	}
	if got := fmt.Sprint(cmpOr(mt, mct)); got != fmt.Sprint(maxTokens) {
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

func cmpOr(a, b any) any {
	if a != nil {
		return a
	}
	return b
}

func (f *fakeServer) checkAudio(body map[string]any) string {
	msgs, problem := f.checkCommon(body, []string{"model", "messages", "max_tokens", "max_completion_tokens", "temperature", "logprobs", "top_logprobs"}, 1)
	if problem != "" {
		return problem
	}
	if body["logprobs"] != true {
		return fmt.Sprintf("logprobs %v, want true", body["logprobs"])
	}
	if fmt.Sprint(body["top_logprobs"]) != "20" {
		return fmt.Sprintf("top_logprobs %v, want 20", body["top_logprobs"])
	}
	if len(msgs) != 1 {
		return fmt.Sprintf("%d messages, want exactly one user message", len(msgs))
	}
	msg, _ := msgs[0].(map[string]any)
	if msg["role"] != "user" {
		return fmt.Sprintf("message role %v, want user", msg["role"])
	}
	parts, _ := msg["content"].([]any)
	var wav []byte
	var text string
	var nAudio, nText int
	for _, p := range parts {
		part, _ := p.(map[string]any)
		switch part["type"] {
		case "input_audio":
			nAudio++
			in, _ := part["input_audio"].(map[string]any)
			if in["format"] != "wav" {
				return fmt.Sprintf("input_audio format %v, want wav", in["format"])
			}
			s, _ := in["data"].(string)
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return fmt.Sprintf("input_audio data is not base64: %v", err)
			}
			if problem := checkModelWAV(b); problem != "" {
				return problem
			}
			wav = b
		case "text":
			nText++
			text, _ = part["text"].(string)
		default:
			return fmt.Sprintf("content part of type %v", part["type"])
		}
	}
	if nAudio != 1 || nText != 1 {
		return fmt.Sprintf("%d input_audio and %d text parts, want one of each", nAudio, nText)
	}
	if f.wantPrompt != "" && text != f.wantPrompt {
		return fmt.Sprintf("text part %q, want %q", text, f.wantPrompt)
	}
	f.mu.Lock()
	f.wavs = append(f.wavs, wav)
	f.mu.Unlock()
	return ""
}

// checkModelWAV checks that b is a RIFF WAVE file, PCM, 16 kHz, mono,
// 16-bit, at most 30 s long.
func checkModelWAV(b []byte) string {
	if len(b) < 12 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return "input_audio is not a RIFF WAVE file"
	}
	var fmtOK bool
	for off := 12; off+8 <= len(b); {
		id, size := string(b[off:off+4]), int(binary.LittleEndian.Uint32(b[off+4:]))
		data := b[off+8 : min(len(b), off+8+size)]
		switch id {
		case "fmt ":
			if len(data) < 16 {
				return "short fmt chunk"
			}
			tag := binary.LittleEndian.Uint16(data[0:])
			ch := binary.LittleEndian.Uint16(data[2:])
			rate := binary.LittleEndian.Uint32(data[4:])
			bits := binary.LittleEndian.Uint16(data[14:])
			if tag != 1 || ch != 1 || rate != 16000 || bits != 16 {
				return fmt.Sprintf("WAV is format %d, %d channels, %d Hz, %d bits; want PCM mono 16 kHz 16-bit", tag, ch, rate, bits)
			}
			fmtOK = true
		case "data":
			if !fmtOK {
				return "WAV data before fmt"
			}
			if len(data) != size {
				return fmt.Sprintf("WAV data chunk says %d bytes, has %d", size, len(data))
			}
			if secs := float64(size) / 2 / 16000; secs > 30 || size == 0 {
				return fmt.Sprintf("WAV holds %.2f s, want 0 < s <= 30", secs)
			}
			return ""
		}
		off += 8 + size + size%2
	}
	return "WAV has no data chunk"
}

func (f *fakeServer) checkLLM(body map[string]any) string {
	msgs, problem := f.checkCommon(body, []string{"model", "messages", "max_tokens", "max_completion_tokens", "temperature", "response_format"}, f.wantMaxTokens)
	if problem != "" {
		return problem
	}
	if len(msgs) != 2 {
		return fmt.Sprintf("%d messages, want system and user", len(msgs))
	}
	sys, _ := msgs[0].(map[string]any)
	user, _ := msgs[1].(map[string]any)
	if sys["role"] != "system" || sys["content"] != verify.JudgeSystemPrompt {
		return fmt.Sprintf("first message %v, want the system prompt", sys)
	}
	if user["role"] != "user" {
		return fmt.Sprintf("second message role %v, want user", user["role"])
	}
	if s, ok := user["content"].(string); !ok || s == "" || (f.wantPrompt != "" && s != f.wantPrompt) {
		return fmt.Sprintf("user message %v, want %q", user["content"], f.wantPrompt)
	}
	rf, _ := body["response_format"].(map[string]any)
	if rf["type"] != "json_schema" {
		return fmt.Sprintf("response_format %v, want json_schema", rf)
	}
	js, _ := rf["json_schema"].(map[string]any)
	if js["name"] != "verdict" || js["strict"] != true {
		return fmt.Sprintf("json_schema name %v strict %v, want verdict and true", js["name"], js["strict"])
	}
	got, _ := json.Marshal(js["schema"])
	want, _ := json.Marshal(verify.JudgeSchema())
	if !jsonEqual(got, want) {
		return fmt.Sprintf("schema %s, want %s", got, want)
	}
	return ""
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// alt is a token and its probability.
type alt struct {
	token string
	p     float64
}

func tokenEntry(a alt) map[string]any {
	var bs []int
	for _, b := range []byte(a.token) {
		bs = append(bs, int(b))
	}
	return map[string]any{"token": a.token, "logprob": math.Log(a.p), "bytes": bs}
}

// logprobs is the logprobs of a one-token answer: the chosen token and
// the top alternatives.
func logprobs(chosen alt, top ...alt) map[string]any {
	e := tokenEntry(chosen)
	tops := []any{}
	for _, a := range top {
		tops = append(tops, tokenEntry(a))
	}
	e["top_logprobs"] = tops
	return map[string]any{"content": []any{e}}
}

// completion is a chat completion as vLLM answers it. lp may be nil (the
// JSON null vLLM sends when no logprobs were asked for or given); usage
// false leaves usage out.
func completion(model, content string, lp map[string]any, finish string, usage bool) map[string]any {
	var lpv any
	if lp != nil {
		lpv = lp
	}
	c := map[string]any{
		"id":      "chatcmpl-7f3a9c",
		"object":  "chat.completion",
		"created": 1700000000,
		"model":   model,
		"choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": content, "refusal": nil, "tool_calls": []any{}},
			"logprobs":      lpv,
			"finish_reason": finish,
			"stop_reason":   nil,
		}},
	}
	if usage {
		c["usage"] = map[string]any{"prompt_tokens": 812, "completion_tokens": 1, "total_tokens": 813}
	}
	return c
}

// answerWith answers every request with v.
func answerWith(v any) func(http.ResponseWriter, int) {
	return func(w http.ResponseWriter, _ int) { writeJSON(w, http.StatusOK, v) }
}

// writeWAV writes a 16-bit WAV file of a 440 Hz tone in every channel.
func writeWAV(t *testing.T, path string, rate, channels int, seconds float64) {
	t.Helper()
	frames := int(seconds * float64(rate))
	c := &audio.Clip{SampleRate: rate, Channels: channels, Samples: make([]float32, frames*channels)}
	for i := range frames {
		v := float32(0.5 * math.Sin(2*math.Pi*440*float64(i)/float64(rate)))
		for ch := range channels {
			c.Samples[i*channels+ch] = v
		}
	}
	var buf bytes.Buffer
	if err := c.WriteWAV16(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// shortWAV writes a quarter-second 44.1 kHz mono WAV file in a temporary
// directory and returns its path.
func shortWAV(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "door.wav")
	writeWAV(t, p, 44100, 1, 0.25)
	return p
}
