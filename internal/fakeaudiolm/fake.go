// Package fakeaudiolm is a fake of an OpenAI-compatible chat-completions
// server serving an audio LM (vLLM serving Qwen2-Audio), for tests and
// benchmarks: it checks each request as vLLM would (the audio part must be a
// base64 16-bit mono WAV) and answers in the OpenAI response shape, with the
// first token's top logprobs.
package fakeaudiolm

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Server is a running fake.
type Server struct {
	*httptest.Server
	Model string
	// PYes returns the probability of "yes" for the question asked about
	// a clip of the given number of 16 kHz samples.
	PYes  func(question string, samples int) float64
	Delay time.Duration // how long each answer takes
	calls atomic.Int64
}

// New starts a fake serving model, closed when the test ends. Its base URL
// (for FOLEY_AUDIOLM_URL) is URL + "/v1".
func New(t testing.TB, model string, pYes func(question string, samples int) float64) *Server {
	s := Start(model, pYes)
	t.Cleanup(s.Close)
	return s
}

// Start starts a fake outside a test (a benchmark program); Close it.
func Start(model string, pYes func(question string, samples int) float64) *Server {
	s := &Server{Model: model, PYes: pYes}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is the OpenAI base URL of the fake.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Calls is the number of chat completions served.
func (s *Server) Calls() int64 { return s.calls.Load() }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		writeJSON(w, 200, map[string]any{"object": "list", "data": []any{map[string]any{"id": s.Model, "object": "model", "owned_by": "vllm"}}})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		s.calls.Add(1)
		s.chat(w, r)
	default:
		writeJSON(w, 404, map[string]any{"object": "error", "message": "Not Found", "type": "NotFoundError", "code": 404})
	}
}

type request struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content []struct {
			Type       string `json:"type"`
			Text       string `json:"text"`
			InputAudio *struct {
				Data   string `json:"data"`
				Format string `json:"format"`
			} `json:"input_audio"`
		} `json:"content"`
	} `json:"messages"`
	MaxTokens           *int     `json:"max_tokens"`
	MaxCompletionTokens *int     `json:"max_completion_tokens"`
	Temperature         *float64 `json:"temperature"`
	Logprobs            bool     `json:"logprobs"`
	TopLogprobs         int      `json:"top_logprobs"`
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		badRequest(w, "invalid JSON: "+err.Error())
		return
	}
	if req.Model != s.Model {
		writeJSON(w, 404, map[string]any{"object": "error", "message": fmt.Sprintf("The model `%s` does not exist.", req.Model), "type": "NotFoundError", "code": 404})
		return
	}
	if len(req.Messages) != 1 || req.Messages[0].Role != "user" {
		badRequest(w, "want one user message")
		return
	}
	var question string
	samples := -1
	for _, part := range req.Messages[0].Content {
		switch part.Type {
		case "text":
			question = part.Text
		case "input_audio":
			if part.InputAudio == nil || part.InputAudio.Format != "wav" {
				badRequest(w, "input_audio must have format wav")
				return
			}
			n, err := wavSamples(part.InputAudio.Data)
			if err != nil {
				badRequest(w, "input_audio: "+err.Error())
				return
			}
			samples = n
		}
	}
	if question == "" || samples < 0 {
		badRequest(w, "want an input_audio part and a text part")
		return
	}
	if req.TopLogprobs > 20 {
		badRequest(w, "top_logprobs must be at most 20")
		return
	}
	if s.Delay > 0 {
		select {
		case <-time.After(s.Delay):
		case <-r.Context().Done():
			return
		}
	}
	p := s.PYes(question, samples)
	first := "Yes"
	if p < 0.5 {
		first = "No"
	}
	choice := map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": first}, "finish_reason": "length"}
	if req.Logprobs {
		lp := func(tok string, prob float64) map[string]any {
			return map[string]any{"token": tok, "logprob": math.Log(max(prob, 1e-12)), "bytes": []byte(tok)}
		}
		top := []any{lp("Yes", 0.9*p), lp("No", 0.9*(1-p)), lp("yes", 0.1*p), lp("no", 0.1*(1-p))}
		if req.TopLogprobs < len(top) {
			top = top[:req.TopLogprobs]
		}
		chosen := lp(first, 0.9*max(p, 1-p))
		chosen["top_logprobs"] = top
		choice["logprobs"] = map[string]any{"content": []any{chosen}}
	}
	writeJSON(w, 200, map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", s.calls.Load()), "object": "chat.completion", "created": time.Now().Unix(), "model": s.Model,
		"choices": []any{choice},
		"usage":   map[string]any{"prompt_tokens": 30 + samples/640, "completion_tokens": 1, "total_tokens": 31 + samples/640},
	})
}

// wavSamples checks that data is base64 of a 16 kHz mono 16-bit PCM WAV and
// returns its number of samples.
func wavSamples(data string) (int, error) {
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return 0, fmt.Errorf("not base64: %v", err)
	}
	if len(b) < 44 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return 0, fmt.Errorf("not a RIFF WAVE file")
	}
	for off := 12; off+8 <= len(b); {
		id, size := string(b[off:off+4]), int(binary.LittleEndian.Uint32(b[off+4:]))
		body := b[off+8:]
		if size > len(body) {
			size = len(body)
		}
		switch id {
		case "fmt ":
			if size < 16 {
				return 0, fmt.Errorf("short fmt chunk")
			}
			ch, rate, bits := binary.LittleEndian.Uint16(body[2:]), binary.LittleEndian.Uint32(body[4:]), binary.LittleEndian.Uint16(body[14:])
			if ch != 1 || rate != 16000 || bits != 16 {
				return 0, fmt.Errorf("want 16 kHz mono 16-bit, got %d Hz, %d channels, %d bits", rate, ch, bits)
			}
		case "data":
			return size / 2, nil
		}
		off += 8 + size + size%2
	}
	return 0, fmt.Errorf("no data chunk")
}

func badRequest(w http.ResponseWriter, msg string) {
	writeJSON(w, 400, map[string]any{"object": "error", "message": msg, "type": "BadRequestError", "code": 400})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	json.NewEncoder(&buf).Encode(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// Contains is a PYes for tests: P(yes) is high when the question names
// any of words, low otherwise.
func Contains(words ...string) func(string, int) float64 {
	return func(q string, _ int) float64 {
		for _, w := range words {
			if strings.Contains(strings.ToLower(q), w) {
				return 0.93
			}
		}
		return 0.08
	}
}
