package elevenlabs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"testing"
)

// The MP3 the fake answers: 44.1 kHz at 128 kbit/s, which is what the
// API's default output format, mp3_44100_128, is. It starts with a frame
// sync, no ID3 tag.
const fixtureMP3 = "../internal/mp3/testdata/sox_44k_128.mp3"

// outputFormats are the output_format values the API documents.
var outputFormats = []string{
	"mp3_22050_32", "mp3_24000_48", "mp3_44100_32", "mp3_44100_64", "mp3_44100_96", "mp3_44100_128", "mp3_44100_192",
	"pcm_8000", "pcm_16000", "pcm_22050", "pcm_24000", "pcm_32000", "pcm_44100", "pcm_48000",
	"ulaw_8000", "alaw_8000",
	"opus_48000_32", "opus_48000_64", "opus_48000_96", "opus_48000_128", "opus_48000_192",
}

// fakeAPI is the ElevenLabs sound-generation API as far as foley can tell:
// it checks every request as the real API would and answers an MP3.
type fakeAPI struct {
	t      *testing.T
	apiKey string
	mp3    []byte

	// hook, when set, may answer a request instead (return true). n counts
	// the requests, from 1.
	hook func(w http.ResponseWriter, r *http.Request, n int) bool

	mu       sync.Mutex
	n        int
	requests []fakeRequest // the valid requests, in order
}

// fakeRequest is a valid request the fake served.
type fakeRequest struct {
	OutputFormat string
	Body         map[string]json.RawMessage
}

func newFake(t *testing.T) (*fakeAPI, *httptest.Server) {
	t.Helper()
	mp3, err := os.ReadFile(fixtureMP3)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeAPI{t: t, apiKey: "sk_test_0123456789abcdef", mp3: mp3}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeAPI) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

func (f *fakeAPI) log() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// apiError answers an error in the API's shape: {"detail": {...}}.
func apiError(w http.ResponseWriter, code int, status, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"detail": map[string]any{"status": status, "message": msg}})
}

// validationError answers 422 with a FastAPI validation error body.
func validationError(w http.ResponseWriter, loc []any, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnprocessableEntity)
	json.NewEncoder(w).Encode(map[string]any{
		"detail": []map[string]any{{"type": "value_error", "loc": loc, "msg": msg}},
	})
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.n++
	n := f.n
	f.mu.Unlock()
	if f.hook != nil && f.hook(w, r, n) {
		return
	}
	if r.URL.Path != "/v1/sound-generation" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(map[string]string{"detail": "Not Found"})
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusMethodNotAllowed)
		json.NewEncoder(w).Encode(map[string]string{"detail": "Method Not Allowed"})
		return
	}
	if r.Header.Get("xi-api-key") != f.apiKey {
		apiError(w, http.StatusUnauthorized, "invalid_api_key", "Invalid API key")
		return
	}
	if r.Header.Get("Authorization") != "" {
		validationError(w, []any{"header", "Authorization"}, "the API key goes in xi-api-key")
		return
	}
	q := r.URL.Query()
	format := "mp3_44100_128"
	if v, ok := q["output_format"]; ok {
		if len(v) != 1 || !slices.Contains(outputFormats, v[0]) {
			validationError(w, []any{"query", "output_format"}, fmt.Sprintf("Input should be one of the output formats, got %q", v))
			return
		}
		format = v[0]
	}
	for k := range q {
		if k != "output_format" && k != "enable_logging" {
			validationError(w, []any{"query", k}, "Extra inputs are not permitted")
			return
		}
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		validationError(w, []any{"body"}, "Content-Type is "+ct+", want application/json")
		return
	}
	var body map[string]json.RawMessage
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(&body); err != nil || dec.More() {
		validationError(w, []any{"body"}, fmt.Sprintf("JSON decode error: %v", err))
		return
	}
	if msg, loc := checkBody(body); msg != "" {
		validationError(w, []any{"body", loc}, msg)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, fakeRequest{OutputFormat: format, Body: body})
	f.mu.Unlock()
	if format != "mp3_44100_128" {
		f.t.Errorf("the fake only has an mp3_44100_128 answer, asked for %s", format)
	}
	w.Header().Set("Content-Type", "audio/mpeg")
	w.Header().Set("character-cost", "40")
	w.Write(f.mp3)
}

// checkBody checks a body against the API's schema; it returns a message
// and the field at fault, or "".
func checkBody(body map[string]json.RawMessage) (msg, field string) {
	text, ok := body["text"]
	if !ok {
		return "Field required", "text"
	}
	var s string
	if json.Unmarshal(text, &s) != nil || s == "" {
		return "Input should be a non-empty string", "text"
	}
	for k, raw := range body {
		switch k {
		case "text":
		case "duration_seconds":
			if string(raw) == "null" {
				continue
			}
			var d float64
			if json.Unmarshal(raw, &d) != nil || d < 0.5 || d > 30 {
				return "Duration must be between 0.5 and 30 seconds", k
			}
		case "prompt_influence":
			if string(raw) == "null" {
				continue
			}
			var p float64
			if json.Unmarshal(raw, &p) != nil || p < 0 || p > 1 {
				return "Input should be between 0 and 1", k
			}
		case "loop":
			var b bool
			if json.Unmarshal(raw, &b) != nil {
				return "Input should be a valid boolean", k
			}
		case "model_id":
			var m string
			if json.Unmarshal(raw, &m) != nil || m == "" {
				return "Input should be a valid string", k
			}
		default:
			return "Extra inputs are not permitted", k
		}
	}
	return "", ""
}

// field decodes one field of a request body into v.
func field(t *testing.T, req fakeRequest, name string, v any) bool {
	t.Helper()
	raw, ok := req.Body[name]
	if !ok {
		return false
	}
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(v); err != nil {
		t.Fatalf("field %s: %v", name, err)
	}
	return true
}
