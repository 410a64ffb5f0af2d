package bus

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/nats-io/nats.go"
)

func TestBus_TwoOnOneFolder_OneHostsAndMessagesFlow(t *testing.T) {
	dir := t.TempDir()
	// Open both at once so that they race for the election.
	var (
		wg    sync.WaitGroup
		buses [2]*Bus
	)
	for i := range buses {
		wg.Go(func() { buses[i] = openBus(t, Options{StateDir: dir}) })
	}
	wg.Wait()
	a, b := buses[0], buses[1]
	if a == nil || b == nil {
		t.FailNow()
	}

	sa, sb := a.State(), b.State()
	if sa.Hosting == sb.Hosting {
		t.Fatalf("hosting: a=%v b=%v, want exactly one", sa.Hosting, sb.Hosting)
	}
	if !sa.Connected || !sb.Connected || sa.URL != sb.URL {
		t.Fatalf("states: %+v %+v, want both connected to one URL", sa, sb)
	}
	rec, ok, err := readRecord(dir)
	if err != nil || !ok {
		t.Fatalf("readRecord: %v %v", ok, err)
	}
	if rec.URL != sa.URL || rec.PID != os.Getpid() {
		t.Fatalf("record %+v, want url %s pid %d", rec, sa.URL, os.Getpid())
	}

	// A raw client with the folder's credentials sees the wire form:
	// subject and headers.
	creds, _, err := readCredentials(dir)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(sa.URL, nats.UserInfo(creds.User, creds.Password))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	raw := make(chan *nats.Msg, 16)
	sub, err := nc.ChanSubscribe(EventsSubject(a.Namespace(), ">"), raw)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}

	toA := eventSink(t, a, "task.>")
	toB := eventSink(t, b, "graph.>")
	ctx := context.Background()

	cases := []struct {
		name     string
		from     *Bus
		to       <-chan eventlog.Event
		ev       eventlog.Event
		wantSubj string
	}{
		{"b to a", b, toA, testEvent(7, "task.updated", "task:TASK-007"), "cos." + a.Namespace() + ".events.task.updated"},
		{"a to b", a, toB, testEvent(8, "graph.file_extracted", "graph"), "cos." + a.Namespace() + ".events.graph.file_extracted"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.from.Publish(ctx, tc.ev); err != nil {
				t.Fatalf("Publish: %v", err)
			}
			got := receive(t, tc.to, "event")
			if !reflect.DeepEqual(got, tc.ev) {
				t.Errorf("event:\n got %+v\nwant %+v", got, tc.ev)
			}
			m := receive(t, raw, "raw message")
			if m.Subject != tc.wantSubj {
				t.Errorf("subject %q, want %q", m.Subject, tc.wantSubj)
			}
			for h, want := range map[string]string{
				HeaderSeq:     uintString(tc.ev.Seq),
				HeaderStream:  tc.ev.Stream,
				"Nats-Msg-Id": tc.ev.ID,
			} {
				if got := m.Header.Get(h); got != want {
					t.Errorf("header %s = %q, want %q", h, got, want)
				}
			}
		})
	}
}

func TestBus_Namespaces_StayApart(t *testing.T) {
	dir := t.TempDir()
	alpha := openBus(t, Options{StateDir: dir, Namespace: "alpha"})
	beta := openBus(t, Options{StateDir: dir, Namespace: "beta"})
	if alpha.State().URL != beta.State().URL {
		t.Fatalf("want one server: %s vs %s", alpha.State().URL, beta.State().URL)
	}
	gotAlpha := eventSink(t, alpha, ">")
	gotBeta := eventSink(t, beta, ">")
	ctx := context.Background()

	if err := beta.Publish(ctx, testEvent(1, "task.created", "task:TASK-001")); err != nil {
		t.Fatal(err)
	}
	// Once beta's publish has reached the server and alpha's connection has
	// round-tripped after it, anything routed to alpha is queued ahead of
	// alpha's own next event: that event arriving first proves isolation.
	if ev := receive(t, gotBeta, "beta event"); ev.Seq != 1 {
		t.Fatalf("beta got seq %d, want 1", ev.Seq)
	}
	flush(t, beta)
	flush(t, alpha)
	if err := alpha.Publish(ctx, testEvent(2, "task.created", "task:TASK-001")); err != nil {
		t.Fatal(err)
	}
	if ev := receive(t, gotAlpha, "alpha event"); ev.Seq != 2 {
		t.Fatalf("alpha got seq %d first, want its own 2 (namespaces leak)", ev.Seq)
	}
	flush(t, beta)
	select {
	case ev := <-gotBeta:
		t.Fatalf("beta got alpha's event %d", ev.Seq)
	default:
	}
}

