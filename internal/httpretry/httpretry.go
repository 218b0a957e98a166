// Package httpretry is the retry loop of the HTTP clients that call a
// service by hand (embed's CLAP client, the elevenlabs generator): a
// Policy of attempts and exponential backoff with jitter that honours
// Retry-After, the Failure an attempt reports (what to tell, and whether
// to try again), and the helpers that explain a failure. Each client keeps
// its own requests and messages.
package httpretry

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/httperr"
)

// Policy says how often and how long to retry.
type Policy struct {
	// Attempts is the most attempts, the first included.
	Attempts int
	// BackoffBase is the wait after the first failed attempt, doubled per
	// attempt up to BackoffMax (see Backoff).
	BackoffBase, BackoffMax time.Duration
	// MaxRetryAfter is the longest Retry-After to wait: a server asking
	// for more ends the retries.
	MaxRetryAfter time.Duration
}

// Failure is a failed attempt: what to tell, and whether to try again.
type Failure struct {
	Code  foley.ErrorCode
	Msg   string
	Hint  string // what to do, told after the count of attempts
	Cause error
	// Retry says whether another attempt may pass.
	Retry bool
	// RetryAfter is the server's Retry-After (see ParseRetryAfter); < 0
	// when there is none. Only a failure to retry needs it.
	RetryAfter time.Duration
}

// Err is the error of the failure after attempts: Msg, then " (gave up
// after N attempts)" when there was more than one, then Hint.
func (f *Failure) Err(attempts int) error {
	msg := f.Msg
	if attempts > 1 {
		msg += fmt.Sprintf(" (gave up after %d attempts)", attempts)
	}
	msg += f.Hint
	return &foley.Error{Code: f.Code, Message: msg, Err: f.Cause}
}

// Do calls attempt until it succeeds, and returns its result. It tries
// again, after p.Backoff or the server's Retry-After, while the failure
// says to retry and p.Attempts allows; a Retry-After longer than
// p.MaxRetryAfter ends the retries, and says so. When ctx is done, Do
// returns ctx's error wrapped as "<what>: <ctx.Err()>", such as "CLAP
// request to http://host: context canceled".
func Do[T any](ctx context.Context, p Policy, what string, attempt func(context.Context) (T, *Failure)) (T, error) {
	var zero T
	for n := 1; ; n++ {
		v, f := attempt(ctx)
		if f == nil {
			return v, nil
		}
		if ctx.Err() != nil {
			return zero, fmt.Errorf("%s: %w", what, ctx.Err())
		}
		if !f.Retry || n >= p.Attempts {
			return zero, f.Err(n)
		}
		wait := p.Backoff(n)
		if f.RetryAfter >= 0 {
			if f.RetryAfter > p.MaxRetryAfter {
				f.Msg += fmt.Sprintf("; it asks to retry after %s, longer than the %s foley waits", f.RetryAfter, p.MaxRetryAfter)
				return zero, f.Err(n)
			}
			wait = f.RetryAfter
		}
		if sleep(ctx, wait) != nil {
			return zero, fmt.Errorf("%s: %w", what, ctx.Err())
		}
	}
}

// Backoff is the wait after attempt (1-based) failed: BackoffBase doubled
// per attempt, at most BackoffMax, jittered to between half and all of
// it.
func (p Policy) Backoff(attempt int) time.Duration {
	d := p.BackoffBase
	for i := 1; i < attempt && d < p.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, p.BackoffMax)
	half := d / 2
	return half + rand.N(d-half+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ParseRetryAfter reads a Retry-After header: seconds, or an HTTP date.
// It returns -1 when there is none or it cannot be read.
func ParseRetryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return -1
	}
	if s, err := strconv.ParseFloat(h, 64); err == nil {
		if s < 0 || math.IsNaN(s) || math.IsInf(s, 0) {
			return -1
		}
		return time.Duration(min(s, 1e6) * float64(time.Second))
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(t.Sub(now), 0)
	}
	return -1
}

// Transport reads an error of the connection of an attempt whose context
// is actx, which got no answer at all: the cause to tell (the error a
// *url.Error wraps), whether the attempt timed out, and whether another
// attempt may pass (not after a timeout, nor for a host that does not
// exist).
func Transport(actx context.Context, err error) (cause error, timedOut, retry bool) {
	cause = err
	var ue *url.Error
	if errors.As(err, &ue) {
		cause = ue.Err
	}
	var ne net.Error
	if errors.Is(actx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return cause, true, false
	}
	var dns *net.DNSError
	return cause, false, !(errors.As(err, &dns) && dns.IsNotFound)
}

// Status is an answer's status for a message: "503 Service Unavailable".
func Status(code int) string {
	return fmt.Sprintf("%d %s", code, http.StatusText(code))
}

// ServerMessage is the message of an error body (see httperr.Message),
// shortened by Clip, or "(empty answer)".
func ServerMessage(body []byte) string {
	if m := httperr.Message(body); m != "" {
		return Clip(m)
	}
	return "(empty answer)"
}

// Clip shortens a message to 500 characters.
func Clip(s string) string {
	const most = 500
	if utf8.RuneCountInString(s) <= most {
		return s
	}
	return string([]rune(s)[:most]) + "…"
}
