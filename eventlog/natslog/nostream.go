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

// noStream is the *eventlog.StorageError wrapping ErrNoStream for the
// stream name at where.
func noStream(where, name string) error {
	return &eventlog.StorageError{Op: "open stream", Path: where, Err: fmt.Errorf(
		"%w: JetStream stream %q is missing. If this is a new log, create it once with `cos log init` "+
			"(or `cos migrate --to` to copy a log into it); if it held events, it was deleted or its servers "+
			"lost their data: restore it (a copy of the log, `cos migrate`) rather than start an empty one", ErrNoStream, name)}
}

// streamGone reports whether err says the stream no longer exists.
func streamGone(err error) bool { return errors.Is(err, jetstream.ErrStreamNotFound) }