// flush round-trips b's connection to the server.
func flush(t testing.TB, b *Bus) {
	t.Helper()
	nc, err := b.conn()
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
}

func TestBus_GracefulHandover(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "yet") // Open creates it
	host := openBus(t, Options{StateDir: dir})
	if !host.State().Hosting {
		t.Fatal("first bus does not host")
	}
	url := host.State().URL
	survivor := openBus(t, Options{StateDir: dir})
	reconnected := make(chan struct{}, 1)
	survivor.OnReconnect(func() { signal(reconnected) })
	got := eventSink(t, survivor, ">")

	if err := host.Close(); err != nil {
		t.Fatal(err)
	}
	// The survivor may briefly reconnect to the closing server before it
	// takes over: wait for the reconnect after which it hosts.
	for {
		receive(t, reconnected, "OnReconnect")
		if survivor.State().Hosting {
			break
		}
	}
	if st := survivor.State(); !st.Connected || st.URL != url {
		t.Fatalf("survivor %+v, want connected to %s", st, url)
	}
	ev := testEvent(3, "task.updated", "task:TASK-003")
	if err := survivor.Publish(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, got, "event after takeover"); got.ID != ev.ID {
		t.Fatalf("got %s, want %s", got.ID, ev.ID)
	}
}

func TestBus_KillHost_SurvivorTakesOver(t *testing.T) {
	dir := t.TempDir()
	host := startChild(t, dir, 100*time.Millisecond, 0)
	if !host.status.Hosting {
		t.Fatalf("child %+v does not host", host.status)
	}
	a := openBus(t, Options{StateDir: dir})
	b := openBus(t, Options{StateDir: dir})
	if a.State().Hosting || b.State().Hosting {
		t.Fatal("a client hosts while the child does")
	}
	var rings [2]chan struct{}
	for i, bus := range []*Bus{a, b} {
		rings[i] = make(chan struct{}, 1)
		bus.OnReconnect(func() { signal(rings[i]) })
	}
	toA, toB := eventSink(t, a, ">"), eventSink(t, b, ">")

	host.kill9(t)
	receive(t, rings[0], "OnReconnect of a")
	receive(t, rings[1], "OnReconnect of b")

	sa, sb := a.State(), b.State()
	if sa.Hosting == sb.Hosting {
		t.Fatalf("after takeover hosting a=%v b=%v, want exactly one", sa.Hosting, sb.Hosting)
	}
	if sa.URL != host.status.URL || sb.URL != host.status.URL {
		t.Errorf("urls %s %s, want the recorded %s kept", sa.URL, sb.URL, host.status.URL)
	}
	rec, _, err := readRecord(dir)
	if err != nil || rec.PID != os.Getpid() {
		t.Fatalf("record %+v (%v), want pid %d", rec, err, os.Getpid())
	}
	ctx := context.Background()
	evA, evB := testEvent(10, "task.updated", "task:TASK-010"), testEvent(11, "graph.file_extracted", "graph")
	if err := a.Publish(ctx, evA); err != nil {
		t.Fatal(err)
	}
	if err := b.Publish(ctx, evB); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []<-chan eventlog.Event{toA, toB} {
		seen := map[uint64]bool{}
		for range 2 {
			seen[receive(t, ch, "event after takeover").Seq] = true
		}
		if !seen[10] || !seen[11] {
			t.Errorf("seen %v, want 10 and 11", seen)
		}
	}
}

