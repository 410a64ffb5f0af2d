package state

import (
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections"
)

// A graph overlay is what a process keeps over the shared graph and never
// appends to the log: the files of a git worktree that differ from the
// main tree's (indexing.Overlay). It lives in this process's graph
// projection only, so the state must be opened with Options.NoSnapshots.

// SetGraphOverlay registers fn, called with the graph locked for writing
// after each batch of log events is applied and before any read sees it,
// so that the overlay can apply its files again over what the log just
// replaced. fn must not call the state.
func (s *State) SetGraphOverlay(fn func(g *projections.Graph, pos projections.Position, evs []eventlog.Event)) {
	s.tailer.SetOverlay(func(evs []eventlog.Event) { fn(s.graph, s.tailer.Position(), evs) })
}

// MutateGraph runs fn with the graph locked for writing, serialised with
// the log's appliers; the position does not move. It is how an overlay
// changes this process's graph outside the log. fn must not call the
// state.
func (s *State) MutateGraph(fn func(g *projections.Graph, pos projections.Position)) {
	s.tailer.Mutate(func() { fn(s.graph, s.tailer.Position()) })
}

// NoSnapshots reports whether this state writes no snapshot
// (Options.NoSnapshots).
func (s *State) NoSnapshots() bool { return s.opts.NoSnapshots }
