package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/state"
)

// Limits of /api/events.
const (
	// MaxEventDataBytes is the largest event payload an event stream
	// carries in "data"; a larger one is sent without it and with
	// "data_bytes", its size (read it with /api/history).
	MaxEventDataBytes = 16 << 10
	// maxTypeFilters bounds the entries of the types filter.
	maxTypeFilters = 32
	// maxFilterChars bounds one filter value, in bytes.
	maxFilterChars = 256
	// eventWriteTimeout is how long one write to an event stream may take
	// before the client counts as gone.
	eventWriteTimeout = 30 * time.Second
	// catchUpFlush is how many events a catch-up from the log writes
	// between flushes.
	catchUpFlush = 64
	// retryMillis is the reconnection delay the stream asks browsers for.
	retryMillis = 2000
)

// eventParams are the query parameters /api/events takes.
var eventParams = []string{"types", "stream", "actor", "since"}

// wireEvent is one event as an event stream's "data:" line carries it.
type wireEvent struct {
	Seq       uint64          `json:"seq"`
	ID        string          `json:"id"`
	Time      time.Time       `json:"time"`
	Stream    string          `json:"stream"`
	Revision  uint64          `json:"revision"`
	Type      string          `json:"type"`
	Actor     wireActor       `json:"actor"`
	RequestID string          `json:"request_id"`
	Data      json.RawMessage `json:"data,omitempty"`
	DataBytes int             `json:"data_bytes,omitempty"`
}

// wireActor is who made an event, as cos_history shows it: the log's
// actor.client (an encoded caller, "name=hub+%28Firefox%29") read back into
// the client's name, version and session.
type wireActor struct {
	PID           int    `json:"pid"`
	Host          string `json:"host"`
	Client        string `json:"client,omitempty"`
	ClientVersion string `json:"client_version,omitempty"`
	Session       string `json:"session,omitempty"`
}

// actorOf returns a's wire form.
func actorOf(a eventlog.Actor) wireActor {
	c := state.ParseCaller(a.Client)
	return wireActor{PID: a.PID, Host: a.Host, Client: c.Name, ClientVersion: c.Version, Session: c.Session}
}

// eventFilter selects the events a stream sends. The zero value selects
// every event.
type eventFilter struct {
	// types are exact event types; typePrefixes the "task.*" forms
	// ("task."). Both empty: every type.
	types        []string
	typePrefixes []string
	// stream is exact, or a prefix when streamPrefix.
	stream       string
	streamPrefix bool
	// actor is a substring of the client's name or session
	// (case-insensitive, as wireActor shows them), or, when actorPID > 0,
	// also matches that pid.
	actor    string
	actorPID int
}

// match reports whether ev passes f.
func (f eventFilter) match(ev eventlog.Event) bool {
	if len(f.types) > 0 || len(f.typePrefixes) > 0 {
		ok := slices.Contains(f.types, ev.Type)
		for _, p := range f.typePrefixes {
			ok = ok || strings.HasPrefix(ev.Type, p)
		}
		if !ok {
			return false
		}
	}
	if f.stream != "" {
		if f.streamPrefix && !strings.HasPrefix(ev.Stream, f.stream) || !f.streamPrefix && ev.Stream != f.stream {
			return false
		}
	}
	if f.actor != "" {
		pid := f.actorPID > 0 && ev.Actor.PID == f.actorPID
		c, want := state.ParseCaller(ev.Actor.Client), strings.ToLower(f.actor)
		if !pid && !strings.Contains(strings.ToLower(c.Name), want) && !strings.Contains(strings.ToLower(c.Session), want) {
			return false
		}
	}
	return true
}

