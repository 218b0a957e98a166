package foley

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// DecodeCandidates reads a shortlist: a JSON array of candidates, or one
// candidate object per line (JSON Lines). name labels the input in errors,
// which say where the problem is (line and column for broken JSON, the
// candidate and the field path for a wrong value) and are Invalid.
// Unknown fields are ignored.
func DecodeCandidates(r io.Reader, name string) ([]Candidate, error) {
	return decodeList(r, name, "candidate", "a JSON array of candidates", func(c Candidate, i, line int) error {
		if c.Sound.ID == "" {
			return Errorf(Invalid, "%s: candidate %d (line %d): sound.id is empty; want a JSON array of candidates, each with a sound that has an id", name, i, line)
		}
		return nil
	})
}

// DecodeEvents reads wanted sound events: a JSON array of events, or one
// event object per line (JSON Lines), with errors as DecodeCandidates
// gives them. Every event needs a query.
func DecodeEvents(r io.Reader, name string) ([]SoundEvent, error) {
	return decodeList(r, name, "event", "a JSON array of sound events", func(e SoundEvent, i, line int) error {
		if strings.TrimSpace(e.Query) == "" {
			return Errorf(Invalid, "%s: event %d (line %d): query is empty; want a JSON array of events, each with a query", name, i, line)
		}
		return nil
	})
}

// decodeList reads a JSON array of T or JSON Lines of T, checking each
// value with check (i is its 1-based number, line where it starts).
func decodeList[T any](r io.Reader, name, what, want string, check func(v T, i, line int) error) ([]T, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, Errorf(Invalid, "%s: %w", name, err)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, Errorf(Invalid, "%s: empty; want %s", name, want)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	array := trimmed[0] == '['
	if array {
		if _, err := dec.Token(); err != nil {
			return nil, jsonError(name, what, data, dec, 0, 0, err)
		}
	}
	out := []T{}
	for i := 1; ; i++ {
		if array && !dec.More() {
			break
		}
		var v T
		line := nextLine(data, dec.InputOffset())
		if err := dec.Decode(&v); err == io.EOF && !array {
			break
		} else if err != nil {
			return nil, jsonError(name, what, data, dec, i, line, err)
		}
		if err := check(v, i, line); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if array {
		if _, err := dec.Token(); err != nil {
			return nil, jsonError(name, what, data, dec, 0, 0, err)
		}
		if _, err := dec.Token(); err != io.EOF {
			line, col := position(data, dec.InputOffset())
			return nil, Errorf(Invalid, "%s:%d:%d: unexpected data after the array", name, line, col)
		}
	}
	return out, nil
}

// jsonError turns an encoding/json error into a message that names the
// input, the place and the problem. i is the value's (a candidate's, say) 1-based number and
// line the line it starts on, or 0 outside any candidate.
func jsonError(name, what string, data []byte, dec *json.Decoder, i, line int, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := position(data, syn.Offset)
		return Errorf(Invalid, "%s:%d:%d: invalid JSON: %s", name, line, col, strings.TrimPrefix(syn.Error(), "json: "))
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return Errorf(Invalid, "%s: invalid JSON: unexpected end of input", name)
	case errors.As(err, &typ):
		// typ.Offset is unreliable here: errors from nested decoders
		// count from the nested value. The candidate's line is not.
		where := fmt.Sprintf("%s: %s %d (line %d)", name, what, i, line)
		if typ.Field == "" {
			return Errorf(Invalid, "%s: got %s, want %s", where, typ.Value, jsonKind(typ.Type))
		}
		if strings.Contains(typ.Value, " (valid: ") || strings.Contains(typ.Value, " (want ") {
			return Errorf(Invalid, "%s: field %s: invalid value %s", where, typ.Field, typ.Value)
		}
		return Errorf(Invalid, "%s: field %s: got %s, want %s", where, typ.Field, typ.Value, jsonKind(typ.Type))
	default:
		line, col := position(data, dec.InputOffset())
		return Errorf(Invalid, "%s:%d:%d: %s", name, line, col, strings.TrimPrefix(err.Error(), "json: "))
	}
}

// jsonKind names the JSON kind a Go type is written as.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	if t.Implements(reflect.TypeFor[interface{ MarshalText() ([]byte, error) }]()) {
		return "string"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	default:
		return "object"
	}
}

// nextLine is the line of the first byte at or after off that is not space
// or a comma: where the next value starts.
func nextLine(data []byte, off int64) int {
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n,", data[off]) >= 0 {
		off++
	}
	line, _ := position(data, off)
	return line
}

// position converts a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	before := data[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}
