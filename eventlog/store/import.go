package store

import (
	"context"
	"os"
	"path/filepath"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/boltlog"
	"github.com/cos-dev/cos/eventlog/natslog"
)

// ImportSource is what Import copies: every eventlog.Log is one.
type ImportSource = boltlog.ImportSource

// Import copies every event src reads, verbatim (the same seqs, ids,
// times, actors, request ids and hashes), into target: an empty JetStream
// stream (natslog.Import; ErrNotEmpty otherwise) or a new bbolt file
// (boltlog.Import; ErrDestExists when it exists; its folder is created
// when missing). Each event is checked against its predecessor on the
// way. It returns the target's head after the copy — on an error, what
// was copied so far. progress, when non-nil, is called with the number of
// events copied now and then. The receipts of request ids src keeps are
// copied with it, each checked against its events, so a retry of a
// request made before the copy replays on the target.
func Import(ctx context.Context, target Address, src ImportSource, progress func(copied uint64)) (eventlog.Head, error) {
	if target.IsNATS() {
		return natslog.Import(ctx, target.URLs, natslog.Options{Stream: target.Stream, Replicas: target.Replicas()}, src, progress)
	}
	if err := os.MkdirAll(filepath.Dir(target.Path), 0o755); err != nil {
		return eventlog.Head{Hash: eventlog.ZeroHash}, &eventlog.StorageError{Op: "create folder", Path: filepath.Dir(target.Path), Err: err}
	}
	return boltlog.Import(ctx, target.Path, src, progress)
}
