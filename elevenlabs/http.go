package elevenlabs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/httpretry"
)

// answer is a 2xx answer.
type answer struct {
	contentType string
	body        []byte
}

// post sends body to the endpoint, retrying what may pass on a second try
// as g.policy says, and returns the 2xx answer.
func (g *Generator) post(ctx context.Context, body []byte) (*answer, error) {
	return httpretry.Do(ctx, g.policy, "ElevenLabs request to "+g.base, func(ctx context.Context) (*answer, *httpretry.Failure) {
		return g.attempt(ctx, body)
	})
}

// attempt sends one request.
func (g *Generator) attempt(ctx context.Context, body []byte) (*answer, *httpretry.Failure) {
	actx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, g.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, &httpretry.Failure{Code: foley.Invalid, Msg: fmt.Sprintf("ElevenLabs: bad base URL %s: %v", g.base, err), Cause: err}
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
		return nil, &httpretry.Failure{Code: foley.Unavailable,
			Msg: fmt.Sprintf("ElevenLabs API at %s answered more than %d MiB", g.base, maxAnswerBytes>>20)}
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return &answer{contentType: resp.Header.Get("Content-Type"), body: data}, nil
	}
	return nil, g.statusFailure(resp, data)
}

// transportFailure explains an error of the connection: no answer at all.
func (g *Generator) transportFailure(actx context.Context, err error) *httpretry.Failure {
	cause, timedOut, retry := httpretry.Transport(actx, err)
	if timedOut {
		return &httpretry.Failure{Code: foley.Unavailable, Cause: err,
			Msg: fmt.Sprintf("ElevenLabs API at %s did not answer within %s (%v)", g.base, g.timeout, cause)}
	}
	return &httpretry.Failure{Code: foley.Unavailable, Cause: err, Retry: retry, RetryAfter: -1,
		Msg: fmt.Sprintf("ElevenLabs API at %s is not reachable (%v)", g.base, cause)}
}

// statusFailure explains an answer that is not 2xx.
func (g *Generator) statusFailure(resp *http.Response, body []byte) *httpretry.Failure {
	code := resp.StatusCode
	status := httpretry.Status(code)
	msg, errCode := apiMessage(body)
	said := fmt.Sprintf("%s: %q", status, msg)
	if errCode != "" {
		said += " (" + errCode + ")"
	}
	switch {
	case code == http.StatusTooManyRequests || code >= 500:
		return &httpretry.Failure{Code: foley.Unavailable, Retry: true, RetryAfter: httpretry.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now()),
			Msg: fmt.Sprintf("ElevenLabs API at %s failed: %s", g.base, said)}
	case code == http.StatusUnauthorized && errCode == "quota_exceeded":
		return &httpretry.Failure{Code: foley.Unavailable,
			Msg: fmt.Sprintf("ElevenLabs API at %s refused the request: %s: the account's credits are used up", g.base, said)}
	case code == http.StatusUnauthorized:
		return &httpretry.Failure{Code: foley.Unavailable,
			Msg: fmt.Sprintf("ElevenLabs API at %s refused the API key: %s (check %s)", g.base, said, EnvAPIKey)}
	case code == http.StatusForbidden:
		return &httpretry.Failure{Code: foley.Unavailable,
			Msg: fmt.Sprintf("ElevenLabs API at %s refused the request: %s (may the key use sound effects?)", g.base, said)}
	case code == http.StatusNotFound || code == http.StatusMethodNotAllowed:
		return &httpretry.Failure{Code: foley.Unavailable,
			Msg: fmt.Sprintf("ElevenLabs API at %s has no POST %s: %s (is %s right? it wants the base URL, e.g. %s)",
				g.base, endpointPath, said, EnvBaseURL, DefaultBaseURL)}
	case code >= 400:
		return &httpretry.Failure{Code: foley.Invalid,
			Msg: fmt.Sprintf("ElevenLabs API at %s rejected the request (model %q): %s", g.base, g.model, said)}
	default:
		return &httpretry.Failure{Code: foley.Unavailable,
			Msg: fmt.Sprintf("ElevenLabs API at %s gave an unexpected answer: %s", g.base, said)}
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
			return httpretry.Clip(msg), cmpOr(d.Code, d.Status)
		}
	}
	return httpretry.ServerMessage(body), ""
}
