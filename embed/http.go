package embed

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/httpretry"
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

// post sends body to the endpoint, retrying what may pass on a second try
// as c.policy says, and returns the body of the 2xx answer.
func (c *CLAP) post(ctx context.Context, body []byte) ([]byte, error) {
	return httpretry.Do(ctx, c.policy, "CLAP request to "+c.url, func(ctx context.Context) ([]byte, *httpretry.Failure) {
		return c.attempt(ctx, body)
	})
}

// attempt sends one request.
func (c *CLAP) attempt(ctx context.Context, body []byte) ([]byte, *httpretry.Failure) {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, &httpretry.Failure{Code: foley.Invalid, Msg: fmt.Sprintf("CLAP: bad server URL %s: %v", c.url, err), Cause: err}
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
		return nil, &httpretry.Failure{Code: foley.Unavailable,
			Msg: fmt.Sprintf("CLAP server at %s answered more than %d MiB", c.url, maxAnswerBytes>>20)}
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return answer, nil
	}
	return nil, c.statusFailure(resp, answer)
}

// transportFailure explains an error of the connection: no answer at all.
func (c *CLAP) transportFailure(actx context.Context, err error) *httpretry.Failure {
	cause, timedOut, retry := httpretry.Transport(actx, err)
	if timedOut {
		return &httpretry.Failure{Code: foley.Unavailable, Cause: err,
			Msg: fmt.Sprintf("CLAP server at %s is not reachable: it did not answer within %s; "+
				"is it overloaded, or is FOLEY_CLAP_URL wrong? (%v)", c.url, c.timeout, cause)}
	}
	return &httpretry.Failure{Code: foley.Unavailable, Cause: err, Retry: retry, RetryAfter: -1,
		Msg:  fmt.Sprintf("CLAP server at %s is not reachable (%v)", c.url, cause),
		Hint: fmt.Sprintf("; %s, or unset FOLEY_CLAP_URL to use the built-in text-only embedder", clapHowTo)}
}

// statusFailure explains an answer that is not 2xx.
func (c *CLAP) statusFailure(resp *http.Response, body []byte) *httpretry.Failure {
	status := httpretry.Status(resp.StatusCode)
	msg := httpretry.ServerMessage(body)
	code := resp.StatusCode
	switch {
	case code == http.StatusTooManyRequests || code >= 500:
		return &httpretry.Failure{Code: foley.Unavailable, Retry: true, RetryAfter: httpretry.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now()),
			Msg: fmt.Sprintf("CLAP server at %s failed: %s: %q", c.url, status, msg)}
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return &httpretry.Failure{Code: foley.Unavailable,
			Msg: fmt.Sprintf("CLAP server at %s refused the request: %s: %q (check FOLEY_CLAP_API_KEY)", c.url, status, msg)}
	case code == http.StatusNotFound || code == http.StatusMethodNotAllowed:
		return &httpretry.Failure{Code: foley.Unavailable,
			Msg: fmt.Sprintf("CLAP server at %s has no POST /embeddings: %s: %q "+
				"(FOLEY_CLAP_URL must be the base URL of an Infinity embedding server, e.g. http://localhost:7997)", c.url, status, msg)}
	case code >= 400:
		return &httpretry.Failure{Code: foley.Invalid,
			Msg: fmt.Sprintf("CLAP server at %s rejected the request (model %q): %s: %q", c.url, c.model, status, msg)}
	default:
		return &httpretry.Failure{Code: foley.Unavailable,
			Msg: fmt.Sprintf("CLAP server at %s gave an unexpected answer: %s: %q", c.url, status, msg)}
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