func TestBus_RecordedPortTaken_FallsBackWithoutExit(t *testing.T) {
	dir := t.TempDir()
	taken := listen(t)
	// A stale record points at a port someone else now holds: a listener that
	// accepts but never speaks NATS.
	stale := Record{URL: "nats://" + taken, PID: 1, Host: "gone", Started: time.Now().UTC()}
	if err := writeRecord(dir, stale); err != nil {
		t.Fatal(err)
	}
	b := openBus(t, Options{StateDir: dir})
	st := b.State()
	if !st.Hosting || !st.Connected {
		t.Fatalf("state %+v, want hosting and connected", st)
	}
	if st.URL == stale.URL {
		t.Fatalf("url %s is the taken one", st.URL)
	}
	rec, _, err := readRecord(dir)
	if err != nil || rec.URL != st.URL {
		t.Fatalf("record %+v (%v), want url %s", rec, err, st.URL)
	}
}

func TestStartServer_PortTaken(t *testing.T) {
	taken := listen(t)
	_, port := splitPort(t, taken)
	srv, err := startServer("cos-test", port, DefaultMaxPayload, newCredentials(), discardLogger())
	if !errors.Is(err, ErrServerStart) {
		if srv != nil {
			stopServer(srv)
		}
		t.Fatalf("err = %v, want ErrServerStart", err)
	}
}

