package elevenlabs

import (
	"context"
	"strings"
	"testing"

	"github.com/foley-audio/foley"
)

func TestFromEnvUnset(t *testing.T) {
	t.Setenv(EnvAPIKey, "")
	t.Setenv(EnvModel, "eleven_text_to_sound_v2")
	t.Setenv(EnvBaseURL, "not a URL") // not read without a key
	g, err := FromEnv()
	if g != nil || err != nil {
		t.Fatalf("FromEnv = %v, %v; want nil, nil", g, err)
	}
	t.Setenv(EnvAPIKey, "  ")
	if g, err := FromEnv(); g != nil || err != nil {
		t.Fatalf("blank key: FromEnv = %v, %v; want nil, nil", g, err)
	}
}

func TestFromEnv(t *testing.T) {
	f, srv := newFake(t)
	t.Setenv(EnvAPIKey, " "+f.apiKey+"\n")
	t.Setenv(EnvModel, "eleven_sfx_v3")
	t.Setenv(EnvBaseURL, srv.URL+"/")
	g, err := FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if g.Name() != "elevenlabs:eleven_sfx_v3" {
		t.Errorf("Name = %q", g.Name())
	}
	clip, err := g.Generate(context.Background(), foley.GenerateRequest{Prompt: "a kettle whistles"})
	if err != nil {
		t.Fatal(err)
	}
	if clip.Generator != "elevenlabs/eleven_sfx_v3" || f.count() != 1 {
		t.Errorf("generator %q, %d requests", clip.Generator, f.count())
	}

	// Defaults.
	t.Setenv(EnvModel, "")
	t.Setenv(EnvBaseURL, "")
	g, err = FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if g.Model() != DefaultModel || g.base != DefaultBaseURL {
		t.Errorf("model %q base %q", g.Model(), g.base)
	}
}

func TestFromEnvInvalid(t *testing.T) {
	const key = "sk_secret_value_123"
	for _, tc := range []struct {
		key, model, base string
		names            string
	}{
		{key: "sk secret value", names: EnvAPIKey},
		{key: "sk_secret\x01", names: EnvAPIKey},
		{key: key, model: "eleven sfx", names: EnvModel},
		{key: key, base: "api.elevenlabs.io", names: EnvBaseURL},
		{key: key, base: "ftp://api.elevenlabs.io", names: EnvBaseURL},
		{key: key, base: "https://api.elevenlabs.io/?key=x", names: EnvBaseURL},
	} {
		t.Setenv(EnvAPIKey, tc.key)
		t.Setenv(EnvModel, tc.model)
		t.Setenv(EnvBaseURL, tc.base)
		g, err := FromEnv()
		if g != nil {
			t.Errorf("%+v: got a generator", tc)
		}
		wantCode(t, err, foley.Invalid, tc.names)
		if err != nil && (strings.Contains(err.Error(), "secret")) {
			t.Errorf("error quotes the key: %v", err)
		}
	}
}
