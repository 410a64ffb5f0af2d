package bus

import "errors"

var (
	// ErrClosed is returned when a Bus is used after Close.
	ErrClosed = errors.New("bus: closed")

	// ErrInvalidOptions is returned by Options.Validate and Open when an
	// option is out of range; the wrapped message names the field.
	ErrInvalidOptions = errors.New("bus: invalid options")

	// ErrUnavailable is returned by Open when no connection to a NATS server
	// could be made (or, in auto mode, no server started) within
	// Options.ConnectTimeout or before ctx ended.
	ErrUnavailable = errors.New("bus: nats unavailable")

	// ErrInvalidSubject is returned by Publish when an event type cannot be
	// part of a NATS subject (empty, an empty token, a space or a wildcard),
	// and by Subscribe for a malformed subject.
	ErrInvalidSubject = errors.New("bus: invalid subject")

	// ErrServerStart is returned (wrapped) when the embedded nats-server
	// could not listen on the requested address. The process keeps running.
	ErrServerStart = errors.New("bus: embedded server did not start")
)
