package projections

import (
	"maps"
	"slices"

	"github.com/cos-dev/cos/eventlog"
)

// Overlays and the changes they hide. A process may put files of its own
// over the log's (a git worktree's changed files, package worktree):
// ApplyOverlay applies such an event. The symbols the log's own events
// change must still be told against the log's content — every process
// must record the same changes under a task — so, before an overlay first
// replaces a path, the graph keeps the path's symbols as the log left
// them (its shadow). A log event for a shadowed path is compared with the
// shadow instead of the overlay's version, and ends the shadow: the
// overlay applied again after it takes a fresh one.

// shadowFile is the log's version of an overlaid path: its symbols'
// states, and whether the log held the path at all.
type shadowFile struct {
	held bool
	syms map[string]symbolState
}

// ApplyOverlay applies ev — a graph.file_extracted or graph.file_removed
// that is not in the log — over the log's content of its path, keeping
// the log's symbols of that path (the shadow) so that LastChangedSymbols
// of later log events is told against them. Its own LastChangedSymbols
// are nil: an overlay changes nothing under a task.
func (g *Graph) ApplyOverlay(ev eventlog.Event, path string) error {
	if g.shadow == nil {
		g.shadow = map[string]*shadowFile{}
	}
	if g.shadow[path] == nil {
		sh := &shadowFile{held: len(g.byPath[path]) > 0, syms: map[string]symbolState{}}
		for _, o := range g.byPath[path] {
			for _, v := range o.nodes {
				if v.present && v.path == path && IsSymbolKind(v.kind) {
					sh.syms[v.uid] = stateOf(v)
				}
			}
		}
		g.shadow[path] = sh
	}
	g.overlaying = true
	defer func() { g.overlaying = false }()
	err := g.Apply(ev)
	g.lastChanged, g.lastRestored = g.lastChanged[:0], g.lastRestored[:0]
	return err
}

// DropOverlay forgets the shadow of path: the overlay no longer holds it
// and the graph holds the log's version again.
func (g *Graph) DropOverlay(path string) { delete(g.shadow, path) }

// noteShadowed records the changes of a log event on a shadowed path
// against the shadow — nodes are the event's (part 0) symbols, nil for a
// removal — and ends the shadow. It reports whether path was shadowed;
// if so the event's own comparison is skipped.
func (g *Graph) noteShadowed(path string, part int, nodes []normNode, removed bool) bool {
	sh := g.shadow[path]
	if sh == nil || g.overlaying {
		return false
	}
	g.lastPath = path
	delete(g.shadow, path)
	g.quietRelease = true
	if removed {
		g.lastChanged = append(g.lastChanged, slices.Collect(maps.Keys(sh.syms))...)
		return true
	}
	seen := map[string]bool{}
	for i := range nodes {
		n := &nodes[i]
		if !IsSymbolKind(n.Kind) || n.Path != path {
			continue
		}
		seen[n.UID] = true
		if s, ok := sh.syms[n.UID]; ok {
			if s.differs(n) {
				g.lastChanged = append(g.lastChanged, n.UID)
			}
		} else if sh.held {
			g.lastChanged = append(g.lastChanged, n.UID)
		}
	}
	if part == 0 {
		for uid := range sh.syms {
			if !seen[uid] {
				g.lastChanged = append(g.lastChanged, uid)
			}
		}
	}
	return true
}
