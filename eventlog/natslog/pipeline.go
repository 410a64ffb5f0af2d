package natslog

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A round whose requests each write one event does not need an atomic
// batch: each request is one message, atomic by itself. Its messages are
// published back to back without waiting (one round trip for the round),
// each on condition that the stream's last sequence is the one before it
// AND that the last message's id is the previous message of the round
// (Nats-Expected-Last-Msg-Id). The second condition is what makes the
// pipeline safe: if message k is refused and another writer's message
// takes its place, message k+1 — which would otherwise pass the sequence
// check and chain onto an event that does not exist — is refused too. So
// the messages acknowledged are always a prefix of the round.
//
// An atomic batch on an R1 file store stages its messages in a file store
// of its own on the server, fsynced; the pipeline avoids that cost
// (BenchmarkLog_Append) but, on a server that fsyncs every message, pays
// one fsync per message instead: which is faster for a large round is
// measured as the log runs (chooser.go).

// hdrExpLastMsgID is the server's last-message-id condition.
const hdrExpLastMsgID = "Nats-Expected-Last-Msg-Id"

// jsWrongLastMsgID is the JetStream error of a failed last-message-id
// condition.
const jsWrongLastMsgID = 10070

// usePipeline switches the pipelined path on; tests and benchmarks
// compare it with atomic batches.
var usePipeline = true

// pipelined reports whether the round can go out as a pipeline: the
// stream has one replica and every writing request of the round writes
// one event. On a replicated stream every round is an atomic batch: with
// several handles contending, pipelined conditional publishes left the
// stream leader of nats-server 2.15.2 without acknowledgements (no
// answer, no error) until the handles gave up.
func (l *Log) pipelined(outs []outcome) bool {
	if !usePipeline || l.replicas != 1 {
		return false
	}
	for _, o := range outs {
		if o.writes && o.msgs != 1 {
			return false
		}
	}
	return true
}

// commitPipelined publishes the round's messages as a pipeline (above)
// and delivers the results of the items it settles: every item up to the
// first message not acknowledged, and that one's when its fate is known.
// It returns how many items it settled and the events committed; retry
// when none was settled because the model was behind (the caller catches
// up and decides again).
func (l *Log) commitPipelined(items []item, outs []outcome, d *draft, now time.Time) (int, []eventlog.Event, bool) {
	expected := l.m.head.Seq
	acked, failErr := l.publishPipeline(d.msgs, expected)
	// Apply the acknowledged prefix to the model.
	for i := 0; i < acked; i++ {
		if err := l.m.apply(&d.events[i], d.metas[i]); err != nil {
			l.opts.Logger.Error("eventlog: committed event does not follow the model", "seq", d.events[i].Seq, "err", err)
		}
	}
	if acked > 0 {
		l.m.receipts.prune(now)
		l.publishHead()
		l.stats.batches.Add(1)
		l.stats.events.Add(uint64(acked))
	}
	if acked == 0 {
		if errors.Is(failErr, errStale) {
			return 0, nil, true
		}
		// Unknown, or refused: every answer of the round rests on the
		// first message.
		for _, it := range items {
			it.p.Results[it.index] = eventlog.Result{Err: failErr}
		}
		return len(items), nil, false
	}
	// The first message passed the expected-sequence check, so the model
	// was current: settle every item whose decision rests only on what
	// committed.
	n := 0
	for ; n < len(items); n++ {
		o := outs[n]
		if o.writes && o.msg >= acked {
			break
		}
		items[n].p.Results[items[n].index] = eventlog.Result{Receipt: o.receipt, Err: o.err}
	}
	l.stats.requests.Add(uint64(acked))
	committed := d.events[:acked:acked]
	if n == len(items) {
		return n, committed, false
	}
	switch {
	case errors.Is(failErr, errStale):
		if n == 0 {
			return 0, nil, true
		}
		// Another writer came between: the rest is decided again in the
		// next round, after this handle has read what it wrote.
		if err := l.catchUp(); err != nil && !errors.Is(err, eventlog.ErrIntegrity) {
			l.opts.Logger.Warn("eventlog: catch-up after a lost pipeline round failed", "err", err)
		}
		return n, committed, false
	case errors.Is(failErr, eventlog.ErrCommitUnknown):
		// Whether the first unacknowledged message committed is unknown,
		// and every later decision rests on it.
		for i := n; i < len(items); i++ {
			items[i].p.Results[items[i].index] = eventlog.Result{Err: failErr}
		}
		return len(items), committed, false
	default:
		// The server refused the message: nothing from it on committed.
		// The refused request gets the error; the later ones are decided
		// again in the next round.
		items[n].p.Results[items[n].index] = eventlog.Result{Err: failErr}
		return n + 1, committed, false
	}
}

