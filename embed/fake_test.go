package embed

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// fakeCLAP is an Infinity embedding server as far as foley can tell: it
// checks every request as the real server would and answers deterministic
// embeddings derived from a hash of each input.
type fakeCLAP struct {
	t      *testing.T
	model  string // the model it serves
	dim    int    // its embedding dimension
	rate   int    // the sample rate it demands of audio (48000)
	apiKey string // the bearer token it demands, if any

	// hook, when set, may answer a request instead (return true). n counts
	// the requests, from 1.
	hook func(w http.ResponseWriter, r *http.Request, n int) bool

	mu       sync.Mutex
	n        int
	requests []fakeRequest // the valid requests, in order
}

type fakeRequest struct {
	Modality string
	Inputs   []string
}

func newFake(t *testing.T) *fakeCLAP {
	return &fakeCLAP{t: t, model: DefaultCLAPModel, dim: 32, rate: 48000}
}

func (f *fakeCLAP) log() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeRequest(nil), f.requests...)
}

func (f *fakeCLAP) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// fakeVector is the fake's embedding of an input: dim numbers drawn from
// SHA-256 of the input, normalised (as Infinity normalises).
func fakeVector(input string, dim int) []float32 {
	v := make([]float32, dim)
	var block [32]byte
	for i := range v {
		if i%8 == 0 {
			block = sha256.Sum256([]byte(fmt.Sprintf("%d:%s", i/8, input)))
		}
		u := binary.LittleEndian.Uint32(block[4*(i%8):])
		v[i] = float32(u)/float32(math.MaxUint32)*2 - 1
	}
	n, _ := normalize32(v)
	return n
}

// validationError answers 422 with a FastAPI validation error body, as
// Infinity does for a request its schema rejects.
func validationError(w http.ResponseWriter, loc []any, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnprocessableEntity)
	json.NewEncoder(w).Encode(map[string]any{
		"detail": []map[string]any{{"type": "value_error", "loc": loc, "msg": msg}},
	})
}

// openAIError answers an Infinity OpenAIException body.
func openAIError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"message": msg, "type": nil, "param": nil, "code": code},
	})
}

func (f *fakeCLAP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.n++
	n := f.n
	f.mu.Unlock()
	if f.hook != nil && f.hook(w, r, n) {
		return
	}
	if r.URL.Path != "/embeddings" {
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(map[string]string{"detail": "Not Found"})
		return
	}
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		json.NewEncoder(w).Encode(map[string]string{"detail": "Method Not Allowed"})
		return
	}
	if f.apiKey != "" && r.Header.Get("Authorization") != "Bearer "+f.apiKey {
		w.WriteHeader(http.StatusUnauthorized)
		json.NewEncoder(w).Encode(map[string]string{"detail": "Invalid bearer token"})
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		validationError(w, []any{"body"}, "Content-Type is "+ct+", want application/json")
		return
	}
	var body map[string]json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		validationError(w, []any{"body"}, "JSON decode error: "+err.Error())
		return
	}
	for k := range body {
		switch k {
		case "model", "input", "encoding_format", "modality", "user":
		default:
			validationError(w, []any{"body", k}, "Extra inputs are not permitted")
			return
		}
	}
	var model, format, modality string
	var inputs []string
	if json.Unmarshal(body["model"], &model) != nil {
		validationError(w, []any{"body", "model"}, "Input should be a valid string")
		return
	}
	if json.Unmarshal(body["encoding_format"], &format) != nil || format != "float" {
		validationError(w, []any{"body", "encoding_format"}, `Input should be 'float' or 'base64' (foley must ask for "float")`)
		return
	}
	if raw, ok := body["modality"]; ok {
		if json.Unmarshal(raw, &modality) != nil || (modality != "text" && modality != "audio") {
			validationError(w, []any{"body", "modality"}, "Input should be 'text', 'audio' or 'image'")
			return
		}
	}
	if json.Unmarshal(body["input"], &inputs) != nil || len(inputs) == 0 {
		validationError(w, []any{"body", "input"}, "Input should be a non-empty list of strings")
		return
	}
	if model != f.model {
		openAIError(w, http.StatusBadRequest, fmt.Sprintf("Invalid model: %s, available models: [%s]", model, f.model))
		return
	}
	if modality == "audio" {
		if len(inputs) > MaxAudioBatch {
			validationError(w, []any{"body", "input"}, fmt.Sprintf("List should have at most %d items after validation, not %d", MaxAudioBatch, len(inputs)))
			return
		}
		for i, in := range inputs {
			if err := checkWAVDataURI(in, f.rate); err != nil {
				validationError(w, []any{"body", "input", i}, err.Error())
				return
			}
		}
	}
	f.mu.Lock()
	f.requests = append(f.requests, fakeRequest{Modality: modality, Inputs: inputs})
	f.mu.Unlock()

	// Answer in reverse order: only index says which input is which.
	type item struct {
		Object    string    `json:"object"`
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	}
	data := make([]item, 0, len(inputs))
	for i := len(inputs) - 1; i >= 0; i-- {
		data = append(data, item{"embedding", fakeVector(inputs[i], f.dim), i})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"object": "list", "data": data, "model": f.model,
		"usage": map[string]int{"prompt_tokens": len(inputs), "total_tokens": len(inputs)},
		"id":    fmt.Sprintf("infinity-%d", n), "created": 1700000000,
	})
}

