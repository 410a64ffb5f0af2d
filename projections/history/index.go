package history

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/cos-dev/cos/eventlog"
)

// MaxSummary is the longest summary kept for one event, in bytes.
const MaxSummary = 240

// Selector kinds: what a Query follows.
const (
	// ByLog follows every event (Key is empty).
	ByLog = ""
	// ByStream follows the events of the stream Key.
	ByStream = "stream"
	// ByTask follows the task Key ("TASK-007").
	ByTask = "task_id"
	// ByUID follows the graph node Key.
	ByUID = "uid"
	// ByPath follows the repo-relative file Key.
	ByPath = "path"
)

// entry is one event as the index keeps it.
type entry struct {
	seq     uint64
	time    int64 // Unix nanoseconds, UTC
	rid     string
	summary string
	stream  uint32 // into Index.streams
	actor   uint32 // into Index.actors
	typ     uint16 // into Index.types
}

// Item is one event of a Query answer.
type Item struct {
	Seq       uint64
	Time      time.Time
	Type      string
	Stream    string
	Actor     eventlog.Actor
	RequestID string
	Summary   string
}

// Index is the history index. Apply is called by one goroutine at a time;
// Query, Seq and WaitFor may run concurrently with it and each other.
type Index struct {
	// mu guards every field below; changed is closed and replaced under
	// it on every Apply (WaitFor).
	mu      sync.RWMutex
	changed chan struct{}
	seq     uint64
	entries []entry

	types     []string
	typeIDs   map[string]uint16
	streams   []string
	streamIDs map[string]uint32
	actors    []eventlog.Actor
	actorIDs  map[eventlog.Actor]uint32

	byStream map[uint32][]uint32
	byTask   map[string][]uint32
	byUID    map[string][]uint32
	byPath   map[string][]uint32

	tasks map[string]*taskState
	files map[fileKey]*fileState
	// pending is a part-0 extraction whose later parts may still follow:
	// its diff and uid touches are settled when any other event arrives
	// and at the end of each Apply.
	pending *pendingExtraction
}

// New returns an empty Index.
func New() *Index {
	return &Index{
		changed:   make(chan struct{}),
		typeIDs:   map[string]uint16{},
		streamIDs: map[string]uint32{},
		actorIDs:  map[eventlog.Actor]uint32{},
		byStream:  map[uint32][]uint32{},
		byTask:    map[string][]uint32{},
		byUID:     map[string][]uint32{},
		byPath:    map[string][]uint32{},
		tasks:     map[string]*taskState{},
		files:     map[fileKey]*fileState{},
	}
}

// Seq returns the seq of the last event applied.
func (x *Index) Seq() uint64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.seq
}

// count returns the number of events indexed.
func (x *Index) count() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.entries)
}