// publishPipeline publishes msgs back to back under the conditions above
// and waits for their acknowledgements. It returns how many messages (a
// prefix) committed and, when not all did, the error of the first that did
// not: errStale, an *eventlog.CommitUnknownError, or an
// *eventlog.StorageError when the server refused it.
func (l *Log) publishPipeline(msgs []*nats.Msg, expected uint64) (int, error) {
	futs := make([]jetstream.PubAckFuture, 0, len(msgs))
	var sendErr error
	for i, m := range msgs {
		m.Header.Set(hdrExpLastSeq, strconv.FormatUint(expected+uint64(i), 10))
		if i > 0 {
			m.Header.Set(hdrExpLastMsgID, msgs[i-1].Header.Get(hdrMsgID))
		}
		f, err := l.js.PublishMsgAsync(m)
		if err != nil {
			sendErr = err // not sent, and so neither is anything after it
			break
		}
		futs = append(futs, f)
	}
	timeout := time.NewTimer(l.opts.PublishTimeout + time.Second)
	defer timeout.Stop()
	acked := 0
	errs := make([]error, len(futs))
wait:
	for i, f := range futs {
		select {
		case ack := <-f.Ok():
			if want := expected + uint64(i) + 1; ack.Sequence != want || ack.Duplicate {
				errs[i] = &eventlog.CommitUnknownError{Err: &eventlog.StorageError{Op: "append", Path: l.where, Err: fmt.Errorf("acknowledged at seq %d (duplicate %t), expected %d", ack.Sequence, ack.Duplicate, want)}}
				continue
			}
			// An acknowledged message implies every message before it
			// committed (its conditions name them).
			acked = i + 1
		case err := <-f.Err():
			errs[i] = l.classifyAsync(err)
		case <-timeout.C:
			for j := i; j < len(errs); j++ {
				errs[j] = &eventlog.CommitUnknownError{Err: &eventlog.StorageError{Op: "append", Path: l.where, Err: errors.New("no acknowledgement in time")}}
			}
			break wait
		}
	}
	switch {
	case acked == len(msgs):
		return acked, nil
	case acked < len(errs) && errs[acked] != nil:
		return acked, errs[acked]
	case acked < len(errs):
		return acked, &eventlog.CommitUnknownError{Err: &eventlog.StorageError{Op: "append", Path: l.where, Err: errors.New("no acknowledgement")}}
	default: // acked == len(futs) < len(msgs): the rest was never sent
		return acked, &eventlog.StorageError{Op: "append", Path: l.where, Err: sendErr}
	}
}

// classifyAsync maps the error of one pipelined publish.
func (l *Log) classifyAsync(err error) error {
	var apiErr *jetstream.APIError
	switch {
	case errors.As(err, &apiErr):
		switch int(apiErr.ErrorCode) {
		case jsWrongLastSeq, jsWrongLastSeqConst, jsWrongLastMsgID:
			return &staleError{code: int(apiErr.ErrorCode), desc: apiErr.Description}
		}
		return &eventlog.StorageError{Op: "append", Path: l.where, Err: fmt.Errorf("server refused the event: %s (JetStream error %d)", apiErr.Description, apiErr.ErrorCode)}
	case errors.Is(err, jetstream.ErrNoStreamResponse), errors.Is(err, nats.ErrNoResponders):
		return &eventlog.StorageError{Op: "append", Path: l.where, Err: err}
	}
	return &eventlog.CommitUnknownError{Err: &eventlog.StorageError{Op: "append", Path: l.where, Err: err}}
}
