package worktree

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/gitfiles"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/projections/tasks"
	"github.com/cos-dev/cos/query"
	"github.com/cos-dev/cos/state"
)

// Footprints derives the footprint of the tasks claimed through this
// process from the worktree's diff against its base (the merge base of the
// worktree's HEAD with the main tree's indexed commit), mapped onto the
// symbols of the overlaid graph as cos_graph_changes maps a diff, and
// records it as task.footprint_derived whenever its files or symbols
// change. A task leaves when it is done, cancelled, or held by someone
// else.
type Footprints struct {
	ov *Overlay
	st *state.State

	// mu guards claims and last.
	mu     sync.Mutex
	claims map[string]string // task id → assignee
	// last is the derived footprint last recorded per task by this process.
	last map[string]tasks.FootprintDerived
	// kick wakes Run.
	kick chan struct{}
}

// NewFootprints returns the footprint deriver of ov's worktree.
func NewFootprints(ov *Overlay) *Footprints {
	return &Footprints{ov: ov, st: ov.st, claims: map[string]string{}, last: map[string]tasks.FootprintDerived{}, kick: make(chan struct{}, 1)}
}

// Claimed records that the task id was claimed by assignee through this
// process; the next Update derives its footprint.
func (fp *Footprints) Claimed(id, assignee string) {
	fp.mu.Lock()
	fp.claims[id] = assignee
	fp.mu.Unlock()
	fp.Kick()
}

// Tasks returns the ids of the tasks followed, sorted.
func (fp *Footprints) Tasks() []string {
	fp.mu.Lock()
	defer fp.mu.Unlock()
	return slices.Sorted(maps.Keys(fp.claims))
}

// Resume follows again the active tasks whose derived footprint names this
// worktree and whose holder is the one it was derived for (a server
// restarted in the worktree).
func (fp *Footprints) Resume(ctx context.Context) error {
	name := fp.ov.Worktree().Name
	return fp.st.Read(ctx, func(v state.View) {
		for _, t := range v.Board.All() {
			if t.Footprint != nil && t.Footprint.Worktree == name && t.Assignee != "" &&
				t.Footprint.Assignee == t.Assignee && active(t) {
				fp.Claimed(t.ID, t.Assignee)
			}
		}
	})
}

func active(t tasks.Task) bool {
	return t.Status != tasks.StatusDone && t.Status != tasks.StatusCancelled
}

// Update derives the worktree's footprint and appends it to each followed
// task whose recorded footprint differs; it returns how many it appended.
// A task no longer held by its claimer (released, done, cancelled) stops
// being followed.
func (fp *Footprints) Update(ctx context.Context) (int, error) {
	fp.mu.Lock()
	claims := make(map[string]string, len(fp.claims))
	for id, a := range fp.claims {
		claims[id] = a
	}
	fp.mu.Unlock()
	if len(claims) == 0 {
		return 0, nil
	}
	derived, err := fp.Derive(ctx)
	if err != nil {
		return 0, err
	}
	type todo struct{ id, assignee string }
	var due []todo
	var gone []string
	if err := fp.st.Read(ctx, func(v state.View) {
		for _, id := range sortedKeys(claims) {
			t, ok := v.Board.Get(id)
			if !ok || !active(t) || t.Assignee != claims[id] {
				gone = append(gone, id)
				continue
			}
			fp.mu.Lock()
			prev, had := fp.last[id]
			fp.mu.Unlock()
			if !had && t.Footprint != nil {
				prev, had = t.Footprint.FootprintDerived, true
			}
			if had && same(prev, derived, claims[id]) {
				continue
			}
			due = append(due, todo{id, claims[id]})
		}
	}); err != nil {
		return 0, err
	}
	fp.mu.Lock()
	for _, id := range gone {
		delete(fp.claims, id)
		delete(fp.last, id)
	}
	fp.mu.Unlock()
	n := 0
	for _, d := range due {
		fd := derived
		fd.Assignee = d.assignee
		p, err := tasks.FootprintDerivedPayload(fd)
		if err != nil {
			return n, err
		}
		if _, err := fp.st.Append(ctx, eventlog.AppendRequest{Stream: tasks.FootprintStreamOf(d.id), Events: []eventlog.Payload{p}}); err != nil {
			return n, fmt.Errorf("record the footprint of %s: %w", d.id, err)
		}
		fp.mu.Lock()
		fp.last[d.id] = fd
		fp.mu.Unlock()
		n++
	}
	return n, nil
}

// same reports whether a recorded footprint says what fd says for
// assignee.
func same(prev, fd tasks.FootprintDerived, assignee string) bool {
	return prev.Assignee == assignee && prev.Worktree == fd.Worktree && prev.Base == fd.Base && prev.Head == fd.Head &&
		slices.Equal(prev.Files, fd.Files) && slices.Equal(prev.Symbols, fd.Symbols)
}

// Derive computes the worktree's footprint now (Assignee left empty): the
// files of its diff against its base and the symbols they add, change or
// remove.
func (fp *Footprints) Derive(ctx context.Context) (tasks.FootprintDerived, error) {
	wt := fp.ov.Worktree()
	fd := tasks.FootprintDerived{Worktree: wt.Name}
	// Sync first, always: the overlay may lag the disk (a watcher's sync
	// still running holds the root already, not yet the files), and a
	// footprint read from it names the diff's files without their symbols.
	// Sync waits for a running one and extracts only what still differs.
	if _, err := fp.ov.Sync(ctx); err != nil {
		return fd, err
	}
	root, _ := fp.ov.Root()
	head, err := gitfiles.Head(ctx, wt.Folder)
	if err != nil {
		return fd, err
	}
	fd.Head = head
	base := head
	if root.Commit != "" && head != "" {
		out, err := gitfiles.Git(ctx, wt.Folder, "merge-base", head, root.Commit)
		if err != nil {
			return fd, fmt.Errorf("merge base of %s and the indexed commit %s: %w", wt.Name, root.Commit, err)
		}
		base = strings.TrimSpace(string(out))
	}
	fd.Base = base
	rev := base
	if rev == "" {
		rev = "HEAD"
	}
	cs, err := indexing.Diff(ctx, wt.Folder, rev, nil, root, true)
	if err != nil {
		return fd, err
	}
	syms := map[string]bool{}
	if err := fp.st.Read(ctx, func(v state.View) {
		removed := query.RemovedSymbols(cs)
		ch := query.ChangesOf(ctx, v.Graph, cs, removed, query.WalkDependents(ctx, v.Graph, nil, 0), 0)
		for _, s := range ch.Changed {
			syms[s.UID] = true
		}
	}); err != nil {
		return fd, err
	}
	for _, f := range cs.Changes() {
		fd.Files = append(fd.Files, graph.RootPath(root.Name, f.Path()))
	}
	slices.Sort(fd.Files)
	fd.Files = slices.Compact(fd.Files)
	fd.Symbols = sortedKeys(syms)
	if len(fd.Files) > tasks.MaxDerivedFiles {
		fd.Files, fd.Truncated = fd.Files[:tasks.MaxDerivedFiles], true
	}
	if len(fd.Symbols) > tasks.MaxDerivedSymbols {
		fd.Symbols, fd.Truncated = fd.Symbols[:tasks.MaxDerivedSymbols], true
	}
	return fd, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
