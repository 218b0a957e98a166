package openai

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/foley-audio/foley/audio"
	"github.com/foley-audio/foley/internal/fakellm"
	"github.com/foley-audio/foley/verify"
)

// fakeServer is an OpenAI-compatible server (see fakellm.Chat), checking
// that every chat completion is the audio LM's or the LLM judge's.
type fakeServer struct {
	*fakellm.Chat
	kind string // "audio" or "llm": which request it expects

	// wantPrompt, when set, is the text part (audio) or user message (llm)
	// the request must carry.
	wantPrompt string
	// wantMaxTokens is the max_tokens the llm request must carry.
	wantMaxTokens int

	mu   sync.Mutex
	wavs [][]byte // the WAV files the audio requests carried
}

func newFake(t *testing.T, kind string, answer func(w http.ResponseWriter, n int)) *fakeServer {
	f := &fakeServer{kind: kind, wantMaxTokens: DefaultMaxTokens}
	model := DefaultAudioLMModel
	if kind == "llm" {
		model = "qwen2.5-7b-instruct"
	}
	f.Chat = fakellm.NewChat(t, model, f.check, answer)
	return f
}

func (f *fakeServer) count() int { return f.Count() }

func (f *fakeServer) lastWAV() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.wavs) == 0 {
		return nil
	}
	return f.wavs[len(f.wavs)-1]
}

func (f *fakeServer) check(body map[string]any) string {
	if f.kind == "audio" {
		return f.checkAudio(body)
	}
	return f.CheckSchemaRequest(body, f.wantMaxTokens, verify.JudgeSystemPrompt, f.wantPrompt, "verdict",
		func(s map[string]any) string {
			if !fakellm.SameJSON(s, verify.JudgeSchema()) {
				return fmt.Sprintf("%v, want verify.JudgeSchema()", s)
			}
			return ""
		})
}

func (f *fakeServer) checkAudio(body map[string]any) string {
	msgs, problem := f.CheckCommon(body, []string{"model", "messages", "max_tokens", "max_completion_tokens", "temperature", "logprobs", "top_logprobs"}, 1)
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

var writeJSON = fakellm.WriteJSON

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
	var u map[string]any
	if usage {
		u = fakellm.Usage(812, 1)
	}
	return fakellm.Completion(model, content, nil, lp, finish, u)
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

// recordSpans records the spans of the test (see fakellm.RecordSpans).
var recordSpans = fakellm.RecordSpans
