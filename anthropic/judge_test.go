package anthropic

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/obs"
	"github.com/foley-audio/foley/verify"
)

func newJudge(t *testing.T, cfg Config) *Judge {
	t.Helper()
	j, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return j
}

func TestJudgeMatch(t *testing.T) {
	rec := recordSpans(t)
	f := newFakeAPI(t, answer(message(DefaultModel, "end_turn",
		thinkingBlock("The caption names an oak door slammed hard: the same object and action."),
		textBlock(`{"match": true, "confidence": 0.92, "reason": "An oak door slammed hard is a heavy wooden door slamming shut."}`),
	)))
	j := newJudge(t, f.config())

	v, err := j.Judge(context.Background(), f.event, f.cand, foley.LevelJudge)
	if err != nil {
		t.Fatalf("Judge: %v", err)
	}
	want := foley.Verdict{
		Match:      true,
		Confidence: 0.92,
		Reason:     "claude-opus-4-8: An oak door slammed hard is a heavy wooden door slamming shut.",
		Level:      foley.LevelJudge,
		Judge:      "anthropic:claude-opus-4-8",
	}
	if v != want {
		t.Errorf("verdict\n got %+v\nwant %+v", v, want)
	}
	if n := f.MessageCalls(); n != 1 {
		t.Errorf("%d calls, want 1", n)
	}

	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1 (the SDK's own spans must be off)", len(spans))
	}
	sp := spans[0]
	if sp.Name() != "chat claude-opus-4-8" {
		t.Errorf("span name %q", sp.Name())
	}
	u, _ := url.Parse(f.URL)
	port, _ := strconv.Atoi(u.Port())
	attrs := map[attribute.Key]attribute.Value{}
	for _, a := range sp.Attributes() {
		attrs[a.Key] = a.Value
	}
	for k, want := range map[string]any{
		obs.AttrOperation:     "chat",
		obs.AttrProvider:      "anthropic",
		obs.AttrRequestModel:  "claude-opus-4-8",
		obs.AttrResponseModel: "claude-opus-4-8",
		obs.AttrResponseID:    "msg_01XFDUDYJgAACzvnptvVoYEL",
		obs.AttrInputTokens:   int64(412 + 20 + 30),
		obs.AttrOutputTokens:  int64(187),
		obs.AttrMaxTokens:     int64(500),
		obs.AttrServerAddress: u.Hostname(),
		obs.AttrServerPort:    int64(port),
	} {
		if got, ok := attrs[attribute.Key(k)]; !ok || got.AsInterface() != want {
			t.Errorf("span attribute %s = %v, want %v", k, got.AsInterface(), want)
		}
	}
	if got := attrs[obs.AttrFinishReasons].AsStringSlice(); len(got) != 1 || got[0] != "end_turn" {
		t.Errorf("finish reasons %v, want [end_turn]", got)
	}
}

func TestJudgeNoMatch(t *testing.T) {
	f := newFakeAPI(t, answer(message(DefaultModel, "end_turn",
		redactedThinkingBlock(),
		thinkingBlock("A car door is not a wooden door."),
		textBlock(`{"match": false, "confidence": 0.08, "reason": "The clip is a car door, not a wooden house door."}`),
	)))
	f.cand.Sound.Caption = "Car door closing, sedan"
	f.cand.Sound.Tags = []string{"car", "door"}
	f.event.Scene = "" // no scene: the prompt has none, and the fake checks that
	j := newJudge(t, f.config())

	v, err := j.Judge(context.Background(), f.event, f.cand, foley.LevelListen)
	if err != nil {
		t.Fatalf("Judge: %v", err)
	}
	if v.Match || v.Confidence != 0.08 || v.Level != foley.LevelListen || v.Judge != j.Name() ||
		!strings.Contains(v.Reason, "car door") {
		t.Errorf("verdict %+v", v)
	}
}

