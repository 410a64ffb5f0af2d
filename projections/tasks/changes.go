package tasks

import "github.com/cos-dev/cos/eventlog"

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
// keeps the newest MaxSymbolChanges).
func (b *Board) Changes(since uint64) (changes []SymbolChange, dropped bool) {
	return nil, false // implemented with the footprint reducer
}

// Active returns the tasks that take part in coordination, in id order:
// status neither done nor cancelled, with touches or a derived footprint.
func (b *Board) Active() []Task {
	return nil // implemented with the footprint reducer
}
