package natslog

import (
	"context"
	"errors"
	"fmt"

	"github.com/cos-dev/cos/eventlog"
	"github.com/nats-io/nats.go"
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

// missingStreamError is a missing stream, in words; deleted when the
// handle had opened it.
type missingStreamError struct {
	name    string
	deleted bool
}

func (e *missingStreamError) Error() string {
	if e.deleted {
		return fmt.Sprintf("%s: JetStream stream %q was deleted after this cos opened it (or its servers lost their data), "+
			"so nothing was written. Put the log back (a copy of it: `cos migrate` from a file or another stream) rather "+
			"than create an empty one, which would hand out the names and seqs of the lost events again", ErrNoStream, e.name)
	}
	return fmt.Sprintf("%s: JetStream stream %q is missing. If this is a new log, create it once with `cos log init` "+
		"(or `cos migrate --to` to copy a log into it); if it held events, it was deleted or its servers "+
		"lost their data: restore it (a copy of the log, `cos migrate`) rather than start an empty one", ErrNoStream, e.name)
}

// Is makes the error ErrNoStream for errors.Is.
func (e *missingStreamError) Is(target error) bool { return target == ErrNoStream }

// explainNoListener replaces, in res, the errors of requests that failed
// because no JetStream stream listens on the log's subjects (an
// *eventlog.StorageError that would read as the servers not answering)
// with ErrNoStream when the stream is indeed gone: a publish on a deleted
// stream's subject finds no responder, which is not the servers being
// down. It asks the servers once per call, only when such an error is
// there.
func (l *Log) explainNoListener(res []eventlog.Result) {
	var gone error
	for i, r := range res {
		if r.Err == nil || !noListener(r.Err) {
			continue
		}
		if gone == nil {
			ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
			_, err := l.js.Stream(ctx, l.opts.Stream)
			cancel()
			if !streamGone(err) {
				return
			}
			gone = &eventlog.StorageError{Op: "append", Path: l.where, Err: &missingStreamError{name: l.opts.Stream, deleted: true}}
		}
		res[i].Err = gone
	}
}

// noListener reports whether err says no JetStream stream answered a
// publish on the log's subjects.
func noListener(err error) bool {
	return !errors.Is(err, eventlog.ErrCommitUnknown) &&
		(errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse))
}

// streamGone reports whether err says the stream no longer exists.
func streamGone(err error) bool { return errors.Is(err, jetstream.ErrStreamNotFound) }