// checkWAVDataURI checks that in is a data URI of a RIFF/WAVE file of
// 16-bit PCM mono at rate Hz.
func checkWAVDataURI(in string, rate int) error {
	const prefix = "data:audio/wav;base64,"
	if !strings.HasPrefix(in, prefix) {
		return fmt.Errorf("not a data:audio/wav;base64 URI: %.40q", in)
	}
	b, err := base64.StdEncoding.DecodeString(in[len(prefix):])
	if err != nil {
		return fmt.Errorf("invalid base64: %v", err)
	}
	_, err = parseWAV16Mono(b, rate)
	return err
}

// parseWAV16Mono checks a 16-bit mono PCM WAV file at rate Hz and returns
// its frame count.
func parseWAV16Mono(b []byte, rate int) (int, error) {
	if len(b) < 12 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return 0, fmt.Errorf("not a RIFF/WAVE file")
	}
	if int(binary.LittleEndian.Uint32(b[4:])) != len(b)-8 {
		return 0, fmt.Errorf("RIFF size %d does not match the %d bytes sent", binary.LittleEndian.Uint32(b[4:]), len(b)-8)
	}
	haveFmt := false
	for p := 12; p+8 <= len(b); {
		id, size := string(b[p:p+4]), int(binary.LittleEndian.Uint32(b[p+4:]))
		body := p + 8
		if size < 0 || body+size > len(b) {
			return 0, fmt.Errorf("chunk %q overruns the file", id)
		}
		switch id {
		case "fmt ":
			if size < 16 {
				return 0, fmt.Errorf("fmt chunk of %d bytes", size)
			}
			c := b[body:]
			format, ch := binary.LittleEndian.Uint16(c[0:]), binary.LittleEndian.Uint16(c[2:])
			sr, byteRate := binary.LittleEndian.Uint32(c[4:]), binary.LittleEndian.Uint32(c[8:])
			align, bits := binary.LittleEndian.Uint16(c[12:]), binary.LittleEndian.Uint16(c[14:])
			switch {
			case format != 1:
				return 0, fmt.Errorf("format %d, want PCM (1)", format)
			case ch != 1:
				return 0, fmt.Errorf("%d channels, want mono", ch)
			case int(sr) != rate:
				return 0, fmt.Errorf("sample rate %d Hz, want %d Hz", sr, rate)
			case bits != 16 || align != 2 || int(byteRate) != rate*2:
				return 0, fmt.Errorf("%d bits, block align %d, byte rate %d: want 16-bit mono", bits, align, byteRate)
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return 0, fmt.Errorf("data before fmt")
			}
			if size%2 != 0 {
				return 0, fmt.Errorf("odd data size %d", size)
			}
			return size / 2, nil
		}
		p = body + size + size%2
	}
	return 0, fmt.Errorf("no data chunk")
}

// wavFrames returns the frame count of a data URI the fake accepted.
func wavFrames(t *testing.T, uri string) int {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(uri, "data:audio/wav;base64,"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := parseWAV16Mono(b, 48000)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
