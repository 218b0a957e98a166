package embed

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
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

// maxAnswerBytes bounds an answer read into memory.
const maxAnswerBytes = 256 << 20

// embedRequest is the body of POST /embeddings.
type embedRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Modality       string   `json:"modality,omitempty"` // "" is text
}

// embedAnswer is the OpenAI-shaped answer.
type embedAnswer struct {
	Data []struct {
		Embedding json.RawMessage `json:"embedding"`
		Index     *int            `json:"index"`
	} `json:"data"`
}

// embed sends one request for inputs (modality "" for text, "audio") and
// returns one normalised vector per input, in input order.
func (c *CLAP) embed(ctx context.Context, modality string, inputs []string) ([][]float32, error) {
	if len(inputs) == 0 {
		return nil, nil
	}
	body, err := json.Marshal(embedRequest{Model: c.model, Input: inputs, EncodingFormat: "float", Modality: modality})
	if err != nil {
		return nil, foley.Errorf(foley.Internal, "CLAP: encoding the request: %w", err)
	}
	answer, err := c.post(ctx, body)
	if err != nil {
		return nil, err
	}
	return c.parse(answer, len(inputs))
}

// failure is a failed attempt: what to tell, and whether to try again.
type failure struct {
	code       foley.ErrorCode
	msg        string
	hint       string // what to do, after the count of attempts
	cause      error
	retry      bool
	retryAfter time.Duration // the server's Retry-After; < 0 when none
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
// and returns the body of the 2xx answer.
func (c *CLAP) post(ctx context.Context, body []byte) ([]byte, error) {
	for attempt := 1; ; attempt++ {
		answer, f := c.attempt(ctx, body)
		if f == nil {
			return answer, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, c.ctxError(ctx)
		}
		if !f.retry || attempt >= c.attempts {
			return nil, f.error(attempt)
		}
		wait := c.backoffFor(attempt)
		if f.retryAfter >= 0 {
			if f.retryAfter > c.maxRetryAfter {
				f.msg += fmt.Sprintf("; it asks to retry after %s, longer than the %s foley waits", f.retryAfter, c.maxRetryAfter)
				return nil, f.error(attempt)
			}
			wait = f.retryAfter
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, c.ctxError(ctx)
		}
	}
}

func (c *CLAP) ctxError(ctx context.Context) error {
	return fmt.Errorf("CLAP request to %s: %w", c.url, ctx.Err())
}

// attempt sends one request.
func (c *CLAP) attempt(ctx context.Context, body []byte) ([]byte, *failure) {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, &failure{code: foley.Invalid, msg: fmt.Sprintf("CLAP: bad server URL %s: %v", c.url, err), cause: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "foley")
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, c.transportFailure(actx, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err != nil {
		return nil, c.transportFailure(actx, err)
	}
	if len(answer) > maxAnswerBytes {
		return nil, &failure{code: foley.Unavailable,
			msg: fmt.Sprintf("CLAP server at %s answered more than %d MiB", c.url, maxAnswerBytes>>20)}
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return answer, nil
	}
	return nil, c.statusFailure(resp, answer)
}

// transportFailure explains an error of the connection: no answer at all.
func (c *CLAP) transportFailure(actx context.Context, err error) *failure {
	cause := err
	var ue *url.Error
	if errors.As(err, &ue) {
		cause = ue.Err
	}
	var ne net.Error
	if errors.Is(actx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return &failure{code: foley.Unavailable, cause: err,
			msg: fmt.Sprintf("CLAP server at %s is not reachable: it did not answer within %s; "+
				"is it overloaded, or is FOLEY_CLAP_URL wrong? (%v)", c.url, c.timeout, cause)}
	}
	var dns *net.DNSError
	retry := !(errors.As(err, &dns) && dns.IsNotFound)
	return &failure{code: foley.Unavailable, cause: err, retry: retry, retryAfter: -1,
		msg:  fmt.Sprintf("CLAP server at %s is not reachable (%v)", c.url, cause),
		hint: fmt.Sprintf("; %s, or unset FOLEY_CLAP_URL to use the built-in text-only embedder", clapHowTo)}
}

// statusFailure explains an answer that is not 2xx.
func (c *CLAP) statusFailure(resp *http.Response, body []byte) *failure {
	status := fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	msg := serverMessage(body)
	code := resp.StatusCode
	switch {
	case code == http.StatusTooManyRequests || code >= 500:
		return &failure{code: foley.Unavailable, retry: true, retryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()),
			msg: fmt.Sprintf("CLAP server at %s failed: %s: %q", c.url, status, msg)}
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return &failure{code: foley.Unavailable,
			msg: fmt.Sprintf("CLAP server at %s refused the request: %s: %q (check FOLEY_CLAP_API_KEY)", c.url, status, msg)}
	case code == http.StatusNotFound || code == http.StatusMethodNotAllowed:
		return &failure{code: foley.Unavailable,
			msg: fmt.Sprintf("CLAP server at %s has no POST /embeddings: %s: %q "+
				"(FOLEY_CLAP_URL must be the base URL of an Infinity embedding server, e.g. http://localhost:7997)", c.url, status, msg)}
	case code >= 400:
		return &failure{code: foley.Invalid,
			msg: fmt.Sprintf("CLAP server at %s rejected the request (model %q): %s: %q", c.url, c.model, status, msg)}
	default:
		return &failure{code: foley.Unavailable,
			msg: fmt.Sprintf("CLAP server at %s gave an unexpected answer: %s: %q", c.url, status, msg)}
	}
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
func (c *CLAP) backoffFor(attempt int) time.Duration {
	d := c.backoff
	for i := 1; i < attempt && d < c.maxBO; i++ {
		d *= 2
	}
	d = min(d, c.maxBO)
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

// parse checks an answer to n inputs and returns its vectors in index
// order, normalised.
func (c *CLAP) parse(answer []byte, n int) ([][]float32, error) {
	var a embedAnswer
	if err := json.Unmarshal(answer, &a); err != nil {
		return nil, c.badAnswer("it is not an embeddings answer: %v", err)
	}
	if len(a.Data) != n {
		return nil, c.badAnswer("%d embeddings for %d inputs", len(a.Data), n)
	}
	out := make([][]float32, n)
	dim := 0
	for pos, d := range a.Data {
		i := pos
		if d.Index != nil {
			i = *d.Index
		}
		if i < 0 || i >= n {
			return nil, c.badAnswer("index %d is out of range for %d inputs", i, n)
		}
		if out[i] != nil {
			return nil, c.badAnswer("index %d appears twice", i)
		}
		v, err := decodeVector(d.Embedding)
		if err != nil {
			return nil, c.badAnswer("embedding %d: %v", i, err)
		}
		if len(v) == 0 {
			return nil, c.badAnswer("embedding %d is empty", i)
		}
		if dim == 0 {
			dim = len(v)
		} else if len(v) != dim {
			return nil, c.badAnswer("embeddings of %d and %d numbers in one answer", dim, len(v))
		}
		nv, ok := normalize32(v)
		if !ok {
			return nil, c.badAnswer("embedding %d is zero or not finite", i)
		}
		out[i] = nv
	}
	if err := c.learnDim(dim); err != nil {
		return nil, err
	}
	return out, nil
}

func (c *CLAP) badAnswer(format string, args ...any) error {
	return foley.Errorf(foley.Unavailable, "CLAP server at %s gave a bad answer: %s", c.url, fmt.Sprintf(format, args...))
}

// learnDim fixes the dimension on the first answer and checks it after.
func (c *CLAP) learnDim(d int) error {
	if c.dim.CompareAndSwap(0, int64(d)) {
		return nil
	}
	if have := c.dim.Load(); have != int64(d) {
		return foley.Errorf(foley.Unavailable,
			"CLAP server at %s answered vectors of %d numbers, but %s vectors have %d: is it serving another model?",
			c.url, d, c.model, have)
	}
	return nil
}

// decodeVector reads an embedding: a JSON array of numbers, or a base64
// string of little-endian float32 (encoding_format "base64").
func decodeVector(raw json.RawMessage) ([]float32, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("base64: %v", err)
		}
		if len(b)%4 != 0 {
			return nil, fmt.Errorf("%d bytes of base64 floats is not a multiple of 4", len(b))
		}
		v := make([]float32, len(b)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return v, nil
	}
	var f []float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, err
	}
	v := make([]float32, len(f))
	for i, x := range f {
		v[i] = float32(x)
	}
	return v, nil
}
