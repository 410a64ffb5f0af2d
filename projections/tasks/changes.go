package tasks

import (
	"fmt"
	"slices"
	"sort"

	"github.com/cos-dev/cos/eventlog"
)

// SymbolChange is one graph event that changed symbols while at least one
// active task had a footprint: the board keeps them (the newest
// MaxSymbolChanges) so that a task can be told what changed under it.
type SymbolChange struct {
	// Seq is the log position of the graph event.
	Seq uint64 `json:"seq"`
	// Path is the file the event extracted or removed.
	Path string `json:"path"`
	// UIDs are the symbols whose body changed, that were added to a file
	// the graph already held, or that were removed; sorted.
	UIDs []string `json:"uids"`
	// Actor is who appended the event.
	Actor eventlog.Actor `json:"actor"`
}

// MaxSymbolChanges is how many SymbolChange records the board keeps.
const MaxSymbolChanges = 4096

// ChangeSource is what the board reads from the graph projection while it
// applies a graph event (the graph applies every event first, see
// state.ProjectionSet): the symbols the event just applied changed.
type ChangeSource interface {
	// LastChangedSymbols returns the path of the last graph event applied
	// and the uids of the symbols it changed (body hash changed, added to
	// a file the graph held, or removed), sorted; nil when it changed none.
	LastChangedSymbols() (path string, uids []string)
}

// UseGraph makes the board record the symbol changes of graph events
// (Changes) while some active task has a footprint.
func (b *Board) UseGraph(g ChangeSource) { b.graph = g }

// Changes returns the recorded symbol changes with Seq > since, oldest
// first, and whether older ones with Seq > since were dropped (the board
// keeps the newest MaxSymbolChanges). The slice is a copy.
func (b *Board) Changes(since uint64) (changes []SymbolChange, dropped bool) {
	i := sort.Search(len(b.changes), func(i int) bool { return b.changes[i].Seq > since })
	out := make([]SymbolChange, len(b.changes)-i)
	for j, c := range b.changes[i:] {
		c.UIDs = slices.Clone(c.UIDs)
		out[j] = c
	}
	return out, b.changesDropped > since
}

// Active returns the tasks that take part in coordination, in id order:
// status neither done nor cancelled, with touches or a derived footprint.
func (b *Board) Active() []Task {
	var out []Task
	for _, e := range b.order {
		if e.Task.IsActive() {
			out = append(out, e.Task.clone())
		}
	}
	return out
}

// IsActive reports whether the task takes part in coordination (Active).
func (t *Task) IsActive() bool {
	if t.Status == StatusDone || t.Status == StatusCancelled {
		return false
	}
	return len(t.Touches) > 0 || (t.Footprint != nil && len(t.Footprint.Symbols) > 0)
}

// hasActive reports whether some task is active, counting once per run of
// graph events.
func (b *Board) hasActive() bool {
	if !b.activeOK {
		b.active = 0
		for _, e := range b.order {
			if e.Task.IsActive() {
				b.active++
			}
		}
		b.activeOK = true
	}
	return b.active > 0
}

// recordChange appends the symbols a graph event changed to the journal,
// while some task is active: the graph applied the event just before.
func (b *Board) recordChange(ev eventlog.Event) {
	if b.graph == nil || !b.hasActive() {
		return
	}
	if r, ok := b.graph.(restoreSource); ok {
		b.unrecord(r.LastRestoredSymbols())
	}
	path, uids := b.graph.LastChangedSymbols()
	if len(uids) == 0 {
		return
	}
	b.changes = append(b.changes, SymbolChange{Seq: ev.Seq, Path: path, UIDs: slices.Clone(uids), Actor: ev.Actor})
	if n := len(b.changes) - MaxSymbolChanges; n > 0 {
		b.changesDropped = b.changes[n-1].Seq
		clear(b.changes[:n])
		b.changes = b.changes[n:]
	}
}

// restoreSource is a ChangeSource that also tells the symbols a later part
// of a split file added back unchanged (projections.Graph does).
type restoreSource interface {
	LastRestoredSymbols() (path string, uids []string)
}

// unrecord takes uids out of the newest records of path: the removals that
// part 0 of a split file recorded for symbols a later part added back.
func (b *Board) unrecord(path string, uids []string) {
	if len(uids) == 0 {
		return
	}
	for i := len(b.changes) - 1; i >= 0 && b.changes[i].Path == path; i-- {
		c := &b.changes[i]
		c.UIDs = slices.DeleteFunc(c.UIDs, func(u string) bool {
			_, found := slices.BinarySearch(uids, u)
			return found
		})
		if len(c.UIDs) == 0 {
			b.changes = slices.Delete(b.changes, i, i+1)
		}
	}
}

// applyFootprint folds a task.footprint_derived of a footprint stream. It
// does not move the task's revision, hash or seq: the agent's
// compare-and-set updates are not checked against it.
func (b *Board) applyFootprint(ev eventlog.Event) error {
	if ev.Type != TypeFootprintDerived {
		return nil
	}
	id, ok := IDOfFootprintStream(ev.Stream)
	if !ok {
		return fmt.Errorf("apply %s seq %d: stream %q is not a footprint stream", ev.Type, ev.Seq, ev.Stream)
	}
	e := b.tasks[id]
	if e == nil {
		return fmt.Errorf("apply %s seq %d: %w", ev.Type, ev.Seq, &NotFoundError{Field: "task_id", TaskID: id})
	}
	var fd FootprintDerived
	if err := decode(ev.Data, &fd); err != nil {
		return fmt.Errorf("apply %s seq %d to %s: %w", ev.Type, ev.Seq, id, err)
	}
	if len(fd.Symbols) > MaxDerivedSymbols || len(fd.Files) > MaxDerivedFiles {
		return fmt.Errorf("apply %s seq %d to %s: %d symbols and %d files, at most %d and %d",
			ev.Type, ev.Seq, id, len(fd.Symbols), len(fd.Files), MaxDerivedSymbols, MaxDerivedFiles)
	}
	fd.Files, fd.Symbols = nonNil(fd.Files), nonNil(fd.Symbols)
	f := &Footprint{FootprintDerived: fd, Seq: ev.Seq}
	if len(fd.Symbols) > 0 {
		f.Since = make(map[string]uint64, len(fd.Symbols))
	}
	for _, s := range fd.Symbols {
		since := ev.Seq
		if old := e.Task.Footprint; old != nil && old.Since[s] != 0 {
			since = old.Since[s]
		}
		f.Since[s] = since
	}
	e.Task.Footprint = f
	return nil
}

// touchesOrNil returns l, nil when empty (an empty touches is no touches).
func touchesOrNil(l []string) []string {
	if len(l) == 0 {
		return nil
	}
	return slices.Clone(l)
}
