package refine

import (
	"testing"

	"github.com/foley-audio/foley"
)

// clearEnv unsets every variable FromEnv reads, for the test.
func clearEnv(t *testing.T) {
	for _, name := range []string{EnvAnthropicAPIKey, EnvRefineModel, EnvJudgeModel, EnvAnthropicBaseURL,
		EnvLLMURL, EnvLLMModel, EnvLLMAPIKey, EnvLLMTimeout} {
		t.Setenv(name, "")
	}
}

func TestFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string // the refiner's name; "" for none
		code foley.ErrorCode
	}{
		{name: "nothing set", env: nil, want: ""},
		{name: "anthropic default model", env: map[string]string{EnvAnthropicAPIKey: "sk-ant-x"}, want: "anthropic:claude-opus-4-8"},
		{name: "anthropic judge model", env: map[string]string{EnvAnthropicAPIKey: "sk-ant-x", EnvJudgeModel: "claude-sonnet-4-7"},
			want: "anthropic:claude-sonnet-4-7"},
		{name: "anthropic refine model wins", env: map[string]string{EnvAnthropicAPIKey: "sk-ant-x",
			EnvJudgeModel: "claude-sonnet-4-7", EnvRefineModel: " claude-haiku-4-6 "}, want: "anthropic:claude-haiku-4-6"},
		{name: "anthropic wins over the LLM server", env: map[string]string{EnvAnthropicAPIKey: "sk-ant-x",
			EnvLLMURL: "http://localhost:8000/v1", EnvLLMModel: "qwen"}, want: "anthropic:claude-opus-4-8"},
		{name: "anthropic base URL", env: map[string]string{EnvAnthropicAPIKey: "sk-ant-x", EnvAnthropicBaseURL: "http://localhost:9999"},
			want: "anthropic:claude-opus-4-8"},
		{name: "anthropic bad base URL", env: map[string]string{EnvAnthropicAPIKey: "sk-ant-x", EnvAnthropicBaseURL: "localhost:9999"},
			code: foley.Invalid},
		{name: "blank key", env: map[string]string{EnvAnthropicAPIKey: "   "}, code: foley.Invalid},
		{name: "LLM server", env: map[string]string{EnvLLMURL: "http://localhost:8000/v1", EnvLLMModel: "qwen2.5-7b-instruct"},
			want: "llm:qwen2.5-7b-instruct"},
		{name: "LLM server with key and timeout", env: map[string]string{EnvLLMURL: "http://localhost:8000/v1",
			EnvLLMModel: "qwen", EnvLLMAPIKey: "tok", EnvLLMTimeout: "90s"}, want: "llm:qwen"},
		{name: "LLM server without model", env: map[string]string{EnvLLMURL: "http://localhost:8000/v1"}, code: foley.Invalid},
		{name: "LLM model without server", env: map[string]string{EnvLLMModel: "qwen"}, want: ""},
		{name: "LLM bad URL", env: map[string]string{EnvLLMURL: "localhost:8000", EnvLLMModel: "qwen"}, code: foley.Invalid},
		{name: "LLM bad timeout", env: map[string]string{EnvLLMURL: "http://localhost:8000/v1", EnvLLMModel: "qwen",
			EnvLLMTimeout: "soon"}, code: foley.Invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			r, err := FromEnv()
			if tc.code != "" {
				if err == nil || foley.CodeOf(err) != tc.code {
					t.Fatalf("FromEnv() = %v, %v; want a %s error", r, err, tc.code)
				}
				if r != nil {
					t.Errorf("a refiner %v with the error", r)
				}
				return
			}
			if err != nil {
				t.Fatalf("FromEnv: %v", err)
			}
			if tc.want == "" {
				if r != nil { // a nil interface, not a nil *LLM in one
					t.Errorf("FromEnv() = %#v, want nil", r)
				}
				return
			}
			if r == nil || r.Name() != tc.want {
				t.Errorf("FromEnv() = %v, want %s", r, tc.want)
			}
		})
	}
}

func TestDefault(t *testing.T) {
	if r := Default(); r.Name() != "synonyms" {
		t.Errorf("Default().Name() = %q", r.Name())
	}
}
