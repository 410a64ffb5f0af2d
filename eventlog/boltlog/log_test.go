package boltlog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"golang.org/x/sys/unix"
)

// The behaviour every eventlog.Log shares is asserted by the contract suite
// (contract_test.go, package eventlogtest). The tests here cover what is
// this implementation's own: options, read-only opens, chunked reads, the
// committer, the lock file, and the methods outside the contract.

func TestLog_StreamRevision(t *testing.T) {
	l, _ := openTestLog(t, Options{})
	ctx := context.Background()
	if rev, hash, err := l.StreamRevision(ctx, "a"); err != nil || rev != 0 || hash != "" {
		t.Fatalf("StreamRevision of a missing stream = %d %q %v, want 0 \"\"", rev, hash, err)
	}
	var last eventlog.Receipt
	for i, s := range []string{"a", "b", "a", "c", "a"} {
		last = mustAppend(t, l, req(s, "test.appended", dataN(i)))
	}
	evs := readAll(t, l)
	if rev, hash, err := l.StreamRevision(ctx, "a"); err != nil || rev != 3 || hash != evs[4].Hash || hash != last.Hashes[0] {
		t.Fatalf("StreamRevision(a) = %d %s %v", rev, hash, err)
	}
}

func TestLog_Append_MaxEventBytes(t *testing.T) {
	l, _ := openTestLog(t, Options{MaxEventBytes: 64})
	big := `{"s":"` + strings.Repeat("x", 100) + `"}`
	_, err := l.AppendOne(context.Background(), req("s", "a.b", big))
	var ie *eventlog.InvalidEventError
	if !errors.Is(err, eventlog.ErrInvalidEvent) || !errors.As(err, &ie) || ie.Field != "data" {
		t.Errorf("too big: err = %v, want ErrInvalidEvent on data", err)
	}
	if n := len(readAll(t, l)); n != 0 {
		t.Fatalf("log holds %d events after rejected requests, want 0", n)
	}
}

func TestLog_Append_ReceiptWindowPrunes(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	l, _ := openTestLog(t, Options{ReceiptMaxCount: 3, ReceiptMaxAge: time.Hour, Now: clock})
	send := func(id string) eventlog.Receipt {
		r := req("s", "a.b", `{"id":"`+id+`"}`)
		r.RequestID = id
		return mustAppend(t, l, r)
	}
	for _, id := range []string{"r1", "r2", "r3", "r4"} {
		send(id)
	}
	// r1 fell out of the count window: resending it writes again.
	if rec := send("r1"); rec.Replayed {
		t.Fatalf("r1 replayed after leaving the count window")
	}
	if rec := send("r4"); !rec.Replayed {
		t.Fatalf("r4 not replayed inside the window")
	}
	mu.Lock()
	now = now.Add(2 * time.Hour)
	mu.Unlock()
	send("r5") // prunes the expired ones
	if rec := send("r4"); rec.Replayed {
		t.Fatalf("r4 replayed after its age window")
	}
}

// gatedClock is an Options.Now that, once closed, holds the committer inside
// its transaction until the gate opens.
type gatedClock struct {
	mu      sync.Mutex
	block   bool
	entered chan struct{}
	gate    chan struct{}
}

func newGatedClock() *gatedClock {
	return &gatedClock{entered: make(chan struct{}, 1), gate: make(chan struct{})}
}

func (c *gatedClock) now() time.Time {
	c.mu.Lock()
	b := c.block
	c.mu.Unlock()
	if b {
		c.entered <- struct{}{}
		<-c.gate
	}
	return time.Now()
}

// hold makes the next transaction wait in now.
func (c *gatedClock) hold() { c.mu.Lock(); c.block = true; c.mu.Unlock() }

// release lets the waiting transaction and all later ones through.
func (c *gatedClock) release() {
	c.mu.Lock()
	c.block = false
	c.mu.Unlock()
	close(c.gate)
}

func TestLog_Append_ContextEndedAfterHandOffIsCommitUnknown(t *testing.T) {
	clock := newGatedClock()
	l, _ := openTestLog(t, Options{Now: clock.now})
	clock.hold()
	ctx, cancel := context.WithCancel(context.Background())
	r := req("s", "a.b", `{"v":1}`)
	r.RequestID = "retry-me"
	type answer struct {
		res []eventlog.Result
		err error
	}
	ansc := make(chan answer, 1)
	// A bad neighbour in the same call keeps its own validation error.
	go func() { res, err := l.Append(ctx, r, req("", "a.b", `{}`)); ansc <- answer{res, err} }()
	<-clock.entered // the committer holds the request inside its transaction
	cancel()
	ans := <-ansc
	if ans.err != nil || !errors.Is(ans.res[0].Err, eventlog.ErrCommitUnknown) || !errors.Is(ans.res[1].Err, eventlog.ErrInvalidEvent) {
		t.Fatalf("answer = %+v, %v; want ErrCommitUnknown and ErrInvalidEvent", ans.res, ans.err)
	}
	clock.release()
	rec := mustAppend(t, l, r) // the retry the seed prescribes
	if !rec.Replayed || rec.FirstSeq != 1 {
		t.Fatalf("retry = %+v, want the replayed original", rec)
	}
	if n := len(readAll(t, l)); n != 1 {
		t.Fatalf("log holds %d events, want 1", n)
	}
}

