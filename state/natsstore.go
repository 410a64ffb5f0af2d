package state

import (
	"context"
	"errors"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/store"
)

// natsStore is the log in a NATS store as the state folder uses it: a
// *natslog.Log whose failures for want of an answer from the servers
// (store.ErrUnavailable: none reachable, the connection down, no stream
// leader in time) are E_UNAVAILABLE — retryable, nothing written — rather
// than the E_STORAGE of a storage that failed. A write whose outcome is
// unknown stays eventlog.ErrCommitUnknown. A write refused because the
// chain is broken is E_INTEGRITY with the way back a stream has
// (natsIntegrity).
type natsStore struct {
	eventlog.Log
	// follow is the same log (*natslog.Log pushes its new events).
	follow storeFollower
}

// newNATSStore wraps the log store.Open returned for a NATS store.
func newNATSStore(l eventlog.Log) natsStore {
	f, _ := l.(storeFollower)
	return natsStore{Log: l, follow: f}
}

// unavailable returns err as an E_UNAVAILABLE *envelope.Error (its cause
// kept for errors.Is and errors.As) when the NATS servers did not answer,
// and err unchanged otherwise.
func unavailable(err error) error {
	if err == nil || !errors.Is(err, store.ErrUnavailable) || errors.Is(err, eventlog.ErrCommitUnknown) {
		return err
	}
	var envErr *envelope.Error
	if errors.As(err, &envErr) {
		return err
	}
	return envelope.Wrap(err, envelope.CodeUnavailable,
		"%v; nothing was written: check that the NATS servers run and are reachable, then retry", err)
}

// NATSIntegrityRecovery is the way back from a broken chain in a NATS
// store, for messages: the stream refuses deletes, so the events before
// the bad message go into a new stream.
const NATSIntegrityRecovery = "A stream refuses deletes, so the bad message stays: `cos verify --salvage NEW_FILE` writes " +
	"the events before it to a new log file, and `cos --store NEW_FILE migrate --to nats://HOST:PORT/NEW_STREAM` copies " +
	"them into a new stream; then point every cos at that stream"

// natsIntegrity returns an *eventlog.IntegrityError as an E_INTEGRITY
// *envelope.Error (details.seq, the cause kept) whose advice is
// NATSIntegrityRecovery, and any other error unchanged.
func natsIntegrity(err error) error {
	var (
		ie     *eventlog.IntegrityError
		envErr *envelope.Error
	)
	if err == nil || !errors.As(err, &ie) || errors.As(err, &envErr) {
		return err
	}
	return envelope.Wrap(err, envelope.CodeIntegrity, "%s; writes are refused and reads answer from the state before seq %d. %s",
		ie.Error(), ie.Seq, NATSIntegrityRecovery).WithDetails(map[string]any{"seq": ie.Seq})
}

// Append is natslog.Log's, each request's error through unavailable and
// natsIntegrity.
func (l natsStore) Append(ctx context.Context, reqs ...eventlog.AppendRequest) ([]eventlog.Result, error) {
	res, err := l.Log.Append(ctx, reqs...)
	for i := range res {
		res[i].Err = natsIntegrity(unavailable(res[i].Err))
	}
	return res, natsIntegrity(unavailable(err))
}

// Read is natslog.Log's, its error through unavailable and natsIntegrity
// (a damaged stream's way back is not `cos restore`, which refuses
// streams).
func (l natsStore) Read(ctx context.Context, fromSeq uint64, fn func(eventlog.Event) error) error {
	return natsIntegrity(unavailable(l.Log.Read(ctx, fromSeq, fn)))
}

// Head is natslog.Log's, its error through unavailable and natsIntegrity.
func (l natsStore) Head(ctx context.Context) (eventlog.Head, error) {
	h, err := l.Log.Head(ctx)
	return h, natsIntegrity(unavailable(err))
}

// LookupReceipt is natslog.Log's, its error through unavailable.
func (l natsStore) LookupReceipt(ctx context.Context, requestID string) (eventlog.Receipt, bool, error) {
	r, ok, err := l.Log.LookupReceipt(ctx, requestID)
	return r, ok, unavailable(err)
}

// Verify is natslog.Log's, its error through unavailable.
func (l natsStore) Verify(ctx context.Context) (uint64, error) {
	n, err := l.Log.Verify(ctx)
	return n, unavailable(err)
}

// Follow is natslog.Log's, its error through unavailable.
func (l natsStore) Follow(ctx context.Context, fromSeq uint64, fn func(eventlog.Event) error) error {
	if l.follow == nil {
		return errors.ErrUnsupported
	}
	return unavailable(l.follow.Follow(ctx, fromSeq, fn))
}

// Durability is the stream's replica count and warning (natslog's).
func (l natsStore) Durability() store.Durability {
	d, _ := store.DurabilityOf(l.Log)
	return d
}

// IntendSingleReplica records that the stream's one replica is intended
// (natslog's), its error through unavailable.
func (l natsStore) IntendSingleReplica(ctx context.Context) error {
	ir, ok := l.Log.(interface{ IntendSingleReplica(context.Context) error })
	if !ok {
		return errors.ErrUnsupported
	}
	return unavailable(ir.IntendSingleReplica(ctx))
}
