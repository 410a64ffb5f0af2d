package natslog

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/cos-dev/cos/eventlog"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrUnavailable is wrapped by the *eventlog.StorageError of a call that
// failed because the store's NATS servers did not answer: none could be
// dialled, the connection was down, or JetStream did not answer in time
// (no stream leader during an election, no quorum). Such a call wrote
// nothing — a write whose outcome is unknown is eventlog.ErrCommitUnknown
// instead — and the same call may succeed once the servers answer again.
var ErrUnavailable = errors.New("the NATS servers of the store did not answer")

// jsClusterNotAvail is JetStream's "JetStream system temporarily
// unavailable" (no meta leader or no quorum).
const jsClusterNotAvail = 10008

// jsSubjectOverlap is JetStream's "subjects overlap with an existing
// stream".
const jsSubjectOverlap = 10065

// unreachable reports whether err says the servers did not answer, rather
// than that they refused something.
func unreachable(err error) bool {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode == jsClusterNotAvail
	}
	// A connect or read that timed out: the address answered nothing a
	// NATS server would (a silent or wrong port, a host that drops packets).
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return true
	}
	for _, target := range []error{
		nats.ErrNoServers, nats.ErrTimeout, nats.ErrNoResponders, nats.ErrConnectionClosed,
		nats.ErrDisconnected, nats.ErrConnectionReconnecting, nats.ErrStaleConnection,
		jetstream.ErrNoStreamResponse, jetstream.ErrNoHeartbeat, context.DeadlineExceeded,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// storeError is the *eventlog.StorageError of op failing with err; when
// the servers did not answer, its Err wraps ErrUnavailable as well.
func storeError(op, where string, err error) *eventlog.StorageError {
	if unreachable(err) && !errors.Is(err, ErrUnavailable) {
		err = fmt.Errorf("%w (%w)", ErrUnavailable, err)
	}
	return &eventlog.StorageError{Op: op, Path: where, Err: err}
}
