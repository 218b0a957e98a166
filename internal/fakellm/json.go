// Package fakellm holds fakes of the model APIs foley calls, for tests: the
// Anthropic Messages and Models APIs (Anthropic) and an OpenAI-compatible
// chat-completions server (Chat), each on an httptest server. A fake checks
// each request as the real service would and answers through the test's
// reply function, in the service's shapes; a request the real service
// would not take gets its error answer and fails the test. What a request
// must say besides (its prompts, its schema) is for the test's Check
// function.
package fakellm

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
)

// WriteJSON answers with status and v as JSON.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// SameJSON reports whether a and b encode the same JSON value; a or b may
// be encoded JSON (json.RawMessage or []byte) or any value to encode.
func SameJSON(a, b any) bool {
	var x, y any
	if json.Unmarshal(encoded(a), &x) != nil || json.Unmarshal(encoded(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func encoded(v any) []byte {
	switch v := v.(type) {
	case json.RawMessage:
		return v
	case []byte:
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// strictDecode decodes raw into v, refusing fields v does not have.
func strictDecode(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
