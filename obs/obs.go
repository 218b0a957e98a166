// Package obs is foley's observability: OpenTelemetry tracing, exported over
// OTLP/HTTP when the standard OTEL_EXPORTER_OTLP_* variables ask for it and
// not at all otherwise, and spans for model calls that follow the
// OpenTelemetry GenAI semantic conventions.
package obs

import (
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"strconv"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of foley's spans.
const ScopeName = "github.com/foley-audio/foley"

// Tracer returns foley's tracer from the global provider (a no-op until
// Setup installs one).
func Tracer() trace.Tracer { return otel.Tracer(ScopeName) }

// Enabled reports whether the environment asks for trace export:
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set and
// OTEL_SDK_DISABLED is not true.
func Enabled() bool {
	if v, _ := strconv.ParseBool(os.Getenv("OTEL_SDK_DISABLED")); v {
		return false
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Setup installs a tracer provider that exports over OTLP/HTTP (configured
// by the standard OTEL_EXPORTER_OTLP_* and OTEL_SERVICE_NAME variables) and
// the W3C trace-context propagator, when Enabled. Otherwise it installs
// nothing and spans cost next to nothing. The returned function flushes
// and stops the exporter; call it before exiting.
func Setup(ctx context.Context, version string) (shutdown func(context.Context) error, err error) {
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	if !Enabled() {
		return func(context.Context) error { return nil }, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, err
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(
		attribute.String("service.name", serviceName()),
		attribute.String("service.version", version),
	))
	if err != nil {
		return nil, err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	return tp.Shutdown, nil
}

func serviceName() string {
	if s := os.Getenv("OTEL_SERVICE_NAME"); s != "" {
		return s
	}
	return "foley"
}

// The GenAI semantic-convention attributes foley records.
const (
	AttrOperation     = "gen_ai.operation.name"
	AttrProvider      = "gen_ai.provider.name"
	AttrRequestModel  = "gen_ai.request.model"
	AttrResponseModel = "gen_ai.response.model"
	AttrResponseID    = "gen_ai.response.id"
	AttrInputTokens   = "gen_ai.usage.input_tokens"
	AttrOutputTokens  = "gen_ai.usage.output_tokens"
	AttrFinishReasons = "gen_ai.response.finish_reasons"
	AttrMaxTokens     = "gen_ai.request.max_tokens"
	AttrTemperature   = "gen_ai.request.temperature"
	AttrServerAddress = "server.address"
	AttrServerPort    = "server.port"
	AttrErrorType     = "error.type"
)

// Call describes a model call before it is made.
type Call struct {
	Operation   string // "chat"
	Provider    string // "anthropic", "openai", ...
	Model       string // the requested model
	ServerURL   string // the base URL; its host and port are recorded
	MaxTokens   int
	Temperature *float64
}

// Result is what a model call reports back. Token counts below zero are
// unknown and not recorded.
type Result struct {
	ResponseModel string
	ResponseID    string
	InputTokens   int64 // for Anthropic, including cache reads and writes
	OutputTokens  int64
	FinishReasons []string
}

// Usage counts the model calls made, and the tokens they spent, under a
// context (see WithUsage). It is safe for concurrent use.
type Usage struct {
	calls, failed, in, out atomic.Int64
}

// UsageTotals is a snapshot of a Usage.
type UsageTotals struct {
	Calls        int64 `json:"calls"`
	Failed       int64 `json:"failed"`
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// Totals returns the counts so far.
func (u *Usage) Totals() UsageTotals {
	return UsageTotals{Calls: u.calls.Load(), Failed: u.failed.Load(), InputTokens: u.in.Load(), OutputTokens: u.out.Load()}
}

type usageKey struct{}

// WithUsage returns a context under which every model call (StartCall ...
// End) is counted in u, whether or not traces are exported.
func WithUsage(ctx context.Context, u *Usage) context.Context {
	return context.WithValue(ctx, usageKey{}, u)
}

// Span is an open model-call span.
type Span struct {
	span  trace.Span
	usage *Usage
}

// StartCall opens a client span named "{operation} {model}" as a child of
// the span in ctx.
func StartCall(ctx context.Context, c Call) (context.Context, *Span) {
	attrs := []attribute.KeyValue{
		attribute.String(AttrOperation, c.Operation),
		attribute.String(AttrProvider, c.Provider),
		attribute.String(AttrRequestModel, c.Model),
	}
	if host, port := hostPort(c.ServerURL); host != "" {
		attrs = append(attrs, attribute.String(AttrServerAddress, host))
		if port > 0 {
			attrs = append(attrs, attribute.Int(AttrServerPort, port))
		}
	}
	if c.MaxTokens > 0 {
		attrs = append(attrs, attribute.Int(AttrMaxTokens, c.MaxTokens))
	}
	if c.Temperature != nil {
		attrs = append(attrs, attribute.Float64(AttrTemperature, *c.Temperature))
	}
	usage, _ := ctx.Value(usageKey{}).(*Usage)
	ctx, sp := Tracer().Start(ctx, c.Operation+" "+c.Model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx, &Span{span: sp, usage: usage}
}

// End records the result or the error and closes the span.
func (s *Span) End(r Result, err error) {
	var attrs []attribute.KeyValue
	if r.ResponseModel != "" {
		attrs = append(attrs, attribute.String(AttrResponseModel, r.ResponseModel))
	}
	if r.ResponseID != "" {
		attrs = append(attrs, attribute.String(AttrResponseID, r.ResponseID))
	}
	if r.InputTokens >= 0 {
		attrs = append(attrs, attribute.Int64(AttrInputTokens, r.InputTokens))
	}
	if r.OutputTokens >= 0 {
		attrs = append(attrs, attribute.Int64(AttrOutputTokens, r.OutputTokens))
	}
	if len(r.FinishReasons) > 0 {
		attrs = append(attrs, attribute.StringSlice(AttrFinishReasons, r.FinishReasons))
	}
	s.span.SetAttributes(attrs...)
	if u := s.usage; u != nil {
		u.calls.Add(1)
		if err != nil {
			u.failed.Add(1)
		}
		u.in.Add(max(r.InputTokens, 0))
		u.out.Add(max(r.OutputTokens, 0))
	}
	if err != nil {
		s.span.SetAttributes(attribute.String(AttrErrorType, errorType(err)))
		s.span.RecordError(err)
		s.span.SetStatus(codes.Error, err.Error())
	}
	s.span.End()
}

// errorType names an error for error.type: a timeout, a cancellation, or
// the Go type.
func errorType(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return "_OTHER"
}

func hostPort(raw string) (string, int) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", 0
	}
	port, _ := strconv.Atoi(u.Port())
	if port == 0 {
		switch u.Scheme {
		case "https":
			port = 443
		case "http":
			port = 80
		}
	}
	return u.Hostname(), port
}