// WaitFor returns once events up to seq are applied, or ctx's error.
func (x *Index) WaitFor(ctx context.Context, seq uint64) error {
	for {
		x.mu.RLock()
		at, ch := x.seq, x.changed
		x.mu.RUnlock()
		if at >= seq {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Apply indexes evs, which follow what was applied before in seq order;
// an event at or below Seq is ignored (a batch delivered twice).
func (x *Index) Apply(evs []eventlog.Event) {
	if len(evs) == 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for i := range evs {
		ev := &evs[i]
		if ev.Seq <= x.seq {
			continue
		}
		x.apply(ev)
		x.seq = ev.Seq
	}
	x.settle()
	close(x.changed)
	x.changed = make(chan struct{})
}

// apply indexes one event; x.mu is held.
func (x *Index) apply(ev *eventlog.Event) {
	pos := uint32(len(x.entries))
	sid := x.streamID(ev.Stream)
	x.entries = append(x.entries, entry{
		seq: ev.Seq, time: ev.Time.UnixNano(), rid: ev.RequestID,
		stream: sid, actor: x.actorID(ev.Actor), typ: x.typeID(ev.Type),
	})
	x.byStream[sid] = append(x.byStream[sid], pos)
	t := touches{}
	summary := x.summarize(ev, pos, &t)
	x.entries[pos].summary = clip(summary, MaxSummary)
	for _, id := range t.tasks {
		x.byTask[id] = appendPos(x.byTask[id], pos)
	}
	for _, u := range t.uids {
		x.byUID[u] = appendPos(x.byUID[u], pos)
	}
	for _, p := range t.paths {
		x.byPath[p] = appendPos(x.byPath[p], pos)
	}
}

// touches collects what one event touched.
type touches struct {
	tasks, uids, paths []string
}

// appendPos appends pos unless it is already the last element (an event
// naming the same uid twice).
func appendPos(l []uint32, pos uint32) []uint32 {
	if n := len(l); n > 0 && l[n-1] == pos {
		return l
	}
	return append(l, pos)
}

func (x *Index) streamID(s string) uint32 {
	if id, ok := x.streamIDs[s]; ok {
		return id
	}
	id := uint32(len(x.streams))
	x.streams = append(x.streams, s)
	x.streamIDs[s] = id
	return id
}

func (x *Index) actorID(a eventlog.Actor) uint32 {
	if id, ok := x.actorIDs[a]; ok {
		return id
	}
	id := uint32(len(x.actors))
	x.actors = append(x.actors, a)
	x.actorIDs[a] = id
	return id
}

func (x *Index) typeID(t string) uint16 {
	if id, ok := x.typeIDs[t]; ok {
		return id
	}
	if len(x.types) == 1<<16-1 {
		return uint16(len(x.types)) // never reached: event types are a small vocabulary
	}
	id := uint16(len(x.types))
	x.types = append(x.types, t)
	x.typeIDs[t] = id
	return id
}

// Query asks for events, newest first.
type Query struct {
	// Kind is a selector kind (ByLog, ByStream, ByTask, ByUID, ByPath) and
	// Key what it names.
	Kind, Key string
	// Upto is the newest seq listed (the log position the answer
	// reflects); 0 means everything applied.
	Upto uint64
	// Before, when not 0, lists only seqs below it (the next page).
	Before uint64
	// Since and Until bound seqs, inclusive; 0 leaves the side open.
	Since, Until uint64
	// SinceTime and UntilTime bound commit times, inclusive; the zero
	// time leaves the side open.
	SinceTime, UntilTime time.Time
	// Types, when not empty, keeps only events of these types: exact
	// types or prefix forms ("task.*"), as eventlog.ParseTypePattern reads
	// them.
	Types []string
	// Actor, when set, keeps only events whose actor it accepts.
	Actor func(eventlog.Actor) bool
	// Limit is the most items returned; at least 1.
	Limit int
}

// Page is a Query's answer.
type Page struct {
	Items []Item
	// More says older matching events follow the last item.
	More bool
}

// Query returns up to q.Limit matching events, newest first.
func (x *Index) Query(q Query) Page {
	x.mu.RLock()
	defer x.mu.RUnlock()
	m := x.matcher(q)
	page := Page{Items: []Item{}}
	x.walk(q, func(e *entry) bool {
		if !m(e) {
			return true
		}
		if len(page.Items) == q.Limit {
			page.More = true
			return false
		}
		page.Items = append(page.Items, x.item(e))
		return true
	})
	return page
}

// Count returns how many events match q (Limit ignored) and the newest
// one's seq; it stops counting at most.
func (x *Index) Count(q Query, most int) (n int, newest uint64) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	m := x.matcher(q)
	x.walk(q, func(e *entry) bool {
		if m(e) {
			if n == 0 {
				newest = e.seq
			}
			n++
		}
		return n < most
	})
	return n, newest
}

// matcher returns the filter of q's types, times and actor; x.mu is held.
func (x *Index) matcher(q Query) func(*entry) bool {
	var types map[uint16]bool
	if len(q.Types) > 0 {
		types = map[uint16]bool{}
		for _, t := range q.Types {
			p, ok := eventlog.ParseTypePattern(t)
			if !ok {
				continue
			}
			if !p.Prefix {
				if id, ok := x.typeIDs[p.Exact]; ok {
					types[id] = true
				}
				continue
			}
			for name, id := range x.typeIDs {
				if p.Match(name) {
					types[id] = true
				}
			}
		}
	}
	var actorOK []int8 // per actor id: 0 unknown, 1 yes, -1 no
	if q.Actor != nil {
		actorOK = make([]int8, len(x.actors))
	}
	since, until := int64(0), int64(0)
	if !q.SinceTime.IsZero() {
		since = q.SinceTime.UnixNano()
	}
	if !q.UntilTime.IsZero() {
		until = q.UntilTime.UnixNano()
	}
	return func(e *entry) bool {
		if types != nil && !types[e.typ] {
			return false
		}
		if (since != 0 && e.time < since) || (until != 0 && e.time > until) {
			return false
		}
		if actorOK != nil {
			if actorOK[e.actor] == 0 {
				actorOK[e.actor] = -1
				if q.Actor(x.actors[e.actor]) {
					actorOK[e.actor] = 1
				}
			}
			return actorOK[e.actor] == 1
		}
		return true
	}
}

// walk calls fn on the entries of q's selector within its seq bounds,
// newest first, until fn returns false; x.mu is held.
func (x *Index) walk(q Query, fn func(*entry) bool) {
	hi := x.seq
	if q.Upto != 0 && q.Upto < hi {
		hi = q.Upto
	}
	if q.Until != 0 && q.Until < hi {
		hi = q.Until
	}
	if q.Before != 0 && q.Before-1 < hi {
		hi = q.Before - 1
	}
	lo := q.Since
	if hi == 0 || hi < lo {
		return
	}
	if q.Kind == ByLog {
		// Entries are in seq order: find the newest at or below hi.
		i := sort.Search(len(x.entries), func(i int) bool { return x.entries[i].seq > hi }) - 1
		for ; i >= 0 && x.entries[i].seq >= lo; i-- {
			if !fn(&x.entries[i]) {
				return
			}
		}
		return
	}
	list := x.list(q.Kind, q.Key)
	i := sort.Search(len(list), func(i int) bool { return x.entries[list[i]].seq > hi }) - 1
	for ; i >= 0; i-- {
		e := &x.entries[list[i]]
		if e.seq < lo || !fn(e) {
			return
		}
	}
}

// list returns the entry positions of a selector; x.mu is held.
func (x *Index) list(kind, key string) []uint32 {
	switch kind {
	case ByStream:
		id, ok := x.streamIDs[key]
		if !ok {
			return nil
		}
		return x.byStream[id]
	case ByTask:
		return x.byTask[key]
	case ByUID:
		return x.byUID[key]
	case ByPath:
		return x.byPath[key]
	}
	return nil
}

// Known reports whether the selector names anything the index has seen
// (a stream, task, uid or path with at least one event).
func (x *Index) Known(kind, key string) bool {
	if kind == ByLog {
		return true
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.list(kind, key)) > 0
}

func (x *Index) item(e *entry) Item {
	return Item{
		Seq: e.seq, Time: time.Unix(0, e.time).UTC(), Type: x.types[e.typ], Stream: x.streams[e.stream],
		Actor: x.actors[e.actor], RequestID: e.rid, Summary: e.summary,
	}
}
