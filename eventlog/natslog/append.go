package natslog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nuid"
	"github.com/oklog/ulid/v2"
)

// maxRounds bounds how often one group commit is decided again because
// another handle wrote first; each lost round means that handle committed.
// After the second lost round the committer waits a random moment of up
// to a few milliseconds before deciding again, so that contending handles
// take turns.
const maxRounds = 1000

// pending is one Append call waiting for the committer.
type pending struct {
	*eventlog.Handoff
	items []item
}

type item struct {
	p     *pending
	index int // into p.Results
	prep  eventlog.Prepared
}

// Append appends each request atomically and independently and returns
// one Result per request, in order (the contract is eventlog.Log's). The
// requests of concurrent calls on one Log are decided together against
// the log as this handle has read it and published as one atomic batch
// per round trip (group commit); a request that fails its checks fails
// alone. A request of more than Options.MaxBatchEvents events, or with an
// event larger than the server's max_payload, is an
// *eventlog.InvalidEventError. When ctx ends after the committer took the
// call, every request of the call reports eventlog.ErrCommitUnknown.
func (l *Log) Append(ctx context.Context, reqs ...eventlog.AppendRequest) ([]eventlog.Result, error) {
	if l.opts.ReadOnly {
		return nil, eventlog.ErrReadOnly
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := &pending{Handoff: eventlog.NewHandoff(len(reqs))}
	for i, r := range reqs {
		prep, err := eventlog.Prepare(r, l.limits)
		if err == nil && len(prep.Events) > l.opts.MaxBatchEvents {
			err = &eventlog.InvalidEventError{Field: "events", Reason: fmt.Sprintf("%d events in one request, at most %d allowed", len(prep.Events), l.opts.MaxBatchEvents)}
		}
		if err != nil {
			p.Results[i].Err = err
			continue
		}
		p.items = append(p.items, item{p: p, index: i, prep: prep})
	}
	if len(p.items) == 0 {
		return p.Results, nil
	}
	p.Hand()
	if err := l.committer.Queue(p); err != nil {
		return nil, err
	}
	res, err := p.Wait(ctx)
	if err == nil {
		l.explainNoListener(res)
		for _, r := range res {
			l.conn.observe(r.Err)
		}
	}
	return res, err
}

// commit commits the calls of batch, in chunks of at most MaxBatchEvents
// events and MaxBatchBytes bytes, and releases their callers.
func (l *Log) commit(batch []*pending) {
	var items []item
	for _, p := range batch {
		items = append(items, p.items...)
	}
	for len(items) > 0 {
		n, committed := l.commitChunk(items)
		items = items[n:]
		if len(committed) > 0 && l.opts.OnCommit != nil {
			l.opts.OnCommit(committed)
		}
	}
	for _, p := range batch {
		p.Settle()
	}
}

// outcome is what a round decided for one item.
type outcome struct {
	receipt eventlog.Receipt
	err     error
	writes  bool
	// msg is the index in draft.msgs of the item's first message and
	// msgs their number (when writes).
	msg, msgs int
}

// draft is one round's decisions layered over the model: what the log
// would be once the round's messages commit.
type draft struct {
	m        *model
	head     eventlog.Head
	streams  map[string]streamState
	counters map[string]uint64
	receipts map[string]*receiptEntry
	msgs     []*nats.Msg
	events   []eventlog.Event
	metas    []recordMeta
	bytes    int
}

func (d *draft) stream(name string) streamState {
	if s, ok := d.streams[name]; ok {
		return s
	}
	return d.m.streams[name]
}

func (d *draft) receipt(id string) (*receiptEntry, bool) {
	if e, ok := d.receipts[id]; ok {
		return e, true
	}
	return d.m.receipts.lookup(id)
}

func (d *draft) counter(prefix string) uint64 {
	if n, ok := d.counters[prefix]; ok {
		return n
	}
	return d.m.counters[prefix]
}

// lostRound follows round number round, lost because another handle
// wrote first (nothing of it was stored): it waits a moment, then reads
// what the other wrote so the round can be decided again. It returns the
// error to answer the round's requests with instead — a
// *eventlog.StorageError after maxRounds lost rounds, or the catch-up's —
// or nil to decide again.
func (l *Log) lostRound(round int) error {
	l.stats.retries.Add(1)
	backoff(round)
	if round >= maxRounds {
		return &eventlog.StorageError{Op: "append", Path: l.where, Err: fmt.Errorf("other writers won %d rounds in a row; nothing was written", round)}
	}
	if err := l.catchUp(); err != nil && !errors.Is(err, eventlog.ErrIntegrity) {
		return err
	}
	return nil
}

// identityCheckEvery is how long the committer publishes on what it last
// read of the stream before it asks the stream again (commitChunk): a
// stream deleted and created again within it is only found at the next
// lost round or check.
const identityCheckEvery = time.Second

// commitChunk decides and publishes a prefix of items as one atomic batch
// and delivers their results; it returns how many items it took and the
// events committed.
func (l *Log) commitChunk(items []item) (int, []eventlog.Event) {
	l.smu.Lock()
	defer l.smu.Unlock()
	confirmed := false
	if time.Since(l.caughtUp) > identityCheckEvery {
		// Idle a while: the stream may have been deleted and created
		// again (same name, maybe as many events), which no expected
		// sequence tells. Ask it first; others' writes are read too.
		if err := l.catchUp(); err != nil && !errors.Is(err, eventlog.ErrIntegrity) {
			for _, it := range items {
				it.p.Results[it.index].Err = err
			}
			return len(items), nil
		}
		confirmed = true
	}
	for round := 1; ; round++ {
		if l.m.broken != nil {
			for _, it := range items {
				it.p.Results[it.index].Err = l.m.broken
			}
			return len(items), nil
		}
		d := &draft{m: l.m, head: l.m.head, streams: map[string]streamState{}, counters: map[string]uint64{}, receipts: map[string]*receiptEntry{}}
		now := l.opts.Now().UTC()
		var outs []outcome
		for i, it := range items {
			if i > 0 && (len(d.events)+len(it.prep.Events) > l.opts.MaxBatchEvents || d.bytes+it.prep.Bytes > l.opts.MaxBatchBytes) {
				break
			}
			outs = append(outs, l.decide(d, it.prep, now))
		}
		n := len(outs)
		deliver := func(err func(outcome) error) {
			for i, it := range items[:n] {
				if e := err(outs[i]); e != nil {
					it.p.Results[it.index] = eventlog.Result{Err: e}
				} else {
					it.p.Results[it.index] = eventlog.Result{Receipt: outs[i].receipt, Err: outs[i].err}
				}
			}
		}
		if len(d.msgs) == 0 {
			// Nothing to write: the answers stand only if the model was
			// the whole log, so confirm that first.
			if !confirmed {
				before := l.m.head.Seq
				if err := l.catchUp(); err != nil && !errors.Is(err, eventlog.ErrIntegrity) {
					deliver(func(outcome) error { return err })
					return n, nil
				}
				confirmed = true
				if l.m.head.Seq != before || l.m.broken != nil {
					continue
				}
			}
			deliver(func(outcome) error { return nil })
			return n, nil
		}
		eligible, way := l.pipelined(outs), wayBatch
		if eligible {
			way = l.chooser.choose(len(d.msgs))
		}
		start := time.Now()
		if way == wayPipeline {
			consumed, committed, retry := l.commitPipelined(items[:n], outs, d, now)
			if !retry {
				l.chooser.observe(wayPipeline, len(d.msgs), len(committed), time.Since(start))
				return consumed, committed
			}
			if lerr := l.lostRound(round); lerr != nil {
				deliver(func(outcome) error { return lerr })
				return n, nil
			}
			confirmed = true
			continue
		}
		err := l.publish(d.msgs, l.m.head.Seq)
		switch {
		case err == nil:
			if eligible {
				l.chooser.observe(wayBatch, len(d.msgs), len(d.events), time.Since(start))
			}
			for i := range d.events {
				if aerr := l.m.apply(&d.events[i], d.metas[i]); aerr != nil {
					l.opts.Logger.Error("eventlog: committed event does not follow the model", "seq", d.events[i].Seq, "err", aerr)
				}
			}
			l.m.receipts.prune(now)
			l.publishHead()
			l.stats.batches.Add(1)
			l.stats.events.Add(uint64(len(d.events)))
			l.stats.requests.Add(uint64(n))
			deliver(func(outcome) error { return nil })
			return n, d.events
		case errors.Is(err, errStale):
			if lerr := l.lostRound(round); lerr != nil {
				deliver(func(outcome) error { return lerr })
				return n, nil
			}
			confirmed = true
		case errors.Is(err, eventlog.ErrCommitUnknown):
			deliver(func(outcome) error { return err })
			return n, nil
		default:
			deliver(func(o outcome) error {
				if o.writes || !confirmed {
					return err
				}
				return nil
			})
			return n, nil
		}
	}
}

// backoff waits a random moment, longer the more rounds were lost.
func backoff(round int) {
	if round < 2 {
		return
	}
	time.Sleep(time.Duration(rand.Int64N(int64(min(round, 20)) * int64(250*time.Microsecond))))
}

// decide decides one request against d, adding its messages to d when it
// writes.
func (l *Log) decide(d *draft, p eventlog.Prepared, now time.Time) outcome {
	req := p.Request
	if req.RequestID != "" {
		if e, ok := d.receipt(req.RequestID); ok {
			rec := e.receipt
			rec.IDs, rec.Hashes = slices.Clone(rec.IDs), slices.Clone(rec.Hashes)
			if e.intent != p.Intent {
				return outcome{err: &eventlog.RequestReuseError{RequestID: req.RequestID, Original: rec}}
			}
			rec.Replayed = true
			return outcome{receipt: rec}
		}
	}
	name, n := req.Stream, uint64(0)
	if name == "" {
		for n = d.counter(req.StreamPrefix) + 1; ; n++ {
			name = fmt.Sprintf("%s%03d", req.StreamPrefix, n)
			if d.stream(name).revision == 0 {
				break
			}
		}
	}
	cur := d.stream(name)
	if (req.Expect.IsSet() && req.Expect.Revision() != cur.revision) || (req.ExpectedHash != "" && req.ExpectedHash != cur.hash) {
		return outcome{err: &eventlog.StaleRevisionError{
			Stream: name, Expected: req.Expect, ExpectedHash: req.ExpectedHash,
			Current: cur.revision, CurrentHash: cur.hash,
		}}
	}
	actor := l.actor
	if req.Client != "" {
		actor.Client = req.Client
	}
	head := d.head
	rec := eventlog.Receipt{Stream: name, FirstSeq: head.Seq + 1, Time: now}
	_, touched := d.streams[name]
	var (
		msgs   []*nats.Msg
		events []eventlog.Event
		metas  []recordMeta
		bytes  int
	)
	for i, pl := range p.Events {
		ev := eventlog.Event{
			Seq: head.Seq + 1, ID: l.newID(now), Time: now, Stream: name,
			Revision: cur.revision + 1, Type: pl.Type, RequestID: req.RequestID,
			Actor: actor, Data: json.RawMessage(pl.Data), PrevHash: head.Hash,
		}
		ev.Hash = eventlog.EventHash(&ev)
		var meta recordMeta
		if i == 0 {
			if req.RequestID != "" {
				meta = recordMeta{hasIntent: true, intent: p.Intent, count: len(p.Events), decided: true}
			}
			if req.Stream == "" {
				meta.prefix = req.StreamPrefix
			}
		}
		m, err := newMessage(l.opts.Stream, &ev, meta)
		if err != nil {
			return outcome{err: &eventlog.InvalidEventError{Field: "data", Reason: err.Error()}}
		}
		if i == 0 && !touched {
			// The server's per-subject check: only on the first message
			// of a subject in a batch.
			m.Header.Set(hdrExpLastSubj, strconv.FormatUint(cur.lastSeq, 10))
		}
		if size := msgSize(m); size+256 > int(l.nc.MaxPayload()) {
			field := "data"
			if len(p.Events) > 1 {
				field = fmt.Sprintf("events[%d].data", i)
			}
			return outcome{err: &eventlog.InvalidEventError{Field: field, Reason: fmt.Sprintf("the event is %d bytes as stored, more than the NATS server accepts (max_payload %d)", size, l.nc.MaxPayload())}}
		}
		bytes += len(m.Data)
		msgs, events, metas = append(msgs, m), append(events, ev), append(metas, meta)
		head = eventlog.Head{Seq: ev.Seq, Hash: ev.Hash}
		cur = streamState{revision: ev.Revision, lastSeq: ev.Seq, hash: ev.Hash}
		rec.IDs = append(rec.IDs, ev.ID)
		rec.Hashes = append(rec.Hashes, ev.Hash)
	}
	rec.LastSeq, rec.Revision = head.Seq, cur.revision
	d.head = head
	d.streams[name] = cur
	if req.Stream == "" {
		d.counters[req.StreamPrefix] = n
	}
	if req.RequestID != "" {
		d.receipts[req.RequestID] = &receiptEntry{intent: p.Intent, receipt: rec}
	}
	first := len(d.msgs)
	d.msgs = append(d.msgs, msgs...)
	d.events = append(d.events, events...)
	d.metas = append(d.metas, metas...)
	d.bytes += bytes
	return outcome{receipt: rec, writes: true, msg: first, msgs: len(msgs)}
}

func msgSize(m *nats.Msg) int {
	n := len(m.Subject) + len(m.Data)
	for k, vs := range m.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

// newID returns a ULID for an event committed at now, monotonic within the
// handle even if the clock steps back. Called under smu.
func (l *Log) newID(now time.Time) string {
	ms := ulid.Timestamp(now)
	if ms < l.lastMS {
		ms = l.lastMS
	}
	l.lastMS = ms
	id, err := ulid.New(ms, l.entropy)
	if err != nil { // entropy overflow within one millisecond: move on one
		l.lastMS++
		id = ulid.MustNew(l.lastMS, l.entropy)
	}
	return id.String()
}

// errStale is publish's answer when the server's expected-sequence check
// failed (JetStream error 10071 or 10164): another handle wrote first and
// nothing of the batch was stored.
var errStale = errors.New("another writer committed first")

// staleError is errStale with the server's error code and description.
type staleError struct {
	code int
	desc string
}

func (e *staleError) Error() string {
	return fmt.Sprintf("%v: %s (JetStream error %d)", errStale, e.desc, e.code)
}
func (e *staleError) Unwrap() error { return errStale }

// pubAck is the server's answer to a publish.
type pubAck struct {
	Error *struct {
		Code        int    `json:"code"`
		ErrCode     int    `json:"err_code"`
		Description string `json:"description"`
	} `json:"error,omitempty"`
	Stream    string `json:"stream"`
	Seq       uint64 `json:"seq"`
	Duplicate bool   `json:"duplicate,omitempty"`
	Count     uint64 `json:"count,omitempty"`
}

// JetStream error codes publish maps.
const (
	jsWrongLastSeq      = 10071 // wrong last sequence: {seq}
	jsWrongLastSeqConst = 10164 // wrong last sequence
	jsAtomicDisabled    = 10174
)

// publish publishes msgs as one atomic batch (one message: a plain
// publish) on condition that the stream's last sequence is expected. It
// returns nil once the server acknowledged every message at the seqs
// expected+1…; errStale when the condition failed; an
// *eventlog.CommitUnknownError when the outcome is unknown; any other
// error (an *eventlog.StorageError) when nothing was stored.
func (l *Log) publish(msgs []*nats.Msg, expected uint64) error {
	ctx, cancel := l.conn.publishContext(l.opts.PublishTimeout)
	defer cancel()
	exp := strconv.FormatUint(expected, 10)
	msgs[0].Header.Set(hdrExpLastSeq, exp)
	last := msgs[len(msgs)-1]
	if len(msgs) > 1 {
		id := nuid.Next()
		for i, m := range msgs {
			m.Header.Set(hdrBatchID, id)
			m.Header.Set(hdrBatchSeq, strconv.Itoa(i+1))
			if m == last {
				break
			}
			if err := l.nc.PublishMsg(m); err != nil {
				// The commit was never sent: the server drops the partial
				// batch.
				return storeError("append", l.where, err)
			}
		}
		last.Header.Set(hdrBatchCommit, "1")
	}
	resp, err := l.nc.RequestMsgWithContext(ctx, last)
	if err != nil {
		if errors.Is(err, nats.ErrNoResponders) {
			return storeError("append", l.where, fmt.Errorf("no JetStream stream listens on %s: %w", last.Subject, err))
		}
		if cause := context.Cause(ctx); errors.Is(cause, errConnLost) {
			err = cause
		}
		return &eventlog.CommitUnknownError{Err: &eventlog.StorageError{Op: "append", Path: l.where, Err: err}}
	}
	var ack pubAck
	if err := json.Unmarshal(resp.Data, &ack); err != nil {
		return &eventlog.CommitUnknownError{Err: &eventlog.StorageError{Op: "append", Path: l.where, Err: fmt.Errorf("unreadable acknowledgement %q", truncate(resp.Data, 200))}}
	}
	if ack.Error != nil {
		switch ack.Error.ErrCode {
		case jsWrongLastSeq, jsWrongLastSeqConst:
			return &staleError{code: ack.Error.ErrCode, desc: ack.Error.Description}
		case jsAtomicDisabled:
			return &eventlog.StorageError{Op: "append", Path: l.where, Err: errors.New("the stream does not allow atomic batch publish")}
		}
		return &eventlog.StorageError{Op: "append", Path: l.where, Err: fmt.Errorf("server refused the batch: %s (JetStream error %d)", ack.Error.Description, ack.Error.ErrCode)}
	}
	if want := expected + uint64(len(msgs)); ack.Seq != want || ack.Duplicate {
		return &eventlog.CommitUnknownError{Err: &eventlog.StorageError{Op: "append", Path: l.where, Err: fmt.Errorf("acknowledged at seq %d (duplicate %t), expected %d", ack.Seq, ack.Duplicate, want)}}
	}
	return nil
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
