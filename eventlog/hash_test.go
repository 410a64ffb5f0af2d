package eventlog

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func vectorEvent() Event {
	return Event{
		Seq:       7,
		ID:        "01M8RR15PARXPJT1HXVZKTTHZ4",
		Time:      time.Date(2026, 12, 1, 12, 7, 20, 522398272, time.UTC),
		Stream:    "task:TASK-001",
		Revision:  2,
		Type:      "task.claimed",
		RequestID: "c1",
		Actor:     Actor{PID: 3786, Host: "vm", Client: "é"},
		Data:      json.RawMessage(`{"assignee":"a"}`),
		PrevHash:  strings.Repeat("f6", 32),
	}
}

// The chain hash is part of the format every backend writes and every
// stored log was chained with: this vector must never change.
func TestEventHash_Vector(t *testing.T) {
	ev := vectorEvent()
	const want = "e7ab5484dfc1626c5fef1221e20fbe0cea2b4b867049623cf92c1b661992e4fe"
	if got := EventHash(&ev); got != want {
		t.Fatalf("EventHash = %s, want %s", got, want)
	}
	// Hash itself is not hashed; the time zone is normalised to UTC.
	ev.Hash = "anything"
	ev.Time = ev.Time.In(time.FixedZone("x", 3600))
	if got := EventHash(&ev); got != want {
		t.Fatalf("EventHash ignoring Hash and zone = %s, want %s", got, want)
	}
}

func TestVerifyEvent(t *testing.T) {
	good := vectorEvent()
	good.Hash = EventHash(&good)
	prev := good.PrevHash
	for _, c := range []struct {
		name   string
		edit   func(ev *Event)
		seq    uint64
		prev   string
		reason string // "" when it verifies
	}{
		{"good", func(*Event) {}, 7, prev, ""},
		{"other seq", func(*Event) {}, 8, prev, "record holds seq 7"},
		{"other prev", func(*Event) {}, 7, ZeroHash, "prev_hash"},
		{"tampered data", func(ev *Event) { ev.Data = json.RawMessage(`{"assignee":"b"}`) }, 7, prev, "recomputed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ev := good
			c.edit(&ev)
			err := VerifyEvent(&ev, c.seq, c.prev)
			if c.reason == "" {
				if err != nil {
					t.Fatalf("VerifyEvent = %v, want nil", err)
				}
				return
			}
			var ie *IntegrityError
			if !errors.As(err, &ie) || ie.Seq != c.seq || !strings.Contains(ie.Reason, c.reason) {
				t.Fatalf("VerifyEvent = %v, want an *IntegrityError at seq %d saying %q", err, c.seq, c.reason)
			}
		})
	}
}

func TestZeroHash(t *testing.T) {
	if len(ZeroHash) != 64 || strings.Trim(ZeroHash, "0") != "" {
		t.Fatalf("ZeroHash = %q, want 64 zeros", ZeroHash)
	}
}
