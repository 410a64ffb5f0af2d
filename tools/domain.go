package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/state"
)

// requestIDExample is the corrected example of an E_REQUEST_ID message.
const requestIDExample = `{"request_id": "task-create-7f3a"}`

// requestIDParam is the optional request_id argument of every write tool of
// the tasks, evidence and metrics modules (docs/errors.md, request ids); the
// graph write tools declare their own.
// Its meaning is in the server's instructions, said once for every write.
var requestIDParam = Param{Name: "request_id", Type: TString}

// requestIDOfCall returns the call's request_id ("" when none was sent). An
// explicitly sent id that eventlog.ValidateRequestID refuses — empty, only
// whitespace, longer than 128 characters, with control characters — is
// E_REQUEST_ID (a request_id, when sent, must be nonempty): leaving the
// argument out is how a caller asks for no idempotency. Every write tool
// that takes a request_id validates it here, so the code is always the same.
func requestIDOfCall(c *Call) (string, error) {
	if !c.Args.Has("request_id") {
		return "", nil
	}
	id := c.Args.Str("request_id")
	if err := eventlog.ValidateRequestID(id); err != nil {
		got := fmt.Sprintf("%q", id)
		if n := utf8.RuneCountInString(id); n > eventlog.MaxRequestIDLen {
			got = fmt.Sprintf("a string of %d characters", n)
		}
		return "", envelope.Wrap(err, envelope.CodeRequestID,
			"Nonempty request_id required: request_id: got %s, expected 1–%d characters without control characters, "+
				"or leave request_id out; example: %s", got, eventlog.MaxRequestIDLen, requestIDExample).
			WithDetails(map[string]any{"field": "request_id", "got": got, "example": json.RawMessage(requestIDExample)})
	}
	return id, nil
}

// freshView brings the projections up to the log head and runs fn inside a
// view of them, recording the view's position as the answer's log_seq.
// Write tools use it for the reads that precede their append.
func freshView(ctx context.Context, c *Call, fn func()) error {
	return c.st.ReadStrict(ctx, func(v state.View) {
		c.V = v
		fn()
	})
}
