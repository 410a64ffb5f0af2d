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

// VerifyHashes is natslog.Log's (the chain from the handle's checkpoint),
// its error through unavailable: the start-up chain check (verifyChain).
func (l natsStore) VerifyHashes(ctx context.Context) (uint64, error) {
	h, ok := l.Log.(hashVerifier)
	if !ok {
		return l.Verify(ctx)
	}
	n, err := h.VerifyHashes(ctx)
	return n, unavailable(err)
}

var _ hashVerifier = natsStore{}
