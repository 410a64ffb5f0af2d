package state

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
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
