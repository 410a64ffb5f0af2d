package hub_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/hub"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/state"
	"github.com/cos-dev/cos/tools"
)

// liveHub is a Hub over a real state folder (bbolt log, no bus),
// served by a real HTTP server on a loopback port.
type liveHub struct {
	dir string
	st  *state.State
	r   *tools.Runner
	h   *hub.Hub
	srv *httptest.Server
}

// openLiveHub opens a state folder in dir (a temporary one when "") and serves
// a Hub with o over it; everything is closed at the end of the test.
func openLiveHub(tb testing.TB, dir string, o hub.Options) *liveHub {
	tb.Helper()
	if dir == "" {
		dir = tb.TempDir()
	}
	ctx := context.Background()
	st, err := state.Open(ctx, state.Options{Dir: dir, NATS: "off", NoBackgroundSnapshots: true})
	if err != nil {
		tb.Fatal(err)
	}
	ix, err := indexing.New(st, indexing.Options{})
	if err != nil {
		_ = st.Close(ctx)
		tb.Fatal(err)
	}
	r := tools.New(st, ix, tools.Options{Version: "test"})
	h, err := hub.New(r, st, o)
	if err != nil {
		_ = st.Close(ctx)
		tb.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	tb.Cleanup(func() {
		h.Close()
		srv.Close()
		if err := st.Close(ctx); err != nil {
			tb.Error(err)
		}
	})
	return &liveHub{dir: dir, st: st, r: r, h: h, srv: srv}
}

// call runs a tool in the fixture's process and fails the test on a
// failure envelope.
func (f *liveHub) call(tb testing.TB, name, args string) envelope.Envelope {
	tb.Helper()
	env := f.r.Call(context.Background(), name, json.RawMessage(args), envelope.Options{NoBudget: true})
	if !env.OK() {
		tb.Fatalf("%s %s: %s", name, args, env.JSON())
	}
	return env
}

// shortClient answers every request that is not an event stream.
var shortClient = &http.Client{Timeout: 20 * time.Second}

// do sends a request to the fixture's server.
func (f *liveHub) do(tb testing.TB, method, path, body string, header map[string]string) (*http.Response, map[string]any) {
	tb.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, f.srv.URL+path, rd)
	if err != nil {
		tb.Fatal(err)
	}
	if _, set := header["Content-Type"]; body != "" && !set {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := shortClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	var doc map[string]any
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(b, &doc); err != nil {
			tb.Fatalf("%s %s: body is not JSON: %v\n%s", method, path, err, b)
		}
	}
	return resp, doc
}

// failCode is the error.code of a failure envelope ("" for a success).
func failCode(doc map[string]any) string {
	e, _ := doc["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// sseFrame is one message of an event stream.
type sseFrame struct {
	ID, Event, Data string
	Comment         bool
}

// sseStream is an open /api/events response read frame by frame.
type sseStream struct {
	resp   *http.Response
	cancel context.CancelFunc
	frames chan sseFrame
	done   chan struct{}
}

// openEvents opens /api/events with query and header; status is what the
// server answered (the stream is nil unless it is 200).
func (f *liveHub) openEvents(tb testing.TB, query string, header map[string]string) (*sseStream, int, []byte) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.srv.URL+"/api/events"+query, nil)
	if err != nil {
		tb.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		return nil, resp.StatusCode, b
	}
	s := &sseStream{resp: resp, cancel: cancel, frames: make(chan sseFrame, 1024), done: make(chan struct{})}
	go s.read()
	tb.Cleanup(s.Close)
	return s, resp.StatusCode, nil
}

func (s *sseStream) read() {
	defer close(s.done)
	defer close(s.frames)
	sc := bufio.NewScanner(s.resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var fr sseFrame
	started := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if started {
				s.frames <- fr
			}
			fr, started = sseFrame{}, false
		case strings.HasPrefix(line, ":"):
			fr.Comment, started = true, true
		default:
			k, v, _ := strings.Cut(line, ":")
			v = strings.TrimPrefix(v, " ")
			started = true
			switch k {
			case "id":
				fr.ID = v
			case "event":
				fr.Event = v
			case "data":
				fr.Data += v
			}
		}
	}
}

// Close disconnects the stream and waits for its reader.
var closeMu sync.Mutex

func (s *sseStream) Close() {
	closeMu.Lock()
	defer closeMu.Unlock()
	s.cancel()
	s.resp.Body.Close()
	<-s.done
}

// wireEvent is the "data:" of one event.
type wireEvent struct {
	Seq       uint64          `json:"seq"`
	ID        string          `json:"id"`
	Stream    string          `json:"stream"`
	Revision  uint64          `json:"revision"`
	Type      string          `json:"type"`
	RequestID *string         `json:"request_id"`
	Data      json.RawMessage `json:"data"`
	DataBytes int             `json:"data_bytes"`
	Actor     struct {
		PID    int    `json:"pid"`
		Client string `json:"client"`
	} `json:"actor"`
}

// next returns the next event of the stream (skipping comments and
// id-only frames), failing the test after wait.
func (s *sseStream) next(tb testing.TB, wait time.Duration) (wireEvent, bool) {
	tb.Helper()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case fr, ok := <-s.frames:
			if !ok {
				return wireEvent{}, false
			}
			if fr.Data == "" {
				continue
			}
			if fr.Event != "cos" {
				tb.Fatalf("event: %q, want cos", fr.Event)
			}
			var ev wireEvent
			if err := json.Unmarshal([]byte(fr.Data), &ev); err != nil {
				tb.Fatalf("data %q: %v", fr.Data, err)
			}
			if fr.ID != itoa(ev.Seq) {
				tb.Fatalf("id: %q but data.seq %d", fr.ID, ev.Seq)
			}
			return ev, true
		case <-timer.C:
			return wireEvent{}, false
		}
	}
}

func itoa(n uint64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
