package weaviate_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/weaviate"
)

// TestAPIKey: the key in FOLEY_WEAVIATE_API_KEY goes to the server as a
// bearer token, and a server that refuses it gives an error that names the
// variable. The server here answers as Weaviate does with API-key
// authentication on (401 and its JSON error for a wrong key).
func TestAPIKey(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"code":401,"message":"unauthorized: invalid api key: key not found"}`))
	}))
	defer srv.Close()
	t.Setenv(weaviate.EnvAPIKey, "s3cret")
	_, err := weaviate.Open(context.Background(), "weaviate://"+strings.TrimPrefix(srv.URL, "http://")+"/Sounds", weaviate.Options{})
	if foley.CodeOf(err) != foley.Invalid || !strings.Contains(err.Error(), weaviate.EnvAPIKey) {
		t.Fatalf("refused key: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 || seen[len(seen)-1] != "Bearer s3cret" {
		t.Errorf("Authorization headers sent: %q", seen)
	}
}
