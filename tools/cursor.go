package tools

import (
	"errors"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/internal/pagecursor"
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
