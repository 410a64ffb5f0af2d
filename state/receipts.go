package state

import (
	"context"
	"errors"

	"github.com/cos-dev/cos/eventlog"
)

// Receipts lists the receipts the log keeps (eventlog.ReceiptLister), its
// error through unavailable: what cos migrate copies beside the events.
func (l natsStore) Receipts(ctx context.Context, fn func(eventlog.StoredReceipt) error) error {
	rl, ok := l.Log.(eventlog.ReceiptLister)
	if !ok {
		return errors.ErrUnsupported
	}
	return unavailable(rl.Receipts(ctx, fn))
}

var _ eventlog.ReceiptLister = natsStore{}