// parseEvents reads the query of /api/events and the Last-Event-ID header:
// the filter, and the seq after which to start (from: true when the client
// named one; otherwise the stream starts at the head).
func parseEvents(q url.Values, lastEventID []string) (eventFilter, uint64, bool, *envelope.Error) {
	var f eventFilter
	for k := range q {
		if !slices.Contains(eventParams, k) {
			k = clip(k, 60)
			return f, 0, false, envelope.Errorf(envelope.CodeArgument, "unknown parameter %q: /api/events takes only the parameters %s; example: %s",
				k, strings.Join(eventParams, ", "), "types=task.*&stream=task:&actor=hub").
				WithDetails(map[string]any{"field": k, "got": clip(q.Get(k), 200), "accepted": eventParams})
		}
	}
	for _, v := range q["types"] {
		for t := range strings.SplitSeq(v, ",") {
			t = strings.TrimSpace(t)
			if t == "" {
				continue
			}
			if len(f.types)+len(f.typePrefixes) >= maxTypeFilters {
				return f, 0, false, argError("types", v, fmt.Sprintf("at most %d event types", maxTypeFilters), "types=task.*,graph.file_extracted")
			}
			p, ok := eventlog.ParseTypePattern(t)
			if !ok {
				return f, 0, false, argError("types", t, eventlog.TypePatternLegal, "types=task.*,graph.file_extracted")
			}
			if p.Prefix {
				f.typePrefixes = append(f.typePrefixes, p.Exact)
			} else {
				f.types = append(f.types, p.Exact)
			}
		}
	}
	if vs := q["stream"]; len(vs) > 0 {
		s := vs[0]
		if len(vs) > 1 || s == "" || len(s) > maxFilterChars || strings.ContainsFunc(s, isControl) {
			return f, 0, false, argError("stream", s, fmt.Sprintf("one stream name of 1 to %d characters: exact (task:TASK-007), or a prefix ending in : or * (task:, task:TASK-00*)", maxFilterChars),
				"stream=task:")
		}
		f.stream, f.streamPrefix = s, strings.HasSuffix(s, ":") || strings.HasSuffix(s, "*")
		f.stream = strings.TrimSuffix(f.stream, "*")
	}
	if vs := q["actor"]; len(vs) > 0 {
		a := vs[0]
		if len(vs) > 1 || a == "" || len(a) > maxFilterChars || strings.ContainsFunc(a, isControl) {
			return f, 0, false, argError("actor", a, fmt.Sprintf("one client name (or part of one) or a process id, 1 to %d characters", maxFilterChars), "actor=hub")
		}
		f.actor = a
		if n, err := strconv.Atoi(a); err == nil && n > 0 {
			f.actorPID = n
		}
	}
	// since is checked even beside Last-Event-ID, which then wins: a
	// browser reconnecting keeps the URL it started with and sends the last
	// id it saw.
	var since uint64
	if q.Has("since") {
		var err error
		since, err = strconv.ParseUint(strings.TrimSpace(q.Get("since")), 10, 64)
		if err != nil || len(q["since"]) > 1 {
			return f, 0, false, argError("since", strings.Join(q["since"], ", "), "one seq, a number ≥ 0: the stream sends the events after it", "since=42")
		}
	}
	switch {
	case len(lastEventID) > 1:
		return f, 0, false, argError("Last-Event-ID", strings.Join(lastEventID, ", "), "one Last-Event-ID header", "Last-Event-ID: 42")
	case len(lastEventID) == 1:
		seq, err := strconv.ParseUint(strings.TrimSpace(lastEventID[0]), 10, 64)
		if err != nil {
			return f, 0, false, argError("Last-Event-ID", lastEventID[0], "the seq of the last event received, a number ≥ 0", "Last-Event-ID: 42")
		}
		return f, seq, true, nil
	case q.Has("since"):
		return f, since, true, nil
	}
	return f, 0, false, nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// argError is the E_ARGUMENT of a bad /api/events parameter.
func argError(field, got, want, example string) *envelope.Error {
	got = clip(got, 200)
	return envelope.Errorf(envelope.CodeArgument, "%s %q: want %s; example: %s", clip(field, 60), got, want, example).
		WithDetails(map[string]any{"field": clip(field, 60), "got": got, "example": example})
}

// events serves GET /api/events: a text/event-stream of committed events.
// Each is "id: <seq>", "event: cos" and one "data:" line (wireEvent). With
// Last-Event-ID (or ?since=SEQ) it first sends every event after that seq
// from the log, then follows new commits of any process; without, it
// starts at the log head. No event is sent twice and none is skipped.
func (h *Hub) events(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		h.fail(w, http.StatusMethodNotAllowed, envelope.Errorf(envelope.CodeArgument,
			"/api/events takes GET, not %s", clip(r.Method, 20)).
			WithDetails(map[string]any{"method": clip(r.Method, 20), "allow": []string{http.MethodGet}}))
		return
	}
	q, aerr := readQuery(r)
	if aerr != nil {
		h.fail(w, http.StatusBadRequest, aerr)
		return
	}
	filter, after, resume, aerr := parseEvents(q, r.Header.Values("Last-Event-ID"))
	if aerr != nil {
		h.fail(w, http.StatusBadRequest, aerr)
		return
	}
	head, err := h.st.Log().Head(r.Context())
	if err != nil {
		if r.Context().Err() == nil {
			h.fail(w, http.StatusServiceUnavailable, envelope.Wrap(err, envelope.CodeUnavailable,
				"the event log cannot be read now; try again"))
		}
		return
	}
	if !resume {
		after = head.Seq
	} else if after > head.Seq {
		// Name the field the client sent: the header wins over ?since.
		field, example := "since", "since="+strconv.FormatUint(head.Seq, 10)
		if len(r.Header.Values("Last-Event-ID")) > 0 {
			field, example = "Last-Event-ID", "Last-Event-ID: "+strconv.FormatUint(head.Seq, 10)
		}
		h.fail(w, http.StatusBadRequest, argError(field, strconv.FormatUint(after, 10),
			fmt.Sprintf("a seq the log has: at most its head, %d", head.Seq), example).
			WithDetails(map[string]any{"head": head.Seq}))
		return
	}
	if !h.openStream() {
		h.fail(w, http.StatusServiceUnavailable, envelope.Errorf(envelope.CodeUnavailable,
			"%d event streams are open, the most this server keeps; close a page or try again later", h.maxStream).
			WithDetails(map[string]any{"max_event_streams": h.maxStream}))
		return
	}
	defer h.closeStream()

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(h.ctx, cancel)
	defer stop()

	// Subscribe before reading the log: every event is then either
	// committed before the read starts (the read has it) or applied after
	// the subscription (it is delivered); duplicates are dropped by seq.
	changes := make(chan state.Changes)
	sub, err := h.st.Subscribe(func(c state.Changes) {
		select {
		case changes <- c:
		case <-ctx.Done():
		}
	})
	if err != nil {
		h.fail(w, http.StatusServiceUnavailable, envelope.Wrap(err, envelope.CodeUnavailable, "the server is shutting down"))
		return
	}
	defer sub.Close()

	s := &sseWriter{w: w, rc: http.NewResponseController(w), filter: filter, last: after}
	defer func() { _ = s.rc.SetWriteDeadline(time.Time{}) }()
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Accel-Buffering", "no")
	hd.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	// An id with no data sets the browser's last event id without an
	// event: a reconnect before any event resumes from here.
	if err := s.write(fmt.Appendf(nil, "retry: %d\nid: %d\n\n", retryMillis, after)); err != nil || s.flush() != nil {
		return
	}
	if err := h.catchUp(ctx, s); err != nil {
		h.streamEnded(ctx, err)
		return
	}
	tick := time.NewTicker(h.heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := s.write([]byte(": heartbeat\n\n")); err != nil || s.flush() != nil {
				return
			}
		case c := <-changes:
			if err := h.deliver(ctx, s, c); err != nil {
				h.streamEnded(ctx, err)
				return
			}
		}
	}
}

