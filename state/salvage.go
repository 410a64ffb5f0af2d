package state

import (
	"context"

	"github.com/cos-dev/cos/eventlog/store"
)

// Salvage writes to dest (a new bbolt file; store.ErrDestExists when it
// exists) every event of the log at st that still verifies and reports
// exactly which seqs were lost (store.Salvage: a file's events
// re-sequenced, a stream's up to its first bad message). The log is only
// read. With a NATS store, a failure for want of an answer from the
// servers is E_UNAVAILABLE, as from OpenLog. Errors: store.ErrDestExists,
// the log's errors, ctx's error.
func Salvage(ctx context.Context, st Store, dest string) (store.SalvageReport, error) {
	rep, err := store.Salvage(ctx, st, dest)
	return rep, unavailable(err)
}
