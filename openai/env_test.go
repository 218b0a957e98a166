package openai

import (
	"strings"
	"testing"
	"time"

	"github.com/foley-audio/foley"
)

func clearEnv(t *testing.T) {
	for _, v := range []string{EnvAudioLMURL, EnvAudioLMModel, EnvAudioLMAPIKey, EnvAudioLMTau, EnvAudioLMTimeout,
		EnvAudioLMAllowRemote, EnvAudioLMMaxRemoteBytes, EnvLLMURL, EnvLLMModel, EnvLLMAPIKey, EnvLLMTimeout} {
		t.Setenv(v, "")
	}
}

func TestAudioLMFromEnv(t *testing.T) {
	clearEnv(t)
	j, err := AudioLMFromEnv()
	if j != nil || err != nil {
		t.Fatalf("unset: %v, %v; want nil, nil", j, err)
	}

	t.Setenv(EnvAudioLMURL, "http://gpu:8000/v1")
	j, err = AudioLMFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if j.Model() != DefaultAudioLMModel || j.BaseURL() != "http://gpu:8000/v1" || j.Tau() != DefaultTau ||
		j.svc.Timeout != DefaultTimeout || j.svc.retries != DefaultMaxRetries ||
		j.clip.allowRemote || j.clip.maxBytes != DefaultMaxRemoteBytes {
		t.Errorf("defaults: %+v", j)
	}

	t.Setenv(EnvAudioLMModel, "Qwen/Qwen2.5-Omni-7B")
	t.Setenv(EnvAudioLMAPIKey, "k")
	t.Setenv(EnvAudioLMTau, "0.7")
	t.Setenv(EnvAudioLMTimeout, "90s")
	t.Setenv(EnvAudioLMAllowRemote, "true")
	t.Setenv(EnvAudioLMMaxRemoteBytes, "1048576")
	j, err = AudioLMFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if j.Model() != "Qwen/Qwen2.5-Omni-7B" || j.Tau() != 0.7 || j.svc.Timeout != 90*time.Second ||
		!j.clip.allowRemote || j.clip.maxBytes != 1<<20 || j.clip.timeout != 90*time.Second {
		t.Errorf("configured: %+v", j)
	}
}

func TestAudioLMFromEnvBadValues(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{EnvAudioLMURL, "gpu:8000"},
		{EnvAudioLMTau, "high"},
		{EnvAudioLMTau, "1.5"},
		{EnvAudioLMTau, "NaN"},
		{EnvAudioLMTimeout, "60"},
		{EnvAudioLMTimeout, "-5s"},
		{EnvAudioLMAllowRemote, "sometimes"},
		{EnvAudioLMMaxRemoteBytes, "100MB"},
		{EnvAudioLMMaxRemoteBytes, "0"},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			clearEnv(t)
			t.Setenv(EnvAudioLMURL, "http://gpu:8000/v1")
			t.Setenv(tc.name, tc.value)
			j, err := AudioLMFromEnv()
			if j != nil || foley.CodeOf(err) != foley.Invalid {
				t.Fatalf("AudioLMFromEnv = %v, %v; want an Invalid error", j, err)
			}
			if !strings.Contains(err.Error(), tc.name) || !strings.Contains(err.Error(), tc.value) {
				t.Errorf("error %q does not name %s and %q", err, tc.name, tc.value)
			}
		})
	}
}

func TestLLMFromEnv(t *testing.T) {
	clearEnv(t)
	if j, err := LLMFromEnv(); j != nil || err != nil {
		t.Fatalf("unset: %v, %v; want nil, nil", j, err)
	}
	t.Setenv(EnvLLMURL, "http://localhost:11434/v1")
	j, err := LLMFromEnv()
	if j != nil || foley.CodeOf(err) != foley.Invalid || !strings.Contains(err.Error(), EnvLLMModel) {
		t.Fatalf("no model: %v, %v; want an Invalid error naming %s", j, err, EnvLLMModel)
	}
	t.Setenv(EnvLLMModel, "qwen2.5:7b")
	t.Setenv(EnvLLMAPIKey, "k")
	t.Setenv(EnvLLMTimeout, "2m")
	j, err = LLMFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if j.Model() != "qwen2.5:7b" || j.BaseURL() != "http://localhost:11434/v1" || j.svc.Timeout != 2*time.Minute || j.maxTokens != DefaultMaxTokens {
		t.Errorf("configured: %+v", j)
	}
	t.Setenv(EnvLLMTimeout, "forever")
	if _, err := LLMFromEnv(); foley.CodeOf(err) != foley.Invalid || !strings.Contains(err.Error(), `"forever"`) {
		t.Errorf("bad timeout: %v", err)
	}
	t.Setenv(EnvLLMTimeout, "")
	t.Setenv(EnvLLMURL, "localhost:11434")
	if _, err := LLMFromEnv(); foley.CodeOf(err) != foley.Invalid || !strings.Contains(err.Error(), "localhost:11434") {
		t.Errorf("bad URL: %v", err)
	}
}
