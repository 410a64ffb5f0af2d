package projections

import "errors"

// Sentinel errors of the package. Errors returned by Graph.Apply, the Tailer
// and the snapshot functions match one of these with errors.Is, or are
// context or I/O errors wrapped with what was being done.
var (
	// ErrInvalidEvent is returned (wrapped, naming the field) by a
	// projection's Apply when an event's payload cannot be decoded or breaks
	// a rule of its type: a malformed uid (graph.ErrMalformedUID is wrapped
	// too), an empty path or extractor, an edge without a type. The state
	// is left exactly as it was.
	ErrInvalidEvent = errors.New("invalid event")
	// ErrBadSnapshot is returned when a snapshot file or section cannot be
	// decoded: wrong magic or version, truncated, checksum mismatch, a
	// missing section, or a seq the log does not have.
	ErrBadSnapshot = errors.New("bad snapshot")
	// ErrNoSnapshot is returned by LoadSnapshot when no usable snapshot
	// exists in the folder.
	ErrNoSnapshot = errors.New("no usable snapshot")
	// ErrSeqGap is returned when the log yields an event whose seq is not
	// the one after the tailer's position (the log broke its gapless
	// promise, or a Source was mis-wired).
	ErrSeqGap = errors.New("seq gap in the log")
	// ErrClosed is returned by calls on a closed Tailer.
	ErrClosed = errors.New("tailer closed")
)
