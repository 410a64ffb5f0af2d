package envelope

import (
	"fmt"
	"strings"
)

// Error is a tool failure as the agent sees it: the "error" object of a
// failure envelope (docs/envelope.md):
//
//	{"category":"validation","code":"E_ARGUMENT","details":{…},
//	 "message":"limit must be in [1, 500], got 0","retryable":false}
//
// Message is operator English, short, and never carries a stack; only
// storage failures (E_STORAGE, COMMIT_UNKNOWN) name the database file, which
// the operator needs. Details is any JSON-able map (nil encodes as {}). Cause, when
// set, is kept for errors.Is/As and for the server-side forensic log; it is
// never sent to the agent.
type Error struct {
	Category  Category
	Code      Code
	Message   string
	Retryable bool
	Details   map[string]any
	Cause     error
}

// Errorf returns an Error with code, the code's category from the catalogue,
// that category's retryable default, and a message formatted like
// fmt.Sprintf. An unknown code gets CategoryInternal.
func Errorf(code Code, format string, args ...any) *Error {
	cat := code.Category()
	return &Error{
		Category:  cat,
		Code:      code,
		Message:   fmt.Sprintf(format, args...),
		Retryable: cat.Retryable(),
	}
}

// Wrap is Errorf with a cause: the cause stays reachable through errors.As
// (the safe-tool wrapper looks for a DatabasePather in it) but its text is
// not part of Message.
func Wrap(cause error, code Code, format string, args ...any) *Error {
	e := Errorf(code, format, args...)
	e.Cause = cause
	return e
}

// WithDetails returns a copy of e whose Details are the union of e's and d's
// (d wins on a shared key).
func (e *Error) WithDetails(d map[string]any) *Error {
	c := *e
	c.Details = make(map[string]any, len(e.Details)+len(d))
	for k, v := range e.Details {
		c.Details[k] = v
	}
	for k, v := range d {
		c.Details[k] = v
	}
	return &c
}

// withRetryable returns a copy of e with Retryable overridden: the
// category default, wrong for one call (only the tests need it today).
func (e *Error) withRetryable(r bool) *Error {
	c := *e
	c.Retryable = r
	return &c
}

// Error returns "CODE: message" (plus ": cause" when there is one), the text
// the server log sees.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Code))
	b.WriteString(": ")
	b.WriteString(e.Message)
	if e.Cause != nil {
		b.WriteString(": ")
		b.WriteString(e.Cause.Error())
	}
	return b.String()
}

// Unwrap returns the cause, if any.
func (e *Error) Unwrap() error { return e.Cause }