func TestJudgeRetries429(t *testing.T) {
	f := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			writeError(w, http.StatusTooManyRequests, "rate_limit_error",
				"This request would exceed the rate limit for your organization of 50 requests per minute.")
			return
		}
		writeJSON(w, http.StatusOK, message(DefaultModel, "end_turn",
			thinkingBlock("Same sound."),
			textBlock(`{"match": true, "confidence": 0.8, "reason": "Same sound."}`)))
	})
	j := newJudge(t, f.config())
	start := time.Now()
	v, err := j.Judge(context.Background(), f.event, f.cand, foley.LevelJudge)
	if err != nil {
		t.Fatalf("Judge: %v", err)
	}
	if !v.Match || f.MessageCalls() != 2 {
		t.Errorf("verdict %+v after %d calls, want a match after 2", v, f.MessageCalls())
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s: Retry-After: 0 was not honoured", d)
	}
}

// failureCase is a call that must end in an error, never a match.
type failureCase struct {
	name   string
	reply  func(http.ResponseWriter, *http.Request, int)
	config func(*Config)
	ctx    func() (context.Context, context.CancelFunc)
	calls  int      // the POST /v1/messages the fake must see; 0: don't check
	want   []string // substrings of the error
	is     error    // errors.Is target, if any
}

func TestJudgeFailures(t *testing.T) {
	blockUntilDone := func(w http.ResponseWriter, r *http.Request, _ int) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
		writeJSON(w, http.StatusOK, message(DefaultModel, "end_turn",
			textBlock(`{"match": true, "confidence": 1, "reason": "too late"}`)))
	}
	cases := []failureCase{
		{
			name: "529 overloaded repeated",
			reply: func(w http.ResponseWriter, _ *http.Request, _ int) {
				w.Header().Set("Retry-After", "0")
				writeError(w, 529, "overloaded_error", "Overloaded")
			},
			calls: 4,
			want:  []string{"judge anthropic:claude-opus-4-8: 529 overloaded_error: Overloaded (after 4 attempts; request-id req_"},
		},
		{
			name: "500 repeated (retry-after-ms)",
			reply: func(w http.ResponseWriter, _ *http.Request, _ int) {
				w.Header().Set("retry-after-ms", "1")
				writeError(w, http.StatusInternalServerError, "api_error", "Internal server error")
			},
			config: func(c *Config) { c.MaxRetries = 2 },
			calls:  3,
			want:   []string{"500 api_error: Internal server error (after 3 attempts; request-id req_"},
		},
		{
			name: "500 without retries",
			reply: func(w http.ResponseWriter, _ *http.Request, _ int) {
				writeError(w, 500, "api_error", "Internal server error")
			},
			config: func(c *Config) { c.MaxRetries = -1 },
			calls:  1,
			want:   []string{"500 api_error: Internal server error (after 1 attempt; request-id"},
		},
		{
			name:   "timeout",
			reply:  blockUntilDone,
			config: func(c *Config) { c.Timeout = 50 * time.Millisecond; c.MaxRetries = 1 },
			calls:  2,
			want:   []string{"no answer from http://127.0.0.1:", "within 50ms an attempt (after 2 attempts)"},
			is:     context.DeadlineExceeded,
		},
		{
			name:  "caller cancels",
			reply: blockUntilDone,
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 100*time.Millisecond)
			},
			calls: 1,
			want:  []string{"the call was abandoned (after 1 attempt)"},
			is:    context.DeadlineExceeded,
		},
		{
			name: "malformed JSON text",
			reply: answer(message(DefaultModel, "end_turn",
				thinkingBlock("hmm"), textBlock(`match: yes, it is a door`))),
			calls: 1,
			want:  []string{"is not the JSON object the schema asks for", "(message msg_"},
		},
		{
			name: "confidence above 1",
			reply: answer(message(DefaultModel, "end_turn",
				textBlock(`{"match": true, "confidence": 1.7, "reason": "very sure"}`))),
			want: []string{"confidence 1.7 is outside 0..1"},
		},
		{
			name: "confidence below 0",
			reply: answer(message(DefaultModel, "end_turn",
				textBlock(`{"match": true, "confidence": -0.2, "reason": "unsure"}`))),
			want: []string{"confidence -0.2 is outside 0..1"},
		},
		{
			name:  "only thinking",
			reply: answer(message(DefaultModel, "end_turn", thinkingBlock("Let me think about doors."))),
			want:  []string{`the response has no text block (stop reason "end_turn")`},
		},
		{
			name:  "max_tokens before any text",
			reply: answer(message(DefaultModel, "max_tokens", thinkingBlock("Doors, doors, doors..."))),
			want:  []string{"stopped at max_tokens before it answered", "max_tokens=500", EnvMaxTokens},
		},
		{
			name: "max_tokens in the middle of the answer",
			reply: answer(message(DefaultModel, "max_tokens",
				thinkingBlock("Doors."), textBlock(`{"match": true, "confidence": 0.9, "rea`))),
			want: []string{"stopped at max_tokens before it finished its answer"},
		},
		{
			name: "refusal",
			reply: func(w http.ResponseWriter, _ *http.Request, _ int) {
				m := message(DefaultModel, "refusal", textBlock(`{"match": true, "confidence": 0.9, "reason": "`))
				m["stop_details"] = map[string]any{"type": "refusal", "category": "cyber", "explanation": "This request was declined."}
				writeJSON(w, http.StatusOK, m)
			},
			want: []string{"the model refused to answer (category cyber: This request was declined.)"},
		},
		{
			name: "refusal without details",
			reply: answer(message(DefaultModel, "refusal",
				textBlock(`{"match": true, "confidence": 0.99, "reason": "yes"}`))),
			want: []string{"the model refused to answer"},
		},
		{
			name:   "invalid key",
			reply:  answer(message(DefaultModel, "end_turn", textBlock(`{"match": true, "confidence": 1, "reason": "x"}`))),
			config: func(c *Config) { c.APIKey = "sk-ant-revoked" },
			calls:  0,
			want:   []string{"401 authentication_error: invalid x-api-key (request-id req_", "check ANTHROPIC_API_KEY"},
		},
		{
			name: "unknown model",
			reply: func(w http.ResponseWriter, _ *http.Request, _ int) {
				writeError(w, 404, "not_found_error", "model: claude-nope")
			},
			config: func(c *Config) { c.Model = "claude-nope" },
			want:   []string{"judge anthropic:claude-nope: 404 not_found_error: model: claude-nope (request-id", "check the model"},
		},
		{
			name:   "server gone",
			reply:  nil, // the server is closed before the call
			config: func(c *Config) { c.MaxRetries = -1 },
			want:   []string{"cannot reach http://127.0.0.1:", "(after 1 attempt)"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeAPI(t, tc.reply)
			cfg := f.config()
			if tc.config != nil {
				tc.config(&cfg)
			}
			f.Model = cfg.Model // the fake checks the model the judge was made with
			if tc.reply == nil {
				f.Close()
			}
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if tc.ctx != nil {
				ctx, cancel = tc.ctx()
			}
			defer cancel()

			j := newJudge(t, cfg)
			start := time.Now()
			v, err := j.Judge(ctx, f.event, f.cand, foley.LevelJudge)
			if err == nil {
				t.Fatalf("no error; verdict %+v", v)
			}
			if v.Match || v != (foley.Verdict{}) {
				t.Errorf("a failure gave a verdict: %+v", v)
			}
			if code := foley.CodeOf(err); code != foley.Unavailable {
				t.Errorf("code %q, want %q (%v)", code, foley.Unavailable, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
			if tc.calls > 0 && f.MessageCalls() != tc.calls {
				t.Errorf("%d calls, want %d", f.MessageCalls(), tc.calls)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}

func TestJudgeConcurrent(t *testing.T) {
	f := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		// A third of first attempts are overloaded; their retries are not,
		// so every call succeeds however the calls interleave.
		if n%3 == 0 && r.Header.Get("X-Stainless-Retry-Count") == "0" {
			w.Header().Set("Retry-After", "0")
			writeError(w, 529, "overloaded_error", "Overloaded")
			return
		}
		writeJSON(w, http.StatusOK, message(DefaultModel, "end_turn",
			textBlock(`{"match": true, "confidence": 0.7, "reason": "same"}`)))
	})
	j := newJudge(t, f.config())
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			v, err := j.Judge(context.Background(), f.event, f.cand, foley.LevelJudge)
			if err != nil || !v.Match {
				t.Errorf("verdict %+v, error %v", v, err)
			}
		})
	}
	wg.Wait()
}

