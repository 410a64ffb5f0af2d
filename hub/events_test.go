package hub_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/hub"
	"github.com/cos-dev/cos/tools"
)

// eventWait bounds the wait for one event on a stream.
const eventWait = 10 * time.Second

// head returns the log head's seq.
func (f *liveHub) head(tb testing.TB) uint64 {
	tb.Helper()
	h, err := f.st.Log().Head(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return h.Seq
}

// collect reads events from s until one has seq until, and returns their
// seqs in the order received.
func collect(tb testing.TB, s *sseStream, until uint64) ([]uint64, []wireEvent) {
	tb.Helper()
	var seqs []uint64
	var evs []wireEvent
	for {
		ev, ok := s.next(tb, eventWait)
		if !ok {
			tb.Fatalf("stream ended or stalled after seqs %v, waiting for %d", seqs, until)
		}
		seqs = append(seqs, ev.Seq)
		evs = append(evs, ev)
		if ev.Seq >= until {
			return seqs, evs
		}
	}
}

// wantRun fails unless seqs are exactly from, from+1, …, to.
func wantRun(tb testing.TB, what string, seqs []uint64, from, to uint64) {
	tb.Helper()
	if uint64(len(seqs)) != to-from+1 {
		tb.Fatalf("%s: got %d events %v, want seqs %d..%d once each", what, len(seqs), seqs, from, to)
	}
	for i, s := range seqs {
		if s != from+uint64(i) {
			tb.Fatalf("%s: event %d is seq %d, want %d (a gap or a duplicate): %v", what, i, s, from+uint64(i), seqs)
		}
	}
}

// TestEvents_ResumeAcrossAnotherProcessBurst: a client that read part of
// the log disconnects while another OS process (the real cos binary, `cos
// call cos_task_create`) writes a burst, reconnects with Last-Event-ID in
// the middle of it, and receives every later event exactly once — the ones
// committed while it was away from the log, the rest live. A stream open
// the whole time sees the same burst with no gap or duplicate either.
func TestEvents_ResumeAcrossAnotherProcessBurst(t *testing.T) {
	bin := buildCos(t)
	f := openLiveHub(t, "", hub.Options{})
	for i := range 3 {
		f.call(t, "cos_task_create", fmt.Sprintf(`{"title":"before %d"}`, i))
	}
	first := f.head(t)

	s1, status, body := f.openEvents(t, "?since=0", nil)
	if s1 == nil {
		t.Fatalf("since=0: status %d %s", status, body)
	}
	seqs, _ := collect(t, s1, first)
	wantRun(t, "since=0", seqs, 1, first)
	s1.Close()

	live, status, body := f.openEvents(t, "", nil)
	if live == nil {
		t.Fatalf("live: status %d %s", status, body)
	}

	const writers, each = 3, 4
	var wg sync.WaitGroup
	firstDone := make(chan struct{})
	var once sync.Once
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				cmd := exec.Command(bin, "--state-dir", f.dir, "call", "cos_task_create", fmt.Sprintf(`{"title":"burst %d.%d"}`, w, i))
				if out, err := cmd.CombinedOutput(); err != nil {
					errs <- fmt.Errorf("cos call: %v\n%s", err, out)
				}
				once.Do(func() { close(firstDone) })
			}
		})
	}
	<-firstDone
	resumed, status, body := f.openEvents(t, "", map[string]string{"Last-Event-ID": strconv.FormatUint(first, 10)})
	if resumed == nil {
		t.Fatalf("Last-Event-ID %d: status %d %s", first, status, body)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	last := f.head(t)
	if last != first+writers*each {
		t.Fatalf("head %d after the burst, want %d", last, first+writers*each)
	}
	seqs, evs := collect(t, resumed, last)
	wantRun(t, "resumed", seqs, first+1, last)
	for _, ev := range evs {
		if ev.Type != "task.created" || !strings.HasPrefix(ev.Stream, "task:") || ev.Revision != 1 || ev.ID == "" || ev.RequestID == nil {
			t.Fatalf("event %+v: want a task.created at revision 1 with id and request_id", ev)
		}
		if ev.Actor.PID == os.Getpid() {
			t.Fatalf("event %d: written by this process, want the other cos process", ev.Seq)
		}
	}
	seqs, _ = collect(t, live, last)
	wantRun(t, "live", seqs, first+1, last)

	// Nothing more arrives: no duplicate after the last event.
	if ev, ok := resumed.next(t, 300*time.Millisecond); ok {
		t.Fatalf("resumed stream sent seq %d after the head %d", ev.Seq, last)
	}
}

