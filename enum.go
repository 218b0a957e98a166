package foley

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// enum describes the spellings of a small integer enumeration. It gives every
// enum of the domain the same parsing, the same error messages and the same
// JSON form. When names[0] is "", the zero value means "not set" and has no
// spelling; otherwise the zero value is a real value (the default).
type enum[T ~int] struct {
	what  string   // what a value is called in messages, e.g. "verify level"
	names []string // names[v] is the spelling of v
}

// valid lists the spellings a user may write.
func (e enum[T]) valid() string {
	if e.names[0] == "" {
		return strings.Join(e.names[1:], ", ")
	}
	return strings.Join(e.names, ", ")
}

// ok reports whether v is a value with a spelling.
func (e enum[T]) ok(v T) bool {
	return int(v) >= 0 && int(v) < len(e.names) && e.names[v] != ""
}

func (e enum[T]) String(v T) string {
	if int(v) >= 0 && int(v) < len(e.names) {
		return e.names[v]
	}
	return fmt.Sprintf("%s(%d)", e.what, int(v))
}

// parse reads a spelling, ignoring case and surrounding space. The error
// names the value and the valid spellings.
func (e enum[T]) parse(s string) (T, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for i, n := range e.names {
		if n != "" && n == t {
			return T(i), nil
		}
	}
	return 0, Errorf(Invalid, "invalid %s %q (valid: %s)", e.what, s, e.valid())
}

// unmarshalText is the TextUnmarshaler body. Its error is a
// *json.UnmarshalTypeError so that encoding/json fills in the path of the
// field ("verdict.level"); the value part lists the valid spellings.
func (e enum[T]) unmarshalText(b []byte, v *T) error {
	p, err := e.parse(string(b))
	if err != nil {
		return &json.UnmarshalTypeError{
			Value: fmt.Sprintf("%q (valid: %s)", b, e.valid()),
			Type:  reflect.TypeFor[T](),
		}
	}
	*v = p
	return nil
}

func (e enum[T]) marshalText(v T) ([]byte, error) {
	if v == 0 && e.names[0] == "" {
		return []byte{}, nil
	}
	if !e.ok(v) {
		return nil, Errorf(Invalid, "invalid %s %d", e.what, int(v))
	}
	return []byte(e.names[v]), nil
}
