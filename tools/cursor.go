package tools

import (
	"errors"
	"strings"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/internal/pagecursor"
	"github.com/cos-dev/cos/projections/tasks"
)

// decodeCursor reads a page cursor a caller sent back; one that does not
// decode is E_CURSOR saying why.
func decodeCursor(cursor string) (pagecursor.Cursor, error) {
	cur, err := pagecursor.Decode(cursor)
	if err != nil {
		reason := err.Error()
		var me *pagecursor.MalformedError
		if errors.As(err, &me) {
			reason = me.Reason
		}
		return cur, envelope.Wrap(err, envelope.CodeCursor,
			"Invalid cursor (%s); ask again without cursor to get a fresh one", reason).
			WithDetails(map[string]any{"field": "cursor", "reason": reason})
	}
	return cur, nil
}

// staleCursor is STALE_CURSOR for a cursor that decodes but no longer
// describes the answer, saying why.
func staleCursor(reason string) error {
	return envelope.Errorf(envelope.CodeStaleCursor,
		"This cursor no longer describes the answer (%s); ask again without cursor", reason).
		WithDetails(map[string]any{"field": "cursor", "reason": reason})
}

// errCursorMoved marks a STALE_CURSOR whose only fault is that the data
// changed after the cursor's log seq: the Runner then serves the page from
// the state at that seq (servePastPage).
var errCursorMoved = errors.New("the data changed after the cursor's log seq")

// movedCursor is staleCursor for a cursor the data moved under since its
// seq, which a read at that seq can still serve.
func movedCursor(reason string) error {
	return envelope.Wrap(errCursorMoved, envelope.CodeStaleCursor,
		"This cursor no longer describes the answer (%s); ask again without cursor", reason).
		WithDetails(map[string]any{"field": "cursor", "reason": reason})
}

// cursorMoved reports whether err is a stale cursor that a read at the
// cursor's seq would serve: movedCursor, or a board cursor under which a
// task changed.
func cursorMoved(err error) bool {
	var st *tasks.StaleCursorError
	return errors.Is(err, errCursorMoved) || (errors.As(err, &st) && st.TaskID != "")
}

// cursorSeq returns the log seq a call's cursor argument reads at (its
// walk's first page), false when the tool takes no cursor or the argument
// is empty or malformed (the handler says why). A board cursor of an
// `overlapping` listing carries a prefix; its bytes are the same.
func cursorSeq(t *Tool, args *Args) (uint64, bool) {
	if _, ok := t.param("cursor"); !ok {
		return 0, false
	}
	s := args.Str("cursor")
	if s == "" {
		return 0, false
	}
	cur, err := pagecursor.Decode(strings.TrimPrefix(s, overlapCursorPrefix))
	if err != nil {
		return 0, false
	}
	return cur.Seq, true
}
