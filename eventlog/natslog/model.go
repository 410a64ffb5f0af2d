package natslog

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cos-dev/cos/eventlog"
)

// streamState is what the model knows of one cos stream.
type streamState struct {
	revision uint64
	lastSeq  uint64 // stream sequence of its last event
	hash     string // hash of its last event
}

// model is a handle's picture of the log up to head: every cos stream's
// revision, the allocation counters, the receipts of the window. It is
// built by reading the stream in order and verifying each link of the hash
// chain; Append decides against it and the server's expected-sequence
// checks make sure it was the whole log. Not safe for concurrent use (the
// Log's model lock guards it).
type model struct {
	head     eventlog.Head
	streams  map[string]streamState
	counters map[string]uint64
	receipts receiptIndex
	// broken is the *eventlog.IntegrityError of the first message that
	// did not verify; the model stops there and writes are refused.
	broken error
	// logf receives diagnostics (Options.Logger's Warn).
	logf func(msg string, args ...any)
}

func newModel(o Options) *model {
	m := &model{
		head:     eventlog.Head{Hash: eventlog.ZeroHash},
		streams:  map[string]streamState{},
		counters: map[string]uint64{},
		receipts: newReceiptIndex(o.ReceiptWindow, o.ReceiptMaxCount),
		logf:     func(string, ...any) {},
	}
	if o.Logger != nil {
		m.logf = o.Logger.Warn
	}
	return m
}

// apply adds the event at the next seq, checking its link of the chain.
func (m *model) apply(ev *eventlog.Event, meta recordMeta) error {
	if m.broken != nil {
		return m.broken
	}
	if err := eventlog.VerifyEvent(ev, m.head.Seq+1, m.head.Hash); err != nil {
		m.broken = err
		return err
	}
	cur := m.streams[ev.Stream]
	if ev.Revision != cur.revision+1 {
		m.broken = &eventlog.IntegrityError{Seq: ev.Seq, Reason: fmt.Sprintf("revision %d of stream %q follows revision %d", ev.Revision, ev.Stream, cur.revision)}
		return m.broken
	}
	m.streams[ev.Stream] = streamState{revision: ev.Revision, lastSeq: ev.Seq, hash: ev.Hash}
	m.head = eventlog.Head{Seq: ev.Seq, Hash: ev.Hash}
	if meta.prefix != "" {
		if n, ok := counterOf(ev.Stream, meta.prefix); ok && n > m.counters[meta.prefix] {
			m.counters[meta.prefix] = n
		}
	}
	m.receipts.observe(ev, meta, cur, m.logf)
	return nil
}

// counterOf returns n when name is prefix followed by the decimal n.
func counterOf(name, prefix string) (uint64, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok || rest == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(rest, 10, 64)
	return n, err == nil
}