func TestCheck(t *testing.T) {
	f := newFakeAPI(t, nil)
	if err := newJudge(t, f.config()).Check(context.Background()); err != nil {
		t.Fatalf("Check: %v", err)
	}
	if f.ModelCalls() != 1 || f.MessageCalls() != 0 {
		t.Errorf("%d model and %d message calls, want 1 and 0", f.ModelCalls(), f.MessageCalls())
	}

	for _, tc := range []struct {
		name string
		cfg  func(*Config)
		want string
	}{
		{"unknown model", func(c *Config) { c.Model = "claude-nope" }, "404 not_found_error: model: claude-nope"},
		{"invalid key", func(c *Config) { c.APIKey = "sk-ant-revoked" }, "401 authentication_error: invalid x-api-key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := f.config()
			tc.cfg(&cfg)
			err := newJudge(t, cfg).Check(context.Background())
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range []string{"check of " + f.URL, tc.want} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
			if foley.CodeOf(err) != foley.Unavailable {
				t.Errorf("code %q", foley.CodeOf(err))
			}
		})
	}

	t.Run("server gone", func(t *testing.T) {
		g := newFakeAPI(t, nil)
		cfg := g.config()
		g.Close()
		err := newJudge(t, cfg).Check(context.Background())
		if err == nil || !strings.Contains(err.Error(), "cannot reach "+g.URL) {
			t.Errorf("error %v, want one that names %s", err, g.URL)
		}
	})
}