func TestBus_URLMode(t *testing.T) {
	dir := t.TempDir()
	host := openBus(t, Options{StateDir: dir})
	c, _, err := readCredentials(dir)
	if err != nil {
		t.Fatal(err)
	}
	withCreds := strings.Replace(host.State().URL, "nats://", "nats://"+c.User+":"+c.Password+"@", 1)
	ext := openBus(t, Options{Mode: withCreds, Namespace: host.Namespace()})
	st := ext.State()
	if st.Mode != StateURL || st.Hosting || !st.Connected || st.URL != redactURL(withCreds) {
		t.Fatalf("state %+v", st)
	}
	got := eventSink(t, host, ">")
	ev := testEvent(5, "evidence.output_recorded", "evidence:s1")
	if err := ext.Publish(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	if g := receive(t, got, "event"); g.ID != ev.ID {
		t.Fatalf("got %s, want %s", g.ID, ev.ID)
	}
}

func TestOpen_Unavailable(t *testing.T) {
	addr := listen(t) // accepts TCP, never answers as NATS
	_, err := Open(context.Background(), Options{
		Mode: "nats://" + addr, Namespace: "x", ConnectTimeout: 300 * time.Millisecond,
	})
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
}

func TestBus_Off(t *testing.T) {
	dir := t.TempDir()
	b := openBus(t, Options{Mode: ModeOff, StateDir: dir})
	st := b.State()
	want := State{Mode: StateOff, Namespace: DeriveNamespace(mustAbs(t, dir))}
	if st != want {
		t.Fatalf("state %+v, want %+v", st, want)
	}
	if err := b.Publish(context.Background(), testEvent(1, "task.created", "task:TASK-001")); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	unsub, err := b.Subscribe(EventsSubject(b.Namespace(), ">"), func(eventlog.Event) { t.Error("handler ran in off mode") })
	if err != nil {
		t.Fatal(err)
	}
	unsub()
	if peers := b.Peers(); len(peers) != 1 || peers[0].PID != os.Getpid() {
		t.Fatalf("peers %+v, want only this process", peers)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 0 {
		t.Fatalf("state dir has %v (%v), want nothing written in off mode", entries, err)
	}
}

func TestBus_Closed(t *testing.T) {
	for _, mode := range []string{ModeAuto, ModeOff} {
		t.Run(mode, func(t *testing.T) {
			b := openBus(t, Options{Mode: mode, StateDir: t.TempDir()})
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			if err := b.Close(); err != nil {
				t.Fatalf("second Close: %v", err)
			}
			if st := b.State(); st.Connected || st.Hosting {
				t.Fatalf("state after Close %+v", st)
			}
			_, err := b.Subscribe("cos.x.events.>", func(eventlog.Event) {})
			if !errors.Is(err, ErrClosed) {
				t.Errorf("Subscribe: %v, want ErrClosed", err)
			}
			if mode == ModeOff {
				return
			}
			if err := b.Publish(context.Background(), testEvent(1, "a.b", "s")); !errors.Is(err, ErrClosed) {
				t.Errorf("Publish: %v, want ErrClosed", err)
			}
		})
	}
}

func TestBus_Publish_InvalidType(t *testing.T) {
	b := openBus(t, Options{StateDir: t.TempDir()})
	for _, typ := range []string{"", "task..updated", "task.*", "task.>", "task updated", ".task"} {
		if err := b.Publish(context.Background(), testEvent(1, typ, "s")); !errors.Is(err, ErrInvalidSubject) {
			t.Errorf("Publish type %q: %v, want ErrInvalidSubject", typ, err)
		}
	}
	if _, err := b.Subscribe("cos.>.x", func(eventlog.Event) {}); !errors.Is(err, ErrInvalidSubject) {
		t.Errorf("Subscribe: %v, want ErrInvalidSubject", err)
	}
}

func mustAbs(t testing.TB, dir string) string {
	t.Helper()
	abs, err := absDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func TestRecord_RoundTripAndCorrupt(t *testing.T) {
	dir := t.TempDir()
	if _, ok, err := readRecord(dir); ok || err != nil {
		t.Fatalf("missing record: ok=%v err=%v", ok, err)
	}
	want := Record{URL: "nats://127.0.0.1:4321", PID: 42, Host: "h", Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	if err := writeRecord(dir, want); err != nil {
		t.Fatal(err)
	}
	got, ok, err := readRecord(dir)
	if err != nil || !ok || got != want {
		t.Fatalf("got %+v ok=%v err=%v, want %+v", got, ok, err, want)
	}
	if got.port() != 4321 {
		t.Errorf("port %d, want 4321", got.port())
	}
	if err := os.WriteFile(filepath.Join(dir, RecordFile), []byte(`{"url":`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := readRecord(dir); ok || err != nil {
		t.Fatalf("torn record: ok=%v err=%v, want treated as missing", ok, err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, RecordFile+".tmp-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func TestBus_ProcessesRaceToHost_ExactlyOneHosts(t *testing.T) {
	dir := t.TempDir()
	kids := make([]*child, 3)
	for i := range kids {
		kids[i] = spawnChild(t, dir, DefaultHeartbeatInterval, 0)
	}
	hosts := 0
	for _, k := range kids {
		k.awaitStatus(t)
		if k.status.Hosting {
			hosts++
		}
		if k.status.URL != kids[0].status.URL {
			t.Errorf("child %d on %s, child %d on %s", k.status.PID, k.status.URL, kids[0].status.PID, kids[0].status.URL)
		}
	}
	if hosts != 1 {
		t.Fatalf("%d processes host, want exactly 1", hosts)
	}
}

func TestBus_RecordedURLServedByAnotherFolder_NotUsed(t *testing.T) {
	other := openBus(t, Options{StateDir: t.TempDir()})
	dir := t.TempDir()
	// This folder's record names a live server, but one of another folder.
	if err := writeRecord(dir, Record{URL: other.State().URL, PID: 1, Host: "h", Started: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	b := openBus(t, Options{StateDir: dir})
	st := b.State()
	if !st.Hosting || st.URL == other.State().URL {
		t.Fatalf("state %+v, want its own server, not %s", st, other.State().URL)
	}
}

func TestBus_RecordDeleted_HostRewritesIt(t *testing.T) {
	dir := t.TempDir()
	host := openBus(t, Options{StateDir: dir, HeartbeatInterval: 20 * time.Millisecond})
	if err := os.Remove(filepath.Join(dir, RecordFile)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "record rewritten", func() bool {
		rec, ok, err := readRecord(dir)
		return err == nil && ok && rec.URL == host.State().URL
	})
	late := openBus(t, Options{StateDir: dir})
	if st := late.State(); st.Hosting || st.URL != host.State().URL {
		t.Fatalf("late joiner %+v, want a client of %s", st, host.State().URL)
	}
}
