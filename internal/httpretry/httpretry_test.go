package httpretry

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/foley-audio/foley"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for h, want := range map[string]time.Duration{
		"":                              -1,
		"0":                             0,
		"1":                             time.Second,
		"2":                             2 * time.Second,
		" 120 ":                         2 * time.Minute,
		"0.25":                          250 * time.Millisecond,
		"1.5":                           1500 * time.Millisecond,
		"-1":                            -1,
		"-3":                            -1,
		"soon":                          -1,
		"Thu, 02 Jan 2025 03:04:15 GMT": 10 * time.Second,
		"Thu, 02 Jan 2025 03:04:00 GMT": 0,
		"Thu, 02 Jan 2025 03:00:00 GMT": 0,
	} {
		if got := ParseRetryAfter(h, now); got != want {
			t.Errorf("ParseRetryAfter(%q) = %s, want %s", h, got, want)
		}
	}
}

func TestBackoff(t *testing.T) {
	p := Policy{BackoffBase: 100 * time.Millisecond, BackoffMax: time.Second}
	for attempt, full := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 4: 800 * time.Millisecond, 5: time.Second, 30: time.Second} {
		for range 20 {
			if d := p.Backoff(attempt); d < full/2 || d > full {
				t.Errorf("Backoff(%d) = %s, want %s..%s", attempt, d, full/2, full)
			}
		}
	}
}

func TestServerMessage(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":{"message":"Invalid model: x","type":null,"param":null,"code":400}}`: "Invalid model: x",
		`{"error":"quota exceeded"}`: "quota exceeded",
		`{"detail":"Not Found"}`:     "Not Found",
		`{"detail":[{"type":"missing","loc":["body","input"],"msg":"Field required"}]}`:       "Field required (at body.input)",
		`{"detail":[{"loc":["body","input",3],"msg":"bad wav"},{"loc":[],"msg":"and more"}]}`: "bad wav (at body.input.3); and more",
		`{"message":"upstream timeout"}`: "upstream timeout",
		"  Bad Gateway\n":                "Bad Gateway",
		"":                               "(empty answer)",
	} {
		if got := ServerMessage([]byte(body)); got != want {
			t.Errorf("ServerMessage(%q) = %q, want %q", body, got, want)
		}
	}
	if got := ServerMessage([]byte(strings.Repeat("x", 2000))); len([]rune(got)) != 501 {
		t.Errorf("a long message is not shortened: %d characters", len([]rune(got)))
	}
}

func TestDo(t *testing.T) {
	p := Policy{Attempts: 3, BackoffBase: time.Millisecond, BackoffMax: time.Millisecond, MaxRetryAfter: time.Second}
	fail := func(retry bool, after time.Duration) *Failure {
		return &Failure{Code: foley.Unavailable, Msg: "server failed", Hint: "; check it", Retry: retry, RetryAfter: after}
	}
	for _, tc := range []struct {
		name    string
		fails   []*Failure // the failures of the first attempts; then success
		calls   int
		wantErr string // "" for success
	}{
		{name: "first", calls: 1},
		{name: "after retries", fails: []*Failure{fail(true, -1), fail(true, 0)}, calls: 3},
		{name: "too many", fails: []*Failure{fail(true, -1), fail(true, -1), fail(true, -1)}, calls: 3,
			wantErr: "server failed (gave up after 3 attempts); check it"},
		{name: "not retried", fails: []*Failure{fail(false, -1)}, calls: 1, wantErr: "server failed; check it"},
		{name: "retry-after too long", fails: []*Failure{fail(true, time.Hour)}, calls: 1,
			wantErr: "server failed; it asks to retry after 1h0m0s, longer than the 1s foley waits; check it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			v, err := Do(context.Background(), p, "request to x", func(context.Context) (int, *Failure) {
				calls++
				if calls <= len(tc.fails) {
					return 0, tc.fails[calls-1]
				}
				return 7, nil
			})
			if calls != tc.calls {
				t.Errorf("%d calls, want %d", calls, tc.calls)
			}
			if tc.wantErr == "" {
				if err != nil || v != 7 {
					t.Errorf("got %d, %v; want 7", v, err)
				}
				return
			}
			if err == nil || err.Error() != tc.wantErr || foley.CodeOf(err) != foley.Unavailable {
				t.Errorf("error %v, want Unavailable %q", err, tc.wantErr)
			}
		})
	}

	ctx, cancel := context.WithCancel(context.Background())
	_, err := Do(ctx, p, "request to x", func(context.Context) (int, *Failure) {
		cancel()
		return 0, fail(true, -1)
	})
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "request to x: ") {
		t.Errorf("cancelled: %v", err)
	}
}
