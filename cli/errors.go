package cli

import (
	"strconv"

	"github.com/cos-dev/cos/tools"
)

// failure turns an error of the log or a tool into exit 1 with "CODE:
// message" for stderr.
func failure(err error) error {
	e := tools.ToEnvelopeError(err)
	return &exitError{code: ExitError, err: e.WithCause(nil)}
}

// events is n with "event" or "events", for messages: "1 event", "3 events".
func events(n uint64) string {
	if n == 1 {
		return "1 event"
	}
	return strconv.FormatUint(n, 10) + " events"
}