// TestEvents_Filters: types (exact and task.* prefix), stream (exact and
// prefix) and actor (client substring or pid) select events; an event
// filtered out is skipped, not delayed.
func TestEvents_Filters(t *testing.T) {
	f := openLiveHub(t, "", hub.Options{})
	alice := tools.WithCaller(context.Background(), "alice-agent", "1.0", "")
	call := func(ctx context.Context, name, args string) {
		t.Helper()
		if env := f.r.Call(ctx, name, json.RawMessage(args), envelope.Options{NoBudget: true}); !env.OK() {
			t.Fatalf("%s: %s", name, env.JSON())
		}
	}
	call(context.Background(), "cos_task_create", `{"title":"one"}`)                // 1 task:TASK-001 task.created
	call(alice, "cos_task_create", `{"title":"two"}`)                               // 2 task:TASK-002 task.created, alice
	call(alice, "cos_task_claim", `{"task_id":"TASK-002","assignee":"alice"}`)      // 3 task:TASK-002 task.claimed, alice
	call(context.Background(), "cos_metric_record", `{"name":"latency","value":3}`) // 4 metrics
	head := f.head(t)
	if head != 4 {
		t.Fatalf("head %d, want 4", head)
	}
	cases := []struct {
		query string
		want  []uint64
	}{
		{"?since=0", []uint64{1, 2, 3, 4}},
		{"?since=0&types=task.*", []uint64{1, 2, 3}},
		{"?since=0&types=task.claimed,metric.recorded", []uint64{3, 4}},
		{"?since=0&types=task.claimed&types=task.created", []uint64{1, 2, 3}},
		{"?since=0&stream=task:TASK-002", []uint64{2, 3}},
		{"?since=0&stream=task:", []uint64{1, 2, 3}},
		{"?since=0&stream=task:TASK-00*", []uint64{1, 2, 3}},
		{"?since=0&stream=metrics", []uint64{4}},
		{"?since=0&actor=ALICE", []uint64{2, 3}},
		{"?since=0&actor=" + strconv.Itoa(os.Getpid()), []uint64{1, 2, 3, 4}},
		{"?since=2&types=task.*", []uint64{3}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			s, status, body := f.openEvents(t, c.query, nil)
			if s == nil {
				t.Fatalf("status %d %s", status, body)
			}
			var got []uint64
			for len(got) < len(c.want) {
				ev, ok := s.next(t, eventWait)
				if !ok {
					t.Fatalf("got %v, then nothing; want %v", got, c.want)
				}
				got = append(got, ev.Seq)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			if ev, ok := s.next(t, 200*time.Millisecond); ok {
				t.Fatalf("extra event %d", ev.Seq)
			}
		})
	}
}

// TestEvents_BadRequestsAre400: an invalid Last-Event-ID, a seq past the
// head, an unknown parameter or a malformed filter is a 400 envelope and
// opens no stream.
func TestEvents_BadRequestsAre400(t *testing.T) {
	f := openLiveHub(t, "", hub.Options{})
	f.call(t, "cos_task_create", `{"title":"one"}`)
	cases := []struct {
		name, query, lastID, wantMsg string
	}{
		{"last id not a number", "", "abc", "Last-Event-ID"},
		{"last id negative", "", "-1", "Last-Event-ID"},
		{"last id past the head", "", "99", "at most its head, 1"},
		{"since not a number", "?since=x", "", "since"},
		{"unknown parameter", "?type=task.created", "", "takes only the parameters"},
		{"bad type", "?types=Task*", "", "types"},
		{"star inside a type", "?types=task.*.x", "", "types"},
		{"empty stream", "?stream=", "", "stream"},
		{"two actors", "?actor=a&actor=b", "", "actor"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := map[string]string{}
			if c.lastID != "" {
				h["Last-Event-ID"] = c.lastID
			}
			s, status, body := f.openEvents(t, c.query, h)
			if s != nil {
				t.Fatal("a stream opened")
			}
			var doc map[string]any
			if err := json.Unmarshal(body, &doc); err != nil {
				t.Fatalf("body %s: %v", body, err)
			}
			if status != http.StatusBadRequest || failCode(doc) != "E_ARGUMENT" || !strings.Contains(string(body), c.wantMsg) {
				t.Fatalf("status %d %s; want 400 E_ARGUMENT mentioning %q", status, body, c.wantMsg)
			}
		})
	}
	if n := f.h.EventStreams(); n != 0 {
		t.Fatalf("%d streams counted open", n)
	}
	resp, doc := f.do(t, http.MethodPost, "/api/events", "", nil)
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET" || failCode(doc) != "E_ARGUMENT" {
		t.Fatalf("POST /api/events: %d Allow %q %v", resp.StatusCode, resp.Header.Get("Allow"), doc)
	}
}

