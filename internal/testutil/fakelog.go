package testutil

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
)

// BaseTime is the commit time of seq 0 in a FakeLog: the event at seq n is
// committed at BaseTime plus n seconds.
var BaseTime = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// FakeLog stamps events the way a real log does — a gapless seq from 1, a
// revision per stream, an id, a hash chained to the previous one, a commit
// time — deterministically and without I/O, so that reducer and golden
// tests see the same events on every run. Its hashes are not the log's
// (eventlog.EventHash); use a real log (OpenLog) where that or concurrency
// matters. The zero value is an empty log. A FakeLog is not safe for
// concurrent use.
type FakeLog struct {
	// Seq is the seq of the last event stamped; 0 before the first.
	Seq uint64
	// Events are the events stamped, in seq order.
	Events []eventlog.Event

	revs     map[string]uint64 // stream → revision
	counters map[string]int    // stream prefix → last allocated number
}

// Append stamps one event of stream with data used as is, and returns it.
// Event n gets the id "ev%04d" and a hash of (seq, stream, type, data).
func (l *FakeLog) Append(tb testing.TB, stream, typ string, data json.RawMessage) eventlog.Event {
	tb.Helper()
	if l.revs == nil {
		l.revs = map[string]uint64{}
	}
	prev := strings.Repeat("0", 64)
	if n := len(l.Events); n > 0 {
		prev = l.Events[n-1].Hash
	}
	l.Seq++
	l.revs[stream]++
	sum := sha256.Sum256(fmt.Appendf(nil, "%d|%s|%s|%s", l.Seq, stream, typ, data))
	ev := eventlog.Event{
		Seq:      l.Seq,
		ID:       fmt.Sprintf("ev%04d", l.Seq),
		Time:     BaseTime.Add(time.Duration(l.Seq) * time.Second),
		Stream:   stream,
		Revision: l.revs[stream],
		Type:     typ,
		Data:     data,
		PrevHash: prev,
		Hash:     hex.EncodeToString(sum[:]),
	}
	l.Events = append(l.Events, ev)
	return ev
}

// AppendValue is Append with v marshalled to JSON as the data; a marshal
// error fails tb.
func (l *FakeLog) AppendValue(tb testing.TB, stream, typ string, v any) eventlog.Event {
	tb.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		tb.Fatalf("marshal %s payload: %v", typ, err)
	}
	return l.Append(tb, stream, typ, raw)
}

// Allocate returns the next stream name of prefix, prefix + a counter of at
// least three digits, as an eventlog.AppendRequest with a StreamPrefix
// does. Unlike the log it counts only its own allocations: it does not skip
// a name already appended to by hand.
func (l *FakeLog) Allocate(prefix string) string {
	if l.counters == nil {
		l.counters = map[string]int{}
	}
	l.counters[prefix]++
	return fmt.Sprintf("%s%03d", prefix, l.counters[prefix])
}