func TestNew(t *testing.T) {
	if _, err := New(Config{}); foley.CodeOf(err) != foley.Invalid || !strings.Contains(err.Error(), EnvAPIKey) {
		t.Errorf("New without a key: %v, want an Invalid error naming %s", err, EnvAPIKey)
	}
	for _, cfg := range []Config{
		{APIKey: "k", MaxTokens: -1},
		{APIKey: "k", Timeout: -time.Second},
		{APIKey: "k", BaseURL: "api.anthropic.com"},
		{APIKey: "k", BaseURL: "ftp://example.com"},
		{APIKey: "k", Effort: "extreme"},
	} {
		if _, err := New(cfg); foley.CodeOf(err) != foley.Invalid {
			t.Errorf("New(%+v): %v, want an Invalid error", cfg, err)
		}
	}

	j := newJudge(t, Config{APIKey: "k"})
	if j.Name() != "anthropic:claude-opus-4-8" {
		t.Errorf("Name %q", j.Name())
	}
	if want := "anthropic|claude-opus-4-8|prompt=" + verify.JudgePromptVersion + "|max_tokens=500|effort=low"; j.Identity() != want {
		t.Errorf("Identity %q, want %q", j.Identity(), want)
	}
	if j.baseURL != DefaultBaseURL || j.timeout != DefaultTimeout || j.maxRetries != DefaultMaxRetries {
		t.Errorf("defaults: %s %s %d", j.baseURL, j.timeout, j.maxRetries)
	}
	j = newJudge(t, Config{APIKey: "k", Model: "claude-sonnet-5-5", MaxTokens: 2048, MaxRetries: -1, Effort: "High"})
	if j.Identity() != "anthropic|claude-sonnet-5-5|prompt="+verify.JudgePromptVersion+"|max_tokens=2048|effort=high" || j.maxRetries != 0 {
		t.Errorf("Identity %q, retries %d", j.Identity(), j.maxRetries)
	}
}

