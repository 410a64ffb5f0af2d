package state

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/internal/testutil"
)

// TestState_NATSStore_OtherMachinesEventsApplyAsTheyCommit: two states
// with their own folders on one JetStream stream, with no bus. A write on
// A reaches B's projections by itself (B follows the stream), with no
// read on B to pull it; a read on B right after A's write reflects it; both
// end with the same state hash. The state folders hold no events.db.
func TestState_NATSStore_OtherMachinesEventsApplyAsTheyCommit(t *testing.T) {
	js := testutil.StartJetStream(t, testutil.JetStreamOptions{})
	store := js.URL() + "/COS"
	ctx := context.Background()
	open := func() *State {
		s, err := Open(ctx, Options{Dir: t.TempDir(), Store: store, CreateStream: true, NATS: bus.ModeOff, NoBackgroundSnapshots: true})
		if err != nil {
			t.Fatalf("Open with store %s: %v", store, err)
		}
		t.Cleanup(func() {
			if err := s.Close(ctx); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return s
	}
	a, b := open(), open()

	// Pushed: B applies A's event without being asked.
	seq := upsert(t, a, "code:function:pushed")
	deadline := time.Now().Add(5 * time.Second)
	for b.Tailer().Position().Seq < seq {
		if time.Now().After(deadline) {
			t.Fatalf("B's projections are at seq %d, 5 s after A committed seq %d: B does not follow the stream", b.Tailer().Position().Seq, seq)
		}
		time.Sleep(5 * time.Millisecond)
	}

	// Read-after-write: every read on B reflects A's write before it.
	for i := range 20 {
		uid := fmt.Sprintf("code:function:f%d", i)
		seq := upsert(t, a, uid)
		if ok, at := hasNode(t, b, uid); !ok {
			t.Fatalf("B does not see %s (seq %d), committed by A before the read: B read at seq %d", uid, seq, at)
		}
	}
	if _, err := b.Tailer().CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Tailer().CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	ha, pa := a.Tailer().StateHash()
	hb, pb := b.Tailer().StateHash()
	if ha != hb || pa != pb {
		t.Fatalf("state hashes differ: A %x at %d, B %x at %d", ha, pa.Seq, hb, pb.Seq)
	}
	var h Health
	if err := b.Read(ctx, func(v View) { h, _ = v.Health(ctx) }); err != nil {
		t.Fatal(err)
	}
	if h.Log.Path != store || h.Log.HeadSeq != pb.Seq {
		t.Errorf("health log = %+v; want path %s head %d", h.Log, store, pb.Seq)
	}
}

// TestState_NATSStore_R3_EveryCommitReachesTheOtherMachine: on a
// three-node cluster (R3), machine A appends 300 events one at a time;
// every third is read on B right after A's append returns and the read
// reflects it, the others must reach B's projections by themselves within
// 5 s, before the next is appended. The stream's feed can deliver an event a moment
// before B's reads of the stream show it; B then catches up again rather
// than leaving it for the next event (which here never comes).
func TestState_NATSStore_R3_EveryCommitReachesTheOtherMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	js := testutil.StartJetStream(t, testutil.JetStreamOptions{Nodes: 3, SyncAlways: true})
	u := js.ClientURLs()
	ctx := context.Background()
	open := func(store string) *State {
		s, err := Open(ctx, Options{Dir: t.TempDir(), Store: store, CreateStream: true, NATS: bus.ModeOff, NoBackgroundSnapshots: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close(ctx) })
		return s
	}
	a := open(fmt.Sprintf("%s,%s,%s/COS", u[0], u[1], u[2]))
	b := open(fmt.Sprintf("%s,%s,%s/COS", u[2], u[1], u[0]))
	data := json.RawMessage(`{"k":"v"}`)
	for i := range 300 {
		recs, err := a.Append(ctx, eventlog.AppendRequest{Stream: "tick", Events: []eventlog.Payload{{Type: "bench.tick", Data: data}}})
		if err != nil {
			t.Fatal(err)
		}
		seq := recs[0].LastSeq
		if i%3 == 0 {
			// Read-after-write: a read on B sees A's acknowledged commit.
			var at uint64
			if err := b.Read(ctx, func(v View) { at = v.Pos.Seq }); err != nil || at < seq {
				t.Fatalf("append %d: a read on B right after A's commit of seq %d is at %d (%v)", i, seq, at, err)
			}
			continue
		}
		for start := time.Now(); b.Tailer().Position().Seq < seq; time.Sleep(time.Millisecond) {
			if time.Since(start) > 5*time.Second {
				t.Fatalf("append %d: seq %d not applied on B after 5 s (B at %d)", i, seq, b.Tailer().Position().Seq)
			}
		}
	}
}
