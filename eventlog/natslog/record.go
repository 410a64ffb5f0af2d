package natslog

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/cos-dev/cos/eventlog"
	"github.com/nats-io/nats.go"
)

// Headers cos writes on its messages (doc.go, "Messages").
const (
	hdrMsgID        = "Nats-Msg-Id"
	hdrExpLastSeq   = "Nats-Expected-Last-Sequence"
	hdrExpLastSubj  = "Nats-Expected-Last-Subject-Sequence"
	hdrBatchID      = "Nats-Batch-Id"
	hdrBatchSeq     = "Nats-Batch-Sequence"
	hdrBatchCommit  = "Nats-Batch-Commit"
	hdrIntent       = "Cos-Intent"
	hdrRequestCount = "Cos-Events"
	hdrPrefix       = "Cos-Stream-Prefix"
)

// recordMeta is what the headers of a message say beyond its event: set on
// the first message of a request only.
type recordMeta struct {
	// hasIntent: the message starts a request with a request id; intent is
	// its canonical intent hash and count its number of events.
	hasIntent bool
	intent    [32]byte
	count     int
	// prefix is the stream prefix the request's stream was allocated
	// from, "" when it named its stream.
	prefix string
	// decided is set on the messages this handle decided (Append): their
	// intent is the request's own and needs no check against the events.
	decided bool
}

// newMessage returns the message of ev on the subject of its cos stream in
// jsStream, with meta in its headers.
func newMessage(jsStream string, ev *eventlog.Event, meta recordMeta) (*nats.Msg, error) {
	body, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	m := nats.NewMsg(subjectOf(jsStream, ev.Stream))
	m.Data = body
	m.Header.Set(hdrMsgID, ev.ID)
	if meta.hasIntent {
		m.Header.Set(hdrIntent, hex.EncodeToString(meta.intent[:]))
		m.Header.Set(hdrRequestCount, strconv.Itoa(meta.count))
	}
	if meta.prefix != "" {
		m.Header.Set(hdrPrefix, meta.prefix)
	}
	return m, nil
}

// decodeMessage decodes the message at stream sequence seq: its event and
// the request metadata of its headers. It checks that the record holds seq
// and belongs to the subject it was published on, not the hash chain.
func decodeMessage(jsStream, subject string, seq uint64, hdr nats.Header, data []byte) (eventlog.Event, recordMeta, error) {
	var ev eventlog.Event
	var meta recordMeta
	if err := json.Unmarshal(data, &ev); err != nil {
		return ev, meta, &eventlog.IntegrityError{Seq: seq, Reason: "message is not a cos event: " + err.Error()}
	}
	if ev.Seq != seq {
		return ev, meta, &eventlog.IntegrityError{Seq: seq, Reason: fmt.Sprintf("message holds seq %d", ev.Seq)}
	}
	name, err := streamOfSubject(jsStream, subject)
	if err != nil {
		return ev, meta, &eventlog.IntegrityError{Seq: seq, Reason: err.Error()}
	}
	if name != ev.Stream {
		return ev, meta, &eventlog.IntegrityError{Seq: seq, Reason: fmt.Sprintf("message of stream %q published on the subject of %q", ev.Stream, name)}
	}
	if v := hdr.Get(hdrIntent); v != "" {
		raw, err := hex.DecodeString(v)
		n, nerr := strconv.Atoi(hdr.Get(hdrRequestCount))
		if err != nil || len(raw) != 32 || nerr != nil || n < 1 {
			return ev, meta, &eventlog.IntegrityError{Seq: seq, Reason: "malformed request headers"}
		}
		meta.hasIntent = true
		copy(meta.intent[:], raw)
		meta.count = n
	}
	meta.prefix = hdr.Get(hdrPrefix)
	return ev, meta, nil
}