// Close returns when its context ends while the committer is still in a
// transaction; the append it holds still commits, and a second Close waits
// for it.
func TestLog_Close_ContextEndsWait(t *testing.T) {
	clock := newGatedClock()
	l, _ := openTestLog(t, Options{Now: clock.now})
	clock.hold()
	recc := make(chan error, 1)
	go func() { _, err := l.AppendOne(context.Background(), req("s", "a.b", `{}`)); recc <- err }()
	<-clock.entered
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := l.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close with the committer held = %v, want context.DeadlineExceeded", err)
	}
	if _, err := l.AppendOne(context.Background(), req("s", "a.b", `{}`)); !errors.Is(err, eventlog.ErrClosed) {
		t.Fatalf("append after an interrupted Close = %v, want ErrClosed", err)
	}
	clock.release()
	if err := l.Close(context.Background()); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := <-recc; err != nil {
		t.Fatalf("the append accepted before Close: %v", err)
	}
	if n := len(readAll(t, l)); n != 1 {
		t.Fatalf("log holds %d events, want 1", n)
	}
}

// Open waits for the lock file, and its context ends that wait.
func TestOpen_ContextEndsWaitForLock(t *testing.T) {
	_, path := openTestLog(t, Options{})
	if _, err := Open(canceledContext(), path, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Open with an ended context = %v, want context.Canceled", err)
	}
	holder, err := os.Open(path + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := unix.Flock(int(holder.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := Open(ctx, path, Options{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Open with the lock held elsewhere = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Open returned %s after its deadline", d)
	}
	// Once the holder lets go, a waiting Open gets through.
	opened := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		l, err := Open(ctx, path, Options{})
		if err == nil {
			err = l.Close(ctx)
		}
		opened <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if err := unix.Flock(int(holder.Fd()), unix.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	if err := <-opened; err != nil {
		t.Fatalf("Open after the lock was released: %v", err)
	}
}

func canceledContext() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func TestLog_ReadOnly(t *testing.T) {
	ctx := context.Background()
	l, path := openTestLog(t, Options{})
	mustAppend(t, l, req("s", "a.b", `{}`))
	ro, err := Open(ctx, path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close(ctx)
	if _, err := ro.Append(ctx, req("s", "a.b", `{}`)); !errors.Is(err, eventlog.ErrReadOnly) {
		t.Fatalf("append read-only: %v, want ErrReadOnly", err)
	}
	mustAppend(t, l, req("s", "a.b", `{}`))
	if h, err := ro.Head(ctx); err != nil || h.Seq != 2 {
		t.Fatalf("read-only Head = %+v %v, want seq 2", h, err)
	}
	if n := len(readAll(t, ro)); n != 2 {
		t.Fatalf("read-only read %d events, want 2", n)
	}
	missing, err := Open(ctx, path+".missing", Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer missing.Close(ctx)
	if h, err := missing.Head(ctx); err != nil || h.Seq != 0 {
		t.Fatalf("Head of a missing log = %+v %v", h, err)
	}
}

// A closed read-only Log answers Head from the database and does not open
// the head file again (it used to, and kept the descriptor).
func TestLog_ReadOnly_HeadAfterClose(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "events.db")
	ro, err := Open(ctx, path, Options{ReadOnly: true}) // no log, no head file yet
	if err != nil {
		t.Fatal(err)
	}
	if err := ro.Close(ctx); err != nil {
		t.Fatal(err)
	}
	createLog(t, path) // writes the head file
	if h, err := ro.Head(ctx); err != nil || h.Seq != 0 {
		t.Fatalf("Head after Close = %+v %v", h, err)
	}
	ro.headMu.Lock()
	reopened := ro.headf != nil
	ro.headMu.Unlock()
	if reopened {
		t.Fatal("Head opened the head file of a closed Log")
	}
}

func TestLog_Read_StopAndFromAcrossChunks(t *testing.T) {
	l, _ := openTestLog(t, Options{ReadChunk: 3})
	for i := 0; i < 10; i++ {
		mustAppend(t, l, req("s", "a.b", dataN(i)))
	}
	var got []uint64
	err := l.Read(context.Background(), 4, func(ev eventlog.Event) error {
		got = append(got, ev.Seq)
		if ev.Seq == 8 {
			return eventlog.ErrStop
		}
		return nil
	})
	if err != nil || len(got) != 5 || got[0] != 4 || got[4] != 8 {
		t.Fatalf("Read from 4 stopping at 8 = %v, %v", got, err)
	}
	if evs := readAll(t, l); len(evs) != 10 || evs[9].Seq != 10 {
		t.Fatalf("Read in chunks of 3 = %d events", len(evs))
	}
}

func TestLog_SeqAt(t *testing.T) {
	base := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	now := base
	l, _ := openTestLog(t, Options{Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }})
	for i := 0; i < 5; i++ {
		mustAppend(t, l, req("s", "a.b", dataN(i)))
		mu.Lock()
		now = now.Add(time.Minute)
		mu.Unlock()
	}
	for _, c := range []struct {
		at   time.Time
		want uint64
	}{{base.Add(-time.Second), 0}, {base, 1}, {base.Add(150 * time.Second), 3}, {base.Add(time.Hour), 5}} {
		if got, err := l.SeqAt(context.Background(), c.at); err != nil || got != c.want {
			t.Errorf("SeqAt(%s) = %d %v, want %d", c.at, got, err, c.want)
		}
	}
}