func setEnv(t *testing.T, kv map[string]string) {
	t.Helper()
	for _, k := range []string{EnvAPIKey, EnvModel, EnvMaxTokens, EnvTimeout, EnvBaseURL, EnvEffort} {
		t.Setenv(k, kv[k])
	}
}

func TestFromEnv(t *testing.T) {
	setEnv(t, nil)
	if j, err := FromEnv(); j != nil || err != nil {
		t.Errorf("FromEnv without a key: %v, %v; want nil, nil", j, err)
	}

	setEnv(t, map[string]string{EnvAPIKey: "sk-ant-x"})
	j, err := FromEnv()
	if err != nil || j == nil {
		t.Fatalf("FromEnv: %v", err)
	}
	if j.model != DefaultModel || j.maxTokens != DefaultMaxTokens || j.timeout != DefaultTimeout || j.baseURL != DefaultBaseURL {
		t.Errorf("defaults: %+v", j)
	}

	f := newFakeAPI(t, answer(message("claude-sonnet-5-5", "end_turn",
		textBlock(`{"match": true, "confidence": 0.6, "reason": "ok"}`))))
	f.Model, f.MaxTokens = "claude-sonnet-5-5", 1024
	setEnv(t, map[string]string{
		EnvAPIKey: f.Key, EnvModel: "claude-sonnet-5-5", EnvMaxTokens: "1024",
		EnvTimeout: "2m", EnvBaseURL: f.URL + "/",
	})
	j, err = FromEnv()
	if err != nil {
		t.Fatalf("FromEnv: %v", err)
	}
	if j.model != "claude-sonnet-5-5" || j.maxTokens != 1024 || j.timeout != 2*time.Minute || j.baseURL != f.URL {
		t.Errorf("from env: model %s, max tokens %d, timeout %s, base URL %s", j.model, j.maxTokens, j.timeout, j.baseURL)
	}
	if v, err := j.Judge(context.Background(), f.event, f.cand, foley.LevelJudge); err != nil || !v.Match {
		t.Errorf("Judge with the env's judge: %+v, %v", v, err)
	}

	for _, tc := range []struct{ key, value string }{
		{EnvMaxTokens, "many"},
		{EnvMaxTokens, "0"},
		{EnvMaxTokens, "-5"},
		{EnvMaxTokens, "1.5"},
		{EnvEffort, "extreme"},
		{EnvTimeout, "soon"},
		{EnvTimeout, "60"},
		{EnvTimeout, "-1s"},
		{EnvBaseURL, "api.anthropic.com"},
		{EnvBaseURL, "ftp://example.com"},
		{EnvBaseURL, "http://[::1"},
		{EnvAPIKey, "   "},
	} {
		t.Run(tc.key+"="+tc.value, func(t *testing.T) {
			env := map[string]string{EnvAPIKey: "sk-ant-x"}
			env[tc.key] = tc.value
			setEnv(t, env)
			j, err := FromEnv()
			if err == nil || j != nil {
				t.Fatalf("FromEnv: %v, %v; want an error", j, err)
			}
			if foley.CodeOf(err) != foley.Invalid {
				t.Errorf("code %q, want invalid", foley.CodeOf(err))
			}
			if !strings.Contains(err.Error(), tc.key) {
				t.Errorf("error %q does not name %s", err, tc.key)
			}
			if tc.key != EnvAPIKey && !strings.Contains(err.Error(), strconv.Quote(tc.value)) {
				t.Errorf("error %q does not quote the value %q", err, tc.value)
			}
		})
	}
}
