package state

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/boltlog"
	"github.com/cos-dev/cos/internal/testutil"
)

// TestState_DamageBelowSnapshotRefusesWrites: a record damaged below the
// newest snapshot is never read by the tailer (it starts from the
// snapshot), yet writes are refused with E_INTEGRITY naming it, and reads
// answer with Integrity saying where the log breaks.
func TestState_DamageBelowSnapshotRefusesWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openState(t, dir, nil)
	for i := 1; i <= 115; i++ {
		uid := fmt.Sprintf("go:n%d", i)
		if i == 98 {
			uid = "go:MARKER98"
		}
		upsert(t, s, uid)
	}
	if err := s.Read(ctx, func(View) {}); err != nil {
		t.Fatal(err)
	}
	if pos, err := s.Snapshot(ctx); err != nil || pos.Seq != 115 {
		t.Fatalf("Snapshot = %v, %v; want seq 115", pos, err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	testutil.FlipEvery(t, filepath.Join(dir, LogFile), "MARKER98")

	s = openState(t, dir, nil)
	_, err := s.Append(ctx, eventlog.AppendRequest{Stream: "x", Events: []eventlog.Payload{{Type: "test.added", Data: []byte(`{}`)}}})
	var ie *eventlog.IntegrityError
	if !errors.As(err, &ie) || ie.Seq != 98 {
		t.Fatalf("Append on a log damaged at seq 98 (below the snapshot) = %v; want an IntegrityError at seq 98", err)
	}
	if err := s.ReadStrict(ctx, func(View) {}); !errors.Is(err, eventlog.ErrIntegrity) {
		t.Errorf("ReadStrict = %v, want ErrIntegrity", err)
	}
	var got Integrity
	if err := s.Read(ctx, func(v View) { got = v.Integrity }); err != nil {
		t.Fatalf("Read: %v", err)
	}
	if want := (Integrity{FirstBadSeq: 98, EventsAfter: 17}); got != want {
		t.Errorf("Integrity = %+v, want %+v", got, want)
	}
}

// TestState_ForgedRecordBelowSnapshotRefusesWrites: a record below the
// snapshot rewritten with a valid checksum (its payload changed, its hash
// left) is found by the background walk of the chain, which reads it in
// place without decoding it, as the full walk does.
func TestState_ForgedRecordBelowSnapshotRefusesWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openState(t, dir, nil)
	for i := 1; i <= 40; i++ {
		upsert(t, s, fmt.Sprintf("go:n%d", i))
	}
	if err := s.Read(ctx, func(View) {}); err != nil {
		t.Fatal(err)
	}
	if pos, err := s.Snapshot(ctx); err != nil || pos.Seq != 40 {
		t.Fatalf("Snapshot = %v, %v; want seq 40", pos, err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	forgeRecord(t, filepath.Join(dir, LogFile), 7, func(ev *eventlog.Event) {
		ev.Data = []byte(strings.Replace(string(ev.Data), "go:n7", "go:nX", 1))
	})

	// The walk starts after the load, or beside it for a process about
	// to write (WritesSoon): both find the forgery.
	for _, soon := range []bool{false, true} {
		s, err := Open(ctx, Options{Dir: dir, NATS: bus.ModeOff, NoBackgroundSnapshots: true, WritesSoon: soon})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Append(ctx, eventlog.AppendRequest{Stream: "x", Events: []eventlog.Payload{{Type: "test.added", Data: []byte(`{}`)}}})
		var ie *eventlog.IntegrityError
		if !errors.As(err, &ie) || ie.Seq != 7 || !strings.Contains(ie.Reason, "recomputed") {
			t.Fatalf("WritesSoon %v: Append on a log forged at seq 7 (below the snapshot) = %v; want a hash mismatch at seq 7", soon, err)
		}
		if got := s.Integrity(); got != (Integrity{FirstBadSeq: 7, EventsAfter: 33}) {
			t.Errorf("WritesSoon %v: Integrity = %+v", soon, got)
		}
		if err := s.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// forgeRecord rewrites the record of seq in the bbolt log at path with
// edit applied and a valid checksum, as someone editing the file would.
func forgeRecord(t *testing.T, path string, seq uint64, edit func(ev *eventlog.Event)) {
	t.Helper()
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	key := binary.BigEndian.AppendUint64(nil, seq)
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("events"))
		ev, err := boltlog.DecodeRecord(b.Get(key))
		if err != nil {
			return err
		}
		edit(&ev)
		body, err := json.Marshal(&ev)
		if err != nil {
			return err
		}
		rec := append([]byte{1, 0, 0, 0, 0}, body...)
		binary.BigEndian.PutUint32(rec[1:5], crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
		return b.Put(key, rec)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkVerifyChain_10000 is the cost state.Open pays to verify the
// chain of a 10,000-event log (reported as ms/open).
func BenchmarkVerifyChain_10000(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	l, err := OpenLog(ctx, dir, LogOptions{})
	if err != nil {
		b.Fatal(err)
	}
	reqs := make([]eventlog.AppendRequest, 1000)
	for i := range reqs {
		reqs[i] = eventlog.AppendRequest{Stream: "s", Events: []eventlog.Payload{{Type: "test.added", Data: []byte(`{"title":"a task of an ordinary size, with a few words in it"}`)}}}
	}
	for range 10 {
		if _, err := l.Append(ctx, reqs...); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		if n, err := l.Verify(ctx); err != nil || n != 10000 {
			b.Fatalf("Verify = %d, %v", n, err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/verify")
	if err := l.Close(ctx); err != nil {
		b.Fatal(err)
	}
}

// TestState_ForgedRecordIsNotServed: a record the projections replay,
// rewritten with a valid checksum (its payload changed, its hash left), is
// not served: reads answer from the state before it, as for a bad
// checksum, with Integrity naming it. Fails when reads hand out any record
// whose checksum holds.
func TestState_ForgedRecordIsNotServed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openState(t, dir, nil)
	for i := 1; i <= 5; i++ {
		upsert(t, s, fmt.Sprintf("code:function:n%d", i))
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	forgeRecord(t, filepath.Join(dir, LogFile), 3, func(ev *eventlog.Event) {
		ev.Data = []byte(strings.Replace(string(ev.Data), "code:function:n3", "code:function:FORGED", 1))
	})
	s = openState(t, dir, nil)
	if ok, _ := hasNode(t, s, "code:function:FORGED"); ok {
		t.Error("the graph holds the node of the forged record")
	}
	if ok, _ := hasNode(t, s, "code:function:n2"); !ok {
		t.Error("the graph lost the events before the forged record")
	}
	var got Integrity
	if err := s.Read(ctx, func(v View) { got = v.Integrity }); err != nil {
		t.Fatal(err)
	}
	if got.OK || got.FirstBadSeq != 3 {
		t.Errorf("Integrity = %+v; want not OK at seq 3", got)
	}
}
