// Package otlptest is an OTLP/HTTP trace receiver for tests: an httptest
// server that accepts POST /v1/traces in protobuf (or JSON), as a collector
// does, and keeps the spans it received.
package otlptest

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Span is a received span, flattened for assertions.
type Span struct {
	Name         string
	Kind         tracepb.Span_SpanKind
	TraceID      string
	SpanID       string
	ParentSpanID string
	Attrs        map[string]any // string, bool, int64, float64 or []any
	StatusCode   tracepb.Status_StatusCode
	Service      string // the resource's service.name
}

// Receiver is a running fake collector.
type Receiver struct {
	*httptest.Server
	mu    sync.Mutex
	spans []Span
}

// New starts a receiver, closed when the test ends. Point
// OTEL_EXPORTER_OTLP_ENDPOINT at its URL.
func New(t testing.TB) *Receiver {
	r := &Receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		http.Error(w, "want POST /v1/traces", http.StatusNotFound)
		return
	}
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = gz
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg coltrace.ExportTraceServiceRequest
	switch ct := req.Header.Get("Content-Type"); {
	case strings.HasPrefix(ct, "application/x-protobuf"):
		err = proto.Unmarshal(raw, &msg)
	case strings.HasPrefix(ct, "application/json"):
		err = protojson.Unmarshal(raw, &msg)
	default:
		http.Error(w, "unsupported content type "+ct, http.StatusUnsupportedMediaType)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	for _, rs := range msg.GetResourceSpans() {
		service := ""
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				service = kv.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				attrs := map[string]any{}
				for _, kv := range s.GetAttributes() {
					attrs[kv.GetKey()] = value(kv.GetValue())
				}
				r.spans = append(r.spans, Span{
					Name: s.GetName(), Kind: s.GetKind(),
					TraceID: hexOf(s.GetTraceId()), SpanID: hexOf(s.GetSpanId()), ParentSpanID: hexOf(s.GetParentSpanId()),
					Attrs: attrs, StatusCode: s.GetStatus().GetCode(), Service: service,
				})
			}
		}
	}
	r.mu.Unlock()
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// Spans returns the spans received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

func value(v *commonpb.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_DoubleValue:
		return x.DoubleValue
	case *commonpb.AnyValue_ArrayValue:
		var out []any
		for _, e := range x.ArrayValue.GetValues() {
			out = append(out, value(e))
		}
		return out
	}
	return nil
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}
