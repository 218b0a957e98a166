package server_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/foley-audio/foley/server"
)

// BenchmarkSearch is a search through the handler, in process.
func BenchmarkSearch(b *testing.B) {
	h := server.Handler(serviceB(b), server.Config{})
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("GET", "/v1/search?q=a+heavy+wooden+door+slams+shut&k=10", nil)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != 200 {
				b.Fatal(w.Code)
			}
		}
	})
}

// BenchmarkSearchHTTP is a search over a loopback connection, 16 clients
// per core, with the request log on.
func BenchmarkSearchHTTP(b *testing.B) {
	ts := httptest.NewServer(server.Handler(serviceB(b), server.Config{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))}))
	defer ts.Close()
	cl := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.ResetTimer()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := cl.Get(ts.URL + "/v1/search?q=a+heavy+wooden+door+slams+shut&k=10")
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
	})
}
