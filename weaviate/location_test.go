package weaviate

import (
	"testing"

	"github.com/foley-audio/foley"
)

func TestParseLocation(t *testing.T) {
	l, err := ParseLocation("weaviate://db:8080/Sounds?grpc=db:50051&replicas=3&shards=2&tls=1")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Location{Host: "db:8080", Class: "Sounds", GRPC: "db:50051", Replicas: 3, Shards: 2, TLS: true}); l != want {
		t.Errorf("parsed %+v, want %+v", l, want)
	}
	if back, err := ParseLocation(l.String()); err != nil || back != l {
		t.Errorf("round trip %q: %+v %v", l.String(), back, err)
	}
	if l, _ := ParseLocation("WEAVIATE://localhost:8080/Sfx_2"); l.String() != "weaviate://localhost:8080/Sfx_2" {
		t.Errorf("plain: %q", l.String())
	}
	for _, bad := range []string{
		"weaviate://localhost/Sounds", "weaviate://localhost:8080/sounds", "weaviate://localhost:8080/",
		"weaviate://localhost:8080/A/B", "weaviate://user:key@localhost:8080/Sounds", "http://localhost:8080/Sounds",
		"weaviate://localhost:8080/Sounds?replicas=0", "weaviate://localhost:8080/Sounds?replicas=x",
		"weaviate://localhost:8080/Sounds?grpc=nohost", "weaviate://localhost:8080/Sounds?tls=maybe",
		"weaviate://localhost:8080/Sounds?colour=red", "weaviate://localhost:8080/Sounds_Meta",
	} {
		if _, err := ParseLocation(bad); foley.CodeOf(err) != foley.Invalid {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func TestTerms(t *testing.T) {
	for in, want := range map[string]string{
		"Heavy wooden DOOR slams, slamming": "heavi wooden door slam slam",
		"Café crème, 2 cups":                "cafe creme 2 cup",
		"Straße":                            "straße",
	} {
		if got := terms(in); got != want {
			t.Errorf("terms(%q) = %q, want %q", in, got, want)
		}
	}
}