// deliver sends the events of c the stream has not sent, reading the log
// for any it missed.
func (h *Hub) deliver(ctx context.Context, s *sseWriter, c state.Changes) error {
	if c.Lost {
		return h.catchUp(ctx, s)
	}
	for _, ev := range c.Events {
		switch {
		case ev.Seq <= s.last:
			continue // already sent (or read from the log)
		case ev.Seq > s.last+1:
			if err := h.catchUp(ctx, s); err != nil {
				return err
			}
			continue
		}
		if err := s.event(ev); err != nil {
			return err
		}
	}
	return s.flush()
}

// catchUp sends every event after s.last the log has now.
func (h *Hub) catchUp(ctx context.Context, s *sseWriter) error {
	n := 0
	err := h.st.Log().Read(ctx, s.last+1, func(ev eventlog.Event) error {
		if ev.Seq != s.last+1 {
			return fmt.Errorf("the log read seq %d after %d", ev.Seq, s.last)
		}
		if err := s.event(ev); err != nil {
			return err
		}
		if n++; n%catchUpFlush == 0 {
			return s.flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.flush()
}

// streamEnded logs why a stream ended, unless the client or the Hub ended
// it.
func (h *Hub) streamEnded(ctx context.Context, err error) {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return
	}
	h.logger.Debug("hub: an event stream ended", "err", err)
}

// sseWriter writes one event stream and remembers the last seq it passed.
type sseWriter struct {
	w      http.ResponseWriter
	rc     *http.ResponseController
	filter eventFilter
	// last is the seq of the last event sent or filtered out.
	last uint64
	buf  []byte
}

// event sends ev if the filter passes it; either way last becomes its seq.
func (s *sseWriter) event(ev eventlog.Event) error {
	s.last = ev.Seq
	if !s.filter.match(ev) {
		return nil
	}
	we := wireEvent{Seq: ev.Seq, ID: ev.ID, Time: ev.Time, Stream: ev.Stream, Revision: ev.Revision, Type: ev.Type,
		Actor: actorOf(ev.Actor), RequestID: ev.RequestID, Data: ev.Data}
	if len(ev.Data) > MaxEventDataBytes {
		we.Data, we.DataBytes = nil, len(ev.Data)
	}
	data, err := json.Marshal(we)
	if err != nil {
		return fmt.Errorf("encode event %d: %w", ev.Seq, err)
	}
	s.buf = fmt.Appendf(s.buf[:0], "id: %d\nevent: cos\ndata: %s\n\n", ev.Seq, data)
	return s.write(s.buf)
}

// write writes b within eventWriteTimeout.
func (s *sseWriter) write(b []byte) error {
	_ = s.rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout)) // not every writer supports it
	_, err := s.w.Write(b)
	return err
}

// flush sends what is written to the client.
func (s *sseWriter) flush() error { return s.rc.Flush() }
