package natslog

import (
	"errors"
	"fmt"

	"github.com/cos-dev/cos/eventlog"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrNoStream is returned by Open when the stream does not exist and
// Options.Create is not set, and by the calls of a handle whose stream was
// deleted after it opened. Cos never creates a log as a side effect: a
// missing stream may be one that was deleted or whose cluster was rebuilt
// with empty disks, and an empty log in its place would hand out the
// names and seqs of the lost events again. Create the stream explicitly
// (Options.Create; `cos log init`) when a new log is meant.
var ErrNoStream = errors.New("the log's stream does not exist")

// noStream is the *eventlog.StorageError of the missing stream name at
// where: its Err (a *missingStreamError, errors.Is ErrNoStream) says what
// to do, and is the innermost error, so messages that show only the root
// cause still say it.
func noStream(where, name string) error {
	return &eventlog.StorageError{Op: "open stream", Path: where, Err: &missingStreamError{name: name}}
}

// missingStreamError is a missing stream, in words.
type missingStreamError struct{ name string }

func (e *missingStreamError) Error() string {
	return fmt.Sprintf("%s: JetStream stream %q is missing. If this is a new log, create it once with `cos log init` "+
		"(or `cos migrate --to` to copy a log into it); if it held events, it was deleted or its servers "+
		"lost their data: restore it (a copy of the log, `cos migrate`) rather than start an empty one", ErrNoStream, e.name)
}

// Is makes the error ErrNoStream for errors.Is.
func (e *missingStreamError) Is(target error) bool { return target == ErrNoStream }

// streamGone reports whether err says the stream no longer exists.
func streamGone(err error) bool { return errors.Is(err, jetstream.ErrStreamNotFound) }
