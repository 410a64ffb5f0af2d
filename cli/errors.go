package cli

import (
	"github.com/cos-dev/cos/tools"
)

// failure turns an error of the log or a tool into exit 1 with "CODE:
// message" for stderr.
func failure(err error) error {
	e := tools.ToEnvelopeError(err)
	return &exitError{code: ExitError, err: e.WithCause(nil)}
}
