package httperr

import "testing"

func TestMessage(t *testing.T) {
	for body, want := range map[string]string{
		`{"error": {"message": "model not found", "type": "invalid_request_error"}}`: "model not found",
		`{"error": "overloaded"}`: "overloaded",
		`{"object": "error", "message": "The model does not exist.", "type": "NotFoundError", "code": 404}`: "The model does not exist.",
		`{"detail": "Not Found"}`: "Not Found",
		`{"detail": [{"loc": ["body", "input", 0], "msg": "field required"}]}`: "field required (at body.input.0)",
		"  Bad Gateway \n": "Bad Gateway",
		"":                 "",
	} {
		if got := Message([]byte(body)); got != want {
			t.Errorf("Message(%q) = %q, want %q", body, got, want)
		}
	}
}
