package state

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cos-dev/cos/bus"
)

// The views alive at once — cached, read or being built — are bounded:
// with every slot held by a call, a call at yet another point in time
// waits for a release (or its ctx: ErrPastBusy), never building another
// copy of the projections; a call at a point in time already open shares
// its view.
func TestPast_BoundedWhenAllInUse(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Options{Dir: t.TempDir(), NATS: bus.ModeOff, NoBackgroundSnapshots: true, PastViews: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	for _, u := range []string{"A", "B", "C", "D"} {
		upsert(t, s, "code:function:a.go::"+u)
	}
	var held []*Past
	for seq := uint64(1); seq <= 2; seq++ { // 2 = twice the cache bound of 1
		p, err := s.Past(ctx, seq)
		if err != nil {
			t.Fatalf("seq %d: %v", seq, err)
		}
		held = append(held, p)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := s.Past(short, 3); !errors.Is(err, ErrPastBusy) {
		t.Fatalf("a third point in time with two views in use: %v, want ErrPastBusy once its ctx ends", err)
	}
	// A call that waits gets its view once another call releases one.
	waited := make(chan error, 1)
	go func() {
		p, err := s.Past(ctx, 4)
		if err == nil {
			p.Release()
		}
		waited <- err
	}()
	select {
	case err := <-waited:
		t.Fatalf("a call at a fourth point in time did not wait for room: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	if n := s.PastCached(); n != 2 {
		t.Fatalf("%d views open, want 2", n)
	}
	shared, err := s.Past(ctx, 2)
	if err != nil {
		t.Fatalf("a point in time already open: %v", err)
	}
	shared.Release()
	held[0].Release()
	if err := <-waited; err != nil {
		t.Fatalf("the waiting call after a release: %v", err)
	}
	p, err := s.Past(ctx, 3)
	if err != nil {
		t.Fatalf("after a release: %v", err)
	}
	p.Release()
	held[1].Release()
	if n, b := s.PastCached(), s.PastBuilds(); n > 2 || b != 4 {
		t.Fatalf("%d views open and %d built, want ≤ 2 and 4", n, b)
	}
}
