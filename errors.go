package foley

import (
	"errors"
	"fmt"
)

// ErrorCode classifies an error for the edges of the program: the CLI maps
// it to an exit status and the HTTP server to a status code.
type ErrorCode string

// The error codes.
const (
	Invalid     ErrorCode = "invalid"     // bad input: a file, a flag, a field
	NotFound    ErrorCode = "not_found"   // no such sound, file or id
	Unavailable ErrorCode = "unavailable" // a service (model, store) cannot be reached
	Unlicensed  ErrorCode = "unlicensed"  // a clip was used before or against the licence gate
	Internal    ErrorCode = "internal"    // a bug or an unexpected failure
)

// Error is a domain error: a code for the edges and a message for people.
type Error struct {
	Code    ErrorCode
	Message string // the whole message; when empty, the cause's message
	Err     error  // the cause, if any, for errors.Is and errors.As
}

func (e *Error) Error() string {
	if e.Message == "" && e.Err != nil {
		return e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf makes an *Error with a formatted message. A %w verb wraps its
// operand as the cause, as with fmt.Errorf.
func Errorf(code ErrorCode, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Code: code, Message: err.Error(), Err: errors.Unwrap(err)}
}

// WrapError gives err a code, keeping its message. A nil err stays nil.
func WrapError(code ErrorCode, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Err: err}
}

// CodeOf returns the code of the outermost *Error in err's chain, Internal
// for any other non-nil error and "" for nil.
func CodeOf(err error) ErrorCode {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) && e.Code != "" {
		return e.Code
	}
	var pe *PartialError
	if errors.As(err, &pe) {
		return Invalid
	}
	return Internal
}
