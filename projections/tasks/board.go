package tasks

import (
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// Name is the projection's name and snapshot section key.
const Name = "tasks"

// snapshotVersion is the version of the snapshot encoding.
const snapshotVersion = 1

// Board is the task-board projection: every task by id, folded from the
// task:* streams. It is a pure reducer; see projections.Projection for the
// concurrency contract (one writer, readers under the tailer's read lock).
type Board struct {
	tasks map[string]*entry
	// order holds the entries sorted by id number (creation order), so
	// that listing never sorts.
	order []*entry
	// maxSeq is the highest seq of any task event applied; a cursor from
	// seq ≥ maxSeq needs no stale scan.
	maxSeq uint64
	// relRev is the revision of RelationsStream: the revision of its last
	// event applied (0 before any).
	relRev uint64
	// graph is the graph projection the board reads symbol changes from
	// (UseGraph); nil in a board used alone.
	graph ChangeSource
	// changes is the journal of symbol changes (Changes), oldest first,
	// at most MaxSymbolChanges; changesDropped is the seq of the newest
	// record dropped from its front (0 when none was).
	changes        []SymbolChange
	changesDropped uint64
	// active counts the active tasks (Active) when activeOK; any task
	// event clears activeOK.
	active   int
	activeOK bool
}

var _ projections.Projection = (*Board)(nil)

// entry is a task plus the history the cursor rule needs.
type entry struct {
	Task Task `json:"task"`
	// Filters holds the filter-relevant fields (status, assignee, labels)
	// after the create and after each event that changed them, oldest
	// first; List uses it to tell whether the task was in a filtered set at
	// a past log position.
	Filters []filterState `json:"filters"`
	// Relinks counts the task.relations_updated events of this task: the
	// task's revision is its own stream's revision plus Relinks, so that a
	// dependency change moves the revision CAS is checked against.
	Relinks uint64 `json:"relinks,omitempty"`
	// num is the number of the task id, the board's sort key.
	num uint64
}

type filterState struct {
	Seq      uint64   `json:"seq"`
	Status   string   `json:"status"`
	Assignee string   `json:"assignee,omitempty"`
	Labels   []string `json:"labels,omitempty"`
}

// NewBoard returns an empty board.
func NewBoard() *Board { return &Board{tasks: map[string]*entry{}} }

// Name returns "tasks".
func (b *Board) Name() string { return Name }

// Apply folds one event of a task:* stream or of RelationsStream; other
// streams are ignored. An event that is invalid for its task (a second
// create, an update of an unknown task, a bad payload, a release by a
// non-holder) returns an error and changes nothing but the task's revision,
// hash and seq, which always follow the log so that CAS stays exact.
//
// A task's Revision is its stream's revision plus the number of
// task.relations_updated events of the task (Revisions), and its Hash the
// hash of the last event of either kind. For a log without
// RelationsStream events — every log written before it existed — that is
// the stream revision and the stream's last hash, as before.
//
// Claims are not arbitrated here: the reducer records the assignee of every
// task.claimed it is given (the log's revision CAS decides the winner; see
// the package doc).
func (b *Board) Apply(ev eventlog.Event) error {
	if ev.Type == graph.TypeFileExtracted || ev.Type == graph.TypeFileRemoved {
		b.recordChange(ev)
		return nil
	}
	if strings.HasPrefix(ev.Type, "task.") {
		b.activeOK = false
	}
	if ev.Stream == RelationsStream {
		return b.applyRelations(ev)
	}
	if strings.HasPrefix(ev.Stream, FootprintStreamPrefix) {
		return b.applyFootprint(ev)
	}
	if !strings.HasPrefix(ev.Stream, "task:") || !strings.HasPrefix(ev.Type, "task.") {
		return nil
	}
	id, ok := IDOfStream(ev.Stream)
	if !ok {
		return fmt.Errorf("apply %s seq %d: stream %q is not a task stream", ev.Type, ev.Seq, ev.Stream)
	}
	e := b.tasks[id]
	if ev.Type == TypeCreated {
		if e != nil {
			b.touch(e, ev)
			return fmt.Errorf("apply %s seq %d: %s already exists", ev.Type, ev.Seq, id)
		}
		var c Created
		if err := decode(ev.Data, &c); err != nil {
			return fmt.Errorf("apply %s seq %d: %w", ev.Type, ev.Seq, err)
		}
		if err := c.validate(); err != nil {
			return fmt.Errorf("apply %s seq %d: %w", ev.Type, ev.Seq, err)
		}
		t := Task{
			ID: id, Title: c.Title, Description: c.Description, Priority: c.Priority, Status: c.Status,
			Labels: nonNil(c.Labels), Signals: c.Signals, DependsOn: nonNil(c.DependsOn), Parent: c.Parent,
			CreatedAt: ev.Time.UTC(), CreatedSeq: ev.Seq, Touches: touchesOrNil(c.Touches),
		}
		e = &entry{Task: t}
		b.touch(e, ev)
		e.recordFilters()
		b.insert(e)
		return nil
	}
	if e == nil {
		return fmt.Errorf("apply %s seq %d: %w", ev.Type, ev.Seq, &NotFoundError{Field: "task_id", TaskID: id})
	}
	b.touch(e, ev)
	var err error
	switch ev.Type {
	case TypeUpdated:
		var u Updated
		if err = decode(ev.Data, &u); err == nil {
			err = e.applyPatch(u.Patch)
		}
	case TypeClaimed:
		var c Claimed
		if err = decode(ev.Data, &c); err == nil {
			if err = ValidateAssignee(c.Assignee); err == nil && c.Touches != nil {
				err = validateTouches(c.Touches)
			}
			if err == nil {
				e.Task.Assignee = c.Assignee
				e.Task.ClaimedSeq = ev.Seq
				if c.Touches != nil {
					e.Task.Touches = touchesOrNil(c.Touches)
				}
			}
		}
	case TypeReleased:
		var r Released
		if err = decode(ev.Data, &r); err == nil && r.Assignee != e.Task.Assignee {
			err = fmt.Errorf("release by %q, but the holder is %q", r.Assignee, e.Task.Assignee)
		} else if err == nil {
			e.Task.Assignee = ""
			e.Task.ClaimedSeq = 0
		}
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("apply %s seq %d to %s: %w", ev.Type, ev.Seq, id, err)
	}
	e.recordFilters()
	return nil
}

// applyRelations folds one event of RelationsStream. The stream's
// revision always follows the log; a task.relations_updated moves its
// task's revision and hash like an event of the task's own stream, and an
// invalid one changes nothing else.
func (b *Board) applyRelations(ev eventlog.Event) error {
	b.relRev = ev.Revision
	b.maxSeq = max(b.maxSeq, ev.Seq)
	if ev.Type != TypeRelationsUpdated {
		return nil
	}
	var r RelationsUpdated
	if err := decode(ev.Data, &r); err != nil {
		return fmt.Errorf("apply %s seq %d: %w", ev.Type, ev.Seq, err)
	}
	e := b.tasks[r.TaskID]
	if e == nil {
		return fmt.Errorf("apply %s seq %d: %w", ev.Type, ev.Seq, &NotFoundError{Field: "task_id", TaskID: r.TaskID})
	}
	streamRev := e.Task.Revision - e.Relinks
	e.Relinks++
	b.touch(e, ev)
	e.Task.Revision = streamRev + e.Relinks
	err := fmt.Errorf("the patch sets neither depends_on nor parent")
	if r.Patch.ChangesRelations() {
		err = e.applyPatch(r.Patch)
	}
	if err != nil {
		return fmt.Errorf("apply %s seq %d to %s: %w", ev.Type, ev.Seq, r.TaskID, err)
	}
	e.recordFilters()
	return nil
}

// touch makes the task's identity follow the log: for an event of the
// task's own stream the revision is the stream's plus Relinks
// (applyRelations sets it for a dependency change).
func (b *Board) touch(e *entry, ev eventlog.Event) {
	e.Task.Revision = ev.Revision + e.Relinks
	e.Task.Hash = ev.Hash
	e.Task.Seq = ev.Seq
	e.Task.UpdatedAt = ev.Time.UTC()
	b.maxSeq = max(b.maxSeq, ev.Seq)
}

// recordFilters appends the filter-relevant fields when they changed.
func (e *entry) recordFilters() {
	fs := filterState{Seq: e.Task.Seq, Status: e.Task.Status, Assignee: e.Task.Assignee, Labels: slices.Clone(e.Task.Labels)}
	if n := len(e.Filters); n > 0 {
		last := e.Filters[n-1]
		if last.Status == fs.Status && last.Assignee == fs.Assignee && slices.Equal(last.Labels, fs.Labels) {
			return
		}
	}
	e.Filters = append(e.Filters, fs)
}

// applyPatch validates the whole patch before changing anything.
func (e *entry) applyPatch(p Patch) error {
	if p.Title != nil && (strings.TrimSpace(*p.Title) == "" || len([]rune(*p.Title)) > MaxTitleLen) {
		return fmt.Errorf("patch.title %q is not legal", *p.Title)
	}
	if p.Priority != nil && !slices.Contains(Priorities, *p.Priority) {
		return fmt.Errorf("patch.priority %q is not legal", *p.Priority)
	}
	if p.Status != nil && !slices.Contains(Statuses, *p.Status) {
		return fmt.Errorf("patch.status %q is not legal", *p.Status)
	}
	if p.Parent != nil && *p.Parent != "" && !ValidID(*p.Parent) {
		return fmt.Errorf("patch.parent %q is not a task id", *p.Parent)
	}
	if p.Touches != nil {
		if err := validateTouches(*p.Touches); err != nil {
			return fmt.Errorf("patch.%w", err)
		}
	}
	t := &e.Task
	if p.Title != nil {
		t.Title = *p.Title
	}
	if p.Description != nil {
		t.Description = *p.Description
	}
	if p.Priority != nil {
		t.Priority = *p.Priority
	}
	if p.Status != nil {
		t.Status = *p.Status
	}
	if p.Labels != nil {
		t.Labels = nonNil(*p.Labels)
	}
	if p.ClearSignals {
		t.Signals = nil
	}
	if p.Signals != nil {
		s := *p.Signals
		t.Signals = &s
	}
	if p.DependsOn != nil {
		t.DependsOn = nonNil(*p.DependsOn)
	}
	if p.Parent != nil {
		t.Parent = *p.Parent
	}
	if p.Touches != nil {
		t.Touches = touchesOrNil(*p.Touches)
	}
	return nil
}

// validate is the reducer's check of a create payload.
func (c Created) validate() error {
	switch {
	case strings.TrimSpace(c.Title) == "" || len([]rune(c.Title)) > MaxTitleLen:
		return fmt.Errorf("title %q is not legal", c.Title)
	case !slices.Contains(Priorities, c.Priority):
		return fmt.Errorf("priority %q is not legal", c.Priority)
	case !slices.Contains(Statuses, c.Status):
		return fmt.Errorf("status %q is not legal", c.Status)
	case c.Parent != "" && !ValidID(c.Parent):
		return fmt.Errorf("parent %q is not a task id", c.Parent)
	}
	return validateTouches(c.Touches)
}

// Get returns a copy of the task with this id.
func (b *Board) Get(id string) (Task, bool) {
	e, ok := b.tasks[id]
	if !ok {
		return Task{}, false
	}
	return e.Task.clone(), true
}

// Revisions returns the revision of task id's own stream ("task:<id>") —
// its Revision minus its dependency changes — and of RelationsStream: the
// expected revisions of the two kinds of update, read together with the
// checks they are based on. ok is false for an unknown task.
func (b *Board) Revisions(id string) (task, relations uint64, ok bool) {
	e, ok := b.tasks[id]
	if !ok {
		return 0, b.relRev, false
	}
	return e.Task.Revision - e.Relinks, b.relRev, true
}

// insert adds a new entry to the map and, in id order, to order. Ids are
// allocated increasing, so this is an append in the common case.
func (b *Board) insert(e *entry) {
	e.num, _ = idNumber(e.Task.ID)
	b.tasks[e.Task.ID] = e
	i := len(b.order)
	if i > 0 && compareEntries(b.order[i-1], e) > 0 {
		i, _ = slices.BinarySearchFunc(b.order, e, compareEntries)
	}
	b.order = slices.Insert(b.order, i, e)
}

// sorted returns the entries ordered by id number (creation order); the
// slice is the board's own and must not be modified.
func (b *Board) sorted() []*entry { return b.order }

func compareEntries(x, y *entry) int {
	if c := cmp.Compare(x.num, y.num); c != 0 {
		return c
	}
	return strings.Compare(x.Task.ID, y.Task.ID)
}

// snapshot is the canonical encoding: tasks in id order, every slice in a
// fixed order, maps none. encoding/json renders it deterministically.
type snapshot struct {
	Version int      `json:"version"`
	Tasks   []*entry `json:"tasks"`
	// RelationsRevision is omitted while 0, so that a board without
	// RelationsStream events encodes (and hashes) as it always did.
	RelationsRevision uint64 `json:"relations_revision,omitempty"`
	// Changes and ChangesDropped are the symbol-change journal (Changes);
	// omitted while empty, for the same reason.
	Changes        []SymbolChange `json:"changes,omitempty"`
	ChangesDropped uint64         `json:"changes_dropped,omitempty"`
}

// MarshalSnapshot encodes the board canonically.
func (b *Board) MarshalSnapshot() ([]byte, error) {
	tasks := b.sorted()
	if tasks == nil {
		tasks = []*entry{}
	}
	return json.Marshal(snapshot{Version: snapshotVersion, Tasks: tasks, RelationsRevision: b.relRev,
		Changes: b.changes, ChangesDropped: b.changesDropped})
}

// UnmarshalSnapshot replaces the board with a decoded snapshot.
func (b *Board) UnmarshalSnapshot(data []byte) error {
	var s snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("decode tasks snapshot: %w", err)
	}
	if s.Version != snapshotVersion {
		return fmt.Errorf("decode tasks snapshot: version %d, want %d", s.Version, snapshotVersion)
	}
	nb := &Board{tasks: make(map[string]*entry, len(s.Tasks)), order: make([]*entry, 0, len(s.Tasks)), relRev: s.RelationsRevision,
		changes: s.Changes, changesDropped: s.ChangesDropped, graph: b.graph}
	for _, e := range s.Tasks {
		if e == nil || !ValidID(e.Task.ID) || e.Relinks > e.Task.Revision {
			return fmt.Errorf("decode tasks snapshot: bad task entry")
		}
		if e.Task.Assignee != "" && e.Task.ClaimedSeq == 0 {
			// Written before claims recorded their seq: rebuilt from the log.
			return fmt.Errorf("decode tasks snapshot: %s is claimed but has no claimed_seq (an older snapshot)", e.Task.ID)
		}
		if _, dup := nb.tasks[e.Task.ID]; dup {
			return fmt.Errorf("decode tasks snapshot: %s appears twice", e.Task.ID)
		}
		e.Task.Labels = nonNil(e.Task.Labels)
		e.Task.DependsOn = nonNil(e.Task.DependsOn)
		nb.insert(e)
		nb.maxSeq = max(nb.maxSeq, e.Task.Seq)
	}
	*b = *nb
	return nil
}

// StateHash is the SHA-256 of MarshalSnapshot's canonical bytes.
func (b *Board) StateHash() [32]byte {
	data, err := b.MarshalSnapshot()
	if err != nil {
		// json.Marshal of these plain types cannot fail.
		panic(fmt.Sprintf("tasks: marshal state: %v", err))
	}
	return sha256.Sum256(data)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// All returns a copy of every task in id order (for dumps and replays).
func (b *Board) All() []Task {
	out := make([]Task, len(b.order))
	for i, e := range b.order {
		out[i] = e.Task.clone()
	}
	return out
}
