package tasks

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. The tools layer maps them to envelope codes
// (docs/errors.md): ErrInvalidArgument → E_ARGUMENT, ErrCursor → E_CURSOR,
// ErrStaleCursor → STALE_CURSOR, ErrNotFound → E_NOT_FOUND, ErrCycle →
// E_ARGUMENT (or, for a dependency change that lost the race to another
// and would now close a cycle, STALE_REVISION naming the cycle), ErrClaimed
// → E_CLAIMED (category conflict) naming the holder.
var (
	// ErrInvalidArgument is returned (inside an *ArgumentError) when a
	// create, patch, filter, limit or TaskSignals argument has the wrong
	// shape or value.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrCursor is returned when a board cursor is malformed: not base64,
	// truncated, of an unknown version or failing its checksum (E_CURSOR).
	ErrCursor = errors.New("invalid board cursor")
	// ErrStaleCursor is returned when a well-formed board cursor no longer
	// describes the board: it belongs to another filter, to a later log
	// position, or a task of its listing changed after it was issued (see
	// List; STALE_CURSOR).
	ErrStaleCursor = errors.New("the board changed since this cursor; list again without cursor")
	// ErrNotFound is returned when a task id (the task itself, a
	// depends_on entry or the parent) is not on the board.
	ErrNotFound = errors.New("task not found")
	// ErrCycle is returned (inside a *CycleError) when depends_on or parent
	// would close a cycle.
	ErrCycle = errors.New("dependency cycle")
	// ErrClaimed is returned (inside a *ClaimedError) when a task is held by
	// another assignee: a claim or release by someone else, or an update
	// by someone else that changes its status without force.
	ErrClaimed = errors.New("task is claimed by another assignee")
)

// FieldError says what is wrong with one argument field: the field, what
// arrived, what is legal, and a corrected example (docs/envelope.md,
// validation messages).
type FieldError struct {
	// Field is the argument path: "title", "signals.complexity", "limit".
	Field string `json:"field"`
	// Got is what arrived, rendered as JSON ("\"complex\"", "[\"a\"]");
	// empty when the field is missing.
	Got string `json:"got,omitempty"`
	// Legal describes the legal values or shape.
	Legal string `json:"legal"`
	// Hint is an optional "did you mean" or explanation.
	Hint string `json:"hint,omitempty"`
	// Example is a corrected minimal call, as JSON.
	Example string `json:"example,omitempty"`
}

// Error renders the four parts on one line.
func (e *FieldError) Error() string {
	var b strings.Builder
	e.render(&b)
	if e.Example != "" {
		fmt.Fprintf(&b, "; corrected example: %s", e.Example)
	}
	return b.String()
}

func (e *FieldError) render(b *strings.Builder) {
	b.WriteString(e.Field)
	if e.Got == "" {
		b.WriteString(": missing")
	} else {
		fmt.Fprintf(b, ": got %s", e.Got)
	}
	fmt.Fprintf(b, "; legal: %s", e.Legal)
	if e.Hint != "" {
		fmt.Fprintf(b, "; %s", e.Hint)
	}
}

// Unwrap makes errors.Is(err, ErrInvalidArgument) true.
func (e *FieldError) Unwrap() error { return ErrInvalidArgument }

// ArgumentError collects every FieldError of one call, so that a caller
// learns all its mistakes at once.
type ArgumentError struct {
	Fields []*FieldError `json:"fields"`
}

// Error lists each field's problem and, once, the corrected example of the
// first field that carries one.
func (e *ArgumentError) Error() string {
	var b strings.Builder
	if len(e.Fields) == 1 {
		return e.Fields[0].Error()
	}
	fmt.Fprintf(&b, "%d invalid arguments: ", len(e.Fields))
	example := ""
	for i, f := range e.Fields {
		if i > 0 {
			b.WriteString(" | ")
		}
		f.render(&b)
		if example == "" {
			example = f.Example
		}
	}
	if example != "" {
		fmt.Fprintf(&b, "; corrected example: %s", example)
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrInvalidArgument) true.
func (e *ArgumentError) Unwrap() error { return ErrInvalidArgument }

// asError returns nil for no problems, else an *ArgumentError.
func asError(fields []*FieldError) error {
	if len(fields) == 0 {
		return nil
	}
	return &ArgumentError{Fields: fields}
}

// CycleError names the cycle a depends_on or parent change would close.
type CycleError struct {
	// Relation is "depends_on" or "parent".
	Relation string
	// Cycle is the path of task ids, first == last: [A, B, C, A].
	Cycle []string
}

func (e *CycleError) Error() string {
	return fmt.Sprintf("%s would create a cycle: %s", e.Relation, strings.Join(e.Cycle, " → "))
}

// Unwrap makes errors.Is(err, ErrCycle) true.
func (e *CycleError) Unwrap() error { return ErrCycle }

// NotFoundError names the missing task and the argument that named it.
type NotFoundError struct {
	Field  string // "task_id", "depends_on", "parent"
	TaskID string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("%s: no task %s on the board", e.Field, e.TaskID)
}

// Unwrap makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// ClaimedError names the holder of a task another assignee tried to claim.
type ClaimedError struct {
	TaskID   string
	Holder   string
	Revision uint64
	Hash     string
}

func (e *ClaimedError) Error() string {
	return fmt.Sprintf("%s is claimed by %q (revision %d)", e.TaskID, e.Holder, e.Revision)
}

// Unwrap makes errors.Is(err, ErrClaimed) true.
func (e *ClaimedError) Unwrap() error { return ErrClaimed }
