package elevenlabs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// answer is a 2xx answer.
type answer struct {
	contentType string
	body        []byte
}

// failure is a failed attempt: what to tell, and whether to try again.
type failure struct {
	code       foley.ErrorCode
	msg        string
	hint       string // what to do, after the count of attempts
	cause      error
	retry      bool
	retryAfter time.Duration // the API's Retry-After; < 0 when none
}

func (f *failure) error(attempts int) error {
	msg := f.msg
	if attempts > 1 {
		msg += fmt.Sprintf(" (gave up after %d attempts)", attempts)
	}
	msg += f.hint
	return &foley.Error{Code: f.code, Message: msg, Err: f.cause}
}

// post sends body to the endpoint, retrying what may pass on a second try,
// and returns the 2xx answer.
func (g *Generator) post(ctx context.Context, body []byte) (*answer, error) {
	for attempt := 1; ; attempt++ {
		ans, f := g.attempt(ctx, body)
		if f == nil {
			return ans, nil
		}
		if ctx.Err() != nil {
			return nil, g.ctxError(ctx)
		}
		if !f.retry || attempt >= g.attempts {
			return nil, f.error(attempt)
		}
		wait := g.backoffFor(attempt)
		if f.retryAfter >= 0 {
			if f.retryAfter > g.maxRetryAfter {
				f.msg += fmt.Sprintf("; it asks to retry after %s, longer than the %s foley waits", f.retryAfter, g.maxRetryAfter)
				return nil, f.error(attempt)
			}
			wait = f.retryAfter
		}
		if sleep(ctx, wait) != nil {
			return nil, g.ctxError(ctx)
		}
	}
}

func (g *Generator) ctxError(ctx context.Context) error {
	return fmt.Errorf("ElevenLabs request to %s: %w", g.base, ctx.Err())
}

// attempt sends one request.
func (g *Generator) attempt(ctx context.Context, body []byte) (*answer, *failure) {
	actx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, g.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, &failure{code: foley.Invalid, msg: fmt.Sprintf("ElevenLabs: bad base URL %s: %v", g.base, err), cause: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "foley")
	req.Header.Set("xi-api-key", g.apiKey)
	resp, err := g.client.Do(req)
	if err != nil {
		return nil, g.transportFailure(actx, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err != nil {
		return nil, g.transportFailure(actx, err)
	}
	if len(data) > maxAnswerBytes {
		return nil, &failure{code: foley.Unavailable,
			msg: fmt.Sprintf("ElevenLabs API at %s answered more than %d MiB", g.base, maxAnswerBytes>>20)}
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return &answer{contentType: resp.Header.Get("Content-Type"), body: data}, nil
	}
	return nil, g.statusFailure(resp, data)
}

// transportFailure explains an error of the connection: no answer at all.
func (g *Generator) transportFailure(actx context.Context, err error) *failure {
	cause := err
	var ue *url.Error
	if errors.As(err, &ue) {
		cause = ue.Err
	}
	var ne net.Error
	if errors.Is(actx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return &failure{code: foley.Unavailable, cause: err,
			msg: fmt.Sprintf("ElevenLabs API at %s did not answer within %s (%v)", g.base, g.timeout, cause)}
	}
	var dns *net.DNSError
	retry := !(errors.As(err, &dns) && dns.IsNotFound)
	return &failure{code: foley.Unavailable, cause: err, retry: retry, retryAfter: -1,
		msg: fmt.Sprintf("ElevenLabs API at %s is not reachable (%v)", g.base, cause)}
}

// statusFailure explains an answer that is not 2xx.
func (g *Generator) statusFailure(resp *http.Response, body []byte) *failure {
	code := resp.StatusCode
	status := fmt.Sprintf("%d %s", code, http.StatusText(code))
	msg, errCode := apiMessage(body)
	said := fmt.Sprintf("%s: %q", status, msg)
	if errCode != "" {
		said += " (" + errCode + ")"
	}
	switch {
	case code == http.StatusTooManyRequests || code >= 500:
		return &failure{code: foley.Unavailable, retry: true, retryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()),
			msg: fmt.Sprintf("ElevenLabs API at %s failed: %s", g.base, said)}
	case code == http.StatusUnauthorized && errCode == "quota_exceeded":
		return &failure{code: foley.Unavailable,
			msg: fmt.Sprintf("ElevenLabs API at %s refused the request: %s: the account's credits are used up", g.base, said)}
	case code == http.StatusUnauthorized:
		return &failure{code: foley.Unavailable,
			msg: fmt.Sprintf("ElevenLabs API at %s refused the API key: %s (check %s)", g.base, said, EnvAPIKey)}
	case code == http.StatusForbidden:
		return &failure{code: foley.Unavailable,
			msg: fmt.Sprintf("ElevenLabs API at %s refused the request: %s (may the key use sound effects?)", g.base, said)}
	case code == http.StatusNotFound || code == http.StatusMethodNotAllowed:
		return &failure{code: foley.Unavailable,
			msg: fmt.Sprintf("ElevenLabs API at %s has no POST %s: %s (is %s right? it wants the base URL, e.g. %s)",
				g.base, endpointPath, said, EnvBaseURL, DefaultBaseURL)}
	case code >= 400:
		return &failure{code: foley.Invalid,
			msg: fmt.Sprintf("ElevenLabs API at %s rejected the request (model %q): %s", g.base, g.model, said)}
	default:
		return &failure{code: foley.Unavailable,
			msg: fmt.Sprintf("ElevenLabs API at %s gave an unexpected answer: %s", g.base, said)}
	}
}

// apiMessage digs the message out of an error body, and its error code
// when there is one. ElevenLabs answers {"detail": {"type", "code",
// "message", "status", "request_id", "param"}} ("status" being the older
// name of "code"), or a FastAPI {"detail": "..."} or validation list; any
// other body is read by httperr.Message.
func apiMessage(body []byte) (msg, code string) {
	var v struct {
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil && len(v.Detail) > 0 && v.Detail[0] == '{' {
		var d struct {
			Code    string `json:"code"`
			Status  string `json:"status"`
			Message string `json:"message"`
			Param   string `json:"param"`
		}
		if json.Unmarshal(v.Detail, &d) == nil && (d.Message != "" || d.Code != "" || d.Status != "") {
			msg = d.Message
			if msg == "" {
				msg = "(no message)"
			}
			if d.Param != "" && !strings.Contains(msg, d.Param) {
				msg += " (parameter " + d.Param + ")"
			}
			return clip(msg), cmpOr(d.Code, d.Status)
		}
	}
	return serverMessage(body), ""
}

// serverMessage is the message of an error body (see httperr.Message),
// shortened.
func serverMessage(body []byte) string {
	if m := httperr.Message(body); m != "" {
		return clip(m)
	}
	return "(empty answer)"
}

// clip shortens a message to 500 characters.
func clip(s string) string {
	const most = 500
	if utf8.RuneCountInString(s) <= most {
		return s
	}
	return string([]rune(s)[:most]) + "…"
}

// parseRetryAfter reads a Retry-After header: seconds, or an HTTP date.
// It returns -1 when there is none or it cannot be read.
func parseRetryAfter(h string, now time.Time) time.Duration {
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

// backoffFor is the wait after attempt (1-based) failed: BackoffBase
// doubled per attempt, at most BackoffMax, jittered to between half and
// all of it.
func (g *Generator) backoffFor(attempt int) time.Duration {
	d := g.backoff
	for i := 1; i < attempt && d < g.maxBO; i++ {
		d *= 2
	}
	d = min(d, g.maxBO)
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
