package tasks

import (
	"errors"
	"slices"
	"strings"

	"github.com/cos-dev/cos/internal/pagecursor"
)

// A board cursor is opaque to callers; its bytes are package pagecursor's,
// with the canonical filter's digest as the query and the number of the last
// task id returned (TASK-042 → 42) as the position.

// cursor is the decoded form.
type cursor struct {
	seq    uint64
	filter [8]byte
	after  uint64
}

func (c cursor) encode() string {
	return pagecursor.Cursor{Seq: c.seq, Query: c.filter, After: c.after}.Encode()
}

// decodeCursor returns a *CursorError (errors.Is ErrCursor) for anything
// but a well-formed cursor.
func decodeCursor(s string) (cursor, error) {
	pc, err := pagecursor.Decode(s)
	if err != nil {
		reason := err.Error()
		var me *pagecursor.MalformedError
		if errors.As(err, &me) {
			reason = me.Reason
		}
		return cursor{}, &CursorError{Reason: reason}
	}
	return cursor{seq: pc.Seq, filter: pc.Query, after: pc.After}, nil
}

// digest is the filter's identity inside a cursor.
func (f Filter) digest() [8]byte {
	if len(f.Statuses) == 0 && f.Query == "" {
		return pagecursor.Digest(f.Status, f.Assignee, f.Label)
	}
	st := slices.Clone(f.statuses())
	slices.Sort(st)
	return pagecursor.Digest(strings.Join(st, ","), f.Assignee, f.Label, "q", f.Query)
}

// CursorError says why a cursor is malformed.
type CursorError struct{ Reason string }

func (e *CursorError) Error() string {
	return "invalid board cursor (" + e.Reason + "); obtain a new one by listing without cursor"
}

// Unwrap makes errors.Is(err, ErrCursor) true.
func (e *CursorError) Unwrap() error { return ErrCursor }

// StaleCursorError says why a cursor no longer describes the board.
type StaleCursorError struct {
	Reason string
	// TaskID is the task whose change invalidated the listing, if one did:
	// the listing as of the cursor's seq still exists there (the tools
	// answer such a page from the state at that seq).
	TaskID string
}

func (e *StaleCursorError) Error() string {
	return "the board changed since this cursor (" + e.Reason + "); list again without cursor"
}

// Unwrap makes errors.Is(err, ErrStaleCursor) true.
func (e *StaleCursorError) Unwrap() error { return ErrStaleCursor }
