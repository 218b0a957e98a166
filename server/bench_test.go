package server_test

import (
	"net/http/httptest"
	"testing"

	"github.com/foley-audio/foley/server"
)

func BenchmarkSearch(b *testing.B) {
	t := &testing.T{}
	_ = t
	svc := serviceB(b)
	h := server.Handler(svc, server.Config{})
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
