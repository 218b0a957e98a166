// Package httperr reads the error bodies of model and embedding servers.
package httperr

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Message digs the message out of an HTTP error body: OpenAI's,
// Infinity's and vLLM's {"error": {"message": ...}} (or {"error": "..."}),
// FastAPI's {"detail": ...} (a string, or validation errors with loc and
// msg), vLLM's older {"object": "error", "message": ...}, or the text
// itself, trimmed. It returns "" for an empty body.
func Message(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Detail  json.RawMessage `json:"detail"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &v) == nil {
		if m := errorField(v.Error); m != "" {
			return m
		}
		if m := detailField(v.Detail); m != "" {
			return m
		}
		if v.Message != "" {
			return v.Message
		}
	}
	s := strings.TrimSpace(strings.ToValidUTF8(string(body), "\uFFFD"))
	return s
}

func errorField(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &o) == nil {
		return o.Message
	}
	return ""
}

func detailField(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []struct {
		Loc []any  `json:"loc"`
		Msg string `json:"msg"`
	}
	if json.Unmarshal(raw, &list) != nil {
		return ""
	}
	var parts []string
	for _, d := range list {
		if d.Msg == "" {
			continue
		}
		if len(d.Loc) == 0 {
			parts = append(parts, d.Msg)
			continue
		}
		loc := make([]string, len(d.Loc))
		for i, l := range d.Loc {
			loc[i] = fmt.Sprint(l)
		}
		parts = append(parts, fmt.Sprintf("%s (at %s)", d.Msg, strings.Join(loc, ".")))
	}
	return strings.Join(parts, "; ")
}
