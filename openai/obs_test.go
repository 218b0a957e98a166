package openai

import (
	"context"
	"net/http"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/obs"
)

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

func TestSpans(t *testing.T) {
	rec := recordSpans(t)
	lp := logprobs(alt{"Yes", 0.9}, alt{"Yes", 0.9}, alt{"No", 0.1})
	f := newFake(t, "audio", answerWith(completion("qwen2-audio-served", "Yes", lp, "length", true)))
	if _, err := newAudioJudge(t, f, nil).Judge(context.Background(), doorEvent, candidate(shortWAV(t)), foley.LevelListen); err != nil {
		t.Fatal(err)
	}
	llm := newFake(t, "llm", answerWith(completion("m", `{"match": true, "confidence": 2, "reason": "r"}`, nil, "stop", false)))
	if _, err := newLLMJudge(t, llm, nil).Judge(context.Background(), doorEvent, candidate("x.wav"), foley.LevelJudge); err == nil {
		t.Fatal("want an error")
	}
	failing := newFake(t, "audio", func(w http.ResponseWriter, _ int) {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": "no"}})
	})
	if _, err := newAudioJudge(t, failing, nil).Judge(context.Background(), doorEvent, candidate(shortWAV(t)), foley.LevelListen); err == nil {
		t.Fatal("want an error")
	}

	spans := rec.Ended()
	if len(spans) != 3 {
		t.Fatalf("%d spans, want 3", len(spans))
	}
	ok, bad, rejected := spans[0], spans[1], spans[2]
	if ok.Name() != "chat "+DefaultAudioLMModel || ok.Status().Code == codes.Error {
		t.Errorf("span %q status %v", ok.Name(), ok.Status())
	}
	a := attrs(ok)
	for k, want := range map[string]any{
		obs.AttrOperation: "chat", obs.AttrProvider: "openai", obs.AttrRequestModel: DefaultAudioLMModel,
		obs.AttrResponseModel: "qwen2-audio-served", obs.AttrResponseID: "chatcmpl-7f3a9c",
		obs.AttrInputTokens: int64(812), obs.AttrOutputTokens: int64(1), obs.AttrMaxTokens: int64(1),
		obs.AttrTemperature: 0.0, obs.AttrServerAddress: "127.0.0.1",
	} {
		if got := a[attribute.Key(k)].AsInterface(); got != want {
			t.Errorf("%s = %v (%T), want %v", k, got, got, want)
		}
	}
	if got := a[obs.AttrFinishReasons].AsStringSlice(); len(got) != 1 || got[0] != "length" {
		t.Errorf("finish reasons %v", got)
	}

	b := attrs(bad)
	if bad.Status().Code != codes.Error || b[obs.AttrResponseModel].AsString() != "m" {
		t.Errorf("bad answer span: status %v, attrs %v", bad.Status(), b)
	}
	if _, has := b[obs.AttrInputTokens]; has {
		t.Error("a span recorded input tokens the server did not report")
	}
	if rejected.Status().Code != codes.Error {
		t.Errorf("rejected span: status %v", rejected.Status())
	}
}