// TestEvents_CapIs503: beyond MaxEventStreams a stream is refused with a
// 503 envelope and Retry-After; once a client disconnects its place is
// free again.
func TestEvents_CapIs503(t *testing.T) {
	f := openLiveHub(t, "", hub.Options{MaxEventStreams: 2})
	var open []*sseStream
	for range 2 {
		s, status, body := f.openEvents(t, "", nil)
		if s == nil {
			t.Fatalf("status %d %s", status, body)
		}
		open = append(open, s)
	}
	s, status, body := f.openEvents(t, "", nil)
	if s != nil || status != http.StatusServiceUnavailable || !strings.Contains(string(body), `"code":"E_UNAVAILABLE"`) ||
		!strings.Contains(string(body), "2 event streams are open") {
		t.Fatalf("third stream: status %d %s; want 503 E_UNAVAILABLE", status, body)
	}
	open[0].Close()
	deadline := time.Now().Add(5 * time.Second)
	for f.h.EventStreams() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d streams counted after a client left, want 1", f.h.EventStreams())
		}
		time.Sleep(10 * time.Millisecond)
	}
	again, status, body := f.openEvents(t, "", nil)
	if again == nil {
		t.Fatalf("after a client left: status %d %s", status, body)
	}
}

// TestEvents_DisconnectEndsTheStream: clients that go away end their
// streams' handlers and subscriptions — no goroutine is left — and Close
// ends the streams still open.
func TestEvents_DisconnectEndsTheStream(t *testing.T) {
	f := openLiveHub(t, "", hub.Options{Heartbeat: 20 * time.Millisecond})
	f.call(t, "cos_task_create", `{"title":"one"}`)
	time.Sleep(50 * time.Millisecond) // let the write's own goroutines settle
	base := goleak.IgnoreCurrent()
	var streams []*sseStream
	for range 5 {
		s, status, body := f.openEvents(t, "?since=0", nil)
		if s == nil {
			t.Fatalf("status %d %s", status, body)
		}
		if _, ok := s.next(t, eventWait); !ok {
			t.Fatal("no event")
		}
		streams = append(streams, s)
	}
	// Heartbeats flow while the stream is idle.
	sawBeat := false
	for !sawBeat {
		select {
		case fr := <-streams[0].frames:
			sawBeat = fr.Comment
		case <-time.After(eventWait):
			t.Fatal("no heartbeat")
		}
	}
	for _, s := range streams {
		s.Close()
	}
	http.DefaultClient.CloseIdleConnections()
	deadline := time.Now().Add(5 * time.Second)
	for f.h.EventStreams() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d streams still counted after every client left", f.h.EventStreams())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := goleak.Find(base); err != nil {
		t.Fatalf("goroutines left after the clients disconnected: %v", err)
	}

	// Close ends a stream still open.
	s, status, body := f.openEvents(t, "", nil)
	if s == nil {
		t.Fatalf("status %d %s", status, body)
	}
	closed := make(chan struct{})
	go func() { f.h.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end an open stream")
	}
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the client's stream did not end after Close")
	}
}

// TestEvents_LargeDataOmitted: an event whose data is over
// MaxEventDataBytes is sent without data, with data_bytes.
func TestEvents_LargeDataOmitted(t *testing.T) {
	f := openLiveHub(t, "", hub.Options{})
	big := strings.Repeat("x", hub.MaxEventDataBytes)
	data, _ := json.Marshal(map[string]string{"blob": big})
	if _, err := f.st.Append(context.Background(), eventlog.AppendRequest{Stream: "system",
		Events: []eventlog.Payload{{Type: "system.test_blob", Data: data}}}); err != nil {
		t.Fatal(err)
	}
	f.call(t, "cos_task_create", `{"title":"small"}`)
	s, status, body := f.openEvents(t, "?since=0", nil)
	if s == nil {
		t.Fatalf("status %d %s", status, body)
	}
	_, evs := collect(t, s, 2)
	if len(evs) != 2 || evs[0].Data != nil || evs[0].DataBytes != len(data) {
		t.Fatalf("big event: data %d bytes, data_bytes %d; want no data and data_bytes %d", len(evs[0].Data), evs[0].DataBytes, len(data))
	}
	if evs[1].Data == nil || evs[1].DataBytes != 0 {
		t.Fatalf("small event: data %s, data_bytes %d", evs[1].Data, evs[1].DataBytes)
	}
}
