package evidence

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. The tools layer maps ErrInvalidSession, ErrUnknownRole,
// ErrUnknownKind and ErrInvalidOutput to E_ARGUMENT (category validation),
// and ErrNotFound to E_NOT_FOUND.
var (
	// ErrInvalidSession is returned when a session id is empty, longer than
	// MaxSessionLen, or holds a character unsafe in a file name.
	ErrInvalidSession = errors.New("invalid session id")
	// ErrUnknownRole is returned when an output names a role the registry
	// does not hold.
	ErrUnknownRole = errors.New("unknown role")
	// ErrUnknownKind is returned when a record's kind is not one of Kinds.
	ErrUnknownKind = errors.New("unknown record kind")
	// ErrInvalidOutput is returned (inside an *OutputError) when an output
	// does not satisfy its output class.
	ErrInvalidOutput = errors.New("output does not match its output class")
	// ErrRegistry is returned when roles.json cannot be read or names an
	// output class that does not exist.
	ErrRegistry = errors.New("invalid role registry")
	// ErrNotFound is returned when a session has no bundle.
	ErrNotFound = errors.New("no evidence bundle for this session")
)

// Problem is one thing wrong with an output: the field, what arrived, what
// is legal.
type Problem struct {
	Field string `json:"field"`
	Got   string `json:"got,omitempty"` // JSON; empty when missing
	Legal string `json:"legal"`
	Hint  string `json:"hint,omitempty"`
}

func (p Problem) String() string {
	got := "missing"
	if p.Got != "" {
		got = "got " + p.Got
	}
	s := fmt.Sprintf("%s: %s; legal: %s", p.Field, got, p.Legal)
	if p.Hint != "" {
		s += "; " + p.Hint
	}
	return s
}

// OutputError lists every problem of one output against its class, with a
// corrected example.
type OutputError struct {
	Kind     string    `json:"kind"`
	Role     string    `json:"role,omitempty"`
	Class    string    `json:"output_class"`
	Problems []Problem `json:"problems"`
	Example  string    `json:"example"`
}

func (e *OutputError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	who := e.Kind
	if e.Role != "" {
		who = fmt.Sprintf("role %q", e.Role)
	}
	return fmt.Sprintf("output for %s (output_class %s): %s; corrected example: %s", who, e.Class, strings.Join(parts, " | "), e.Example)
}

// Unwrap makes errors.Is(err, ErrInvalidOutput) true.
func (e *OutputError) Unwrap() error { return ErrInvalidOutput }
