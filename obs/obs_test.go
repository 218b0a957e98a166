package obs_test

import (
	"context"
	"testing"

	"github.com/foley-audio/foley/internal/otlptest"
	"github.com/foley-audio/foley/obs"
	"go.opentelemetry.io/otel"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

func TestSetupDisabledWithoutEndpoint(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	if obs.Enabled() {
		t.Fatal("enabled with no endpoint")
	}
	prev := otel.GetTracerProvider()
	shutdown, err := obs.Setup(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	if otel.GetTracerProvider() != prev {
		t.Error("Setup installed a provider with no endpoint")
	}
	if err := shutdown(context.Background()); err != nil {
		t.Error(err)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318")
	t.Setenv("OTEL_SDK_DISABLED", "true")
	if obs.Enabled() {
		t.Error("enabled with OTEL_SDK_DISABLED=true")
	}
}

// TestModelCallSpanOverOTLP exports a model-call span to a receiver served
// by the test, and checks the GenAI attributes it carries.
func TestModelCallSpanOverOTLP(t *testing.T) {
	rcv := otlptest.New(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.URL)
	t.Setenv("OTEL_SERVICE_NAME", "foley-test")
	prev := otel.GetTracerProvider()
	t.Cleanup(func() { otel.SetTracerProvider(prev) })
	shutdown, err := obs.Setup(context.Background(), "0.0.0-test")
	if err != nil {
		t.Fatal(err)
	}
	temp := 0.0
	ctx, parent := obs.Tracer().Start(context.Background(), "verify_match")
	_, sp := obs.StartCall(ctx, obs.Call{Operation: "chat", Provider: "anthropic", Model: "claude-opus-4-8", ServerURL: "https://api.anthropic.com", MaxTokens: 500, Temperature: &temp})
	sp.End(obs.Result{ResponseModel: "claude-opus-4-8-20261101", ResponseID: "msg_1", InputTokens: 1234, OutputTokens: 56, FinishReasons: []string{"end_turn"}}, nil)
	_, failed := obs.StartCall(ctx, obs.Call{Operation: "chat", Provider: "openai", Model: "Qwen/Qwen2-Audio-7B-Instruct", ServerURL: "http://gpu:8000/v1"})
	failed.End(obs.Result{InputTokens: -1, OutputTokens: -1}, context.DeadlineExceeded)
	parent.End()
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	spans := rcv.Spans()
	if len(spans) != 3 {
		t.Fatalf("received %d spans, want 3", len(spans))
	}
	byName := map[string]otlptest.Span{}
	for _, s := range spans {
		byName[s.Name] = s
	}
	call, ok := byName["chat claude-opus-4-8"]
	if !ok {
		t.Fatalf("no span named %q in %v", "chat claude-opus-4-8", spans)
	}
	if call.Kind != tracepb.Span_SPAN_KIND_CLIENT || call.ParentSpanID != byName["verify_match"].SpanID || call.Service != "foley-test" {
		t.Errorf("span kind %v parent %s (want %s) service %q", call.Kind, call.ParentSpanID, byName["verify_match"].SpanID, call.Service)
	}
	want := map[string]any{
		obs.AttrOperation: "chat", obs.AttrProvider: "anthropic", obs.AttrRequestModel: "claude-opus-4-8",
		obs.AttrResponseModel: "claude-opus-4-8-20261101", obs.AttrResponseID: "msg_1",
		obs.AttrInputTokens: int64(1234), obs.AttrOutputTokens: int64(56), obs.AttrServerAddress: "api.anthropic.com",
		obs.AttrServerPort: int64(443), obs.AttrMaxTokens: int64(500), obs.AttrTemperature: 0.0,
	}
	for k, v := range want {
		if call.Attrs[k] != v {
			t.Errorf("%s = %#v, want %#v", k, call.Attrs[k], v)
		}
	}
	if fr, _ := call.Attrs[obs.AttrFinishReasons].([]any); len(fr) != 1 || fr[0] != "end_turn" {
		t.Errorf("finish reasons %#v", call.Attrs[obs.AttrFinishReasons])
	}
	bad := byName["chat Qwen/Qwen2-Audio-7B-Instruct"]
	if bad.StatusCode != tracepb.Status_STATUS_CODE_ERROR || bad.Attrs[obs.AttrErrorType] != "timeout" {
		t.Errorf("failed call: status %v error.type %v", bad.StatusCode, bad.Attrs[obs.AttrErrorType])
	}
	if _, ok := bad.Attrs[obs.AttrInputTokens]; ok {
		t.Error("unknown token counts were recorded")
	}
	if bad.Attrs[obs.AttrServerAddress] != "gpu" || bad.Attrs[obs.AttrServerPort] != int64(8000) {
		t.Errorf("server %v:%v", bad.Attrs[obs.AttrServerAddress], bad.Attrs[obs.AttrServerPort])
	}
}

func TestUsage(t *testing.T) {
	var u obs.Usage
	ctx := obs.WithUsage(context.Background(), &u)
	_, a := obs.StartCall(ctx, obs.Call{Operation: "chat", Model: "m"})
	a.End(obs.Result{InputTokens: 100, OutputTokens: 7}, nil)
	_, b := obs.StartCall(ctx, obs.Call{Operation: "chat", Model: "m"})
	b.End(obs.Result{InputTokens: -1, OutputTokens: -1}, context.Canceled)
	_, c := obs.StartCall(context.Background(), obs.Call{Operation: "chat", Model: "m"})
	c.End(obs.Result{InputTokens: 5, OutputTokens: 5}, nil) // not under the usage context
	if got, want := u.Totals(), (obs.UsageTotals{Calls: 2, Failed: 1, InputTokens: 100, OutputTokens: 7}); got != want {
		t.Errorf("totals %+v, want %+v", got, want)
	}
}
