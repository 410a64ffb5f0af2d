package query

import (
	"context"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/projections/tasks"
)

// Coordination by blast radius: which active tasks' code meets, and what
// changed under a task. Every function here is a pure function of the
// graph and the board at one log position, so `cos replay` at a seq answers
// what a live read at that seq answered.

// ReachDepth is how far a footprint's reach goes: its symbols' dependents
// up to this many hops (the impact walk of cos_graph_impact).
const ReachDepth = 2

// Closeness of two tasks' code.
const (
	// CloseSameSymbol: both footprints hold the symbol (depth 0).
	CloseSameSymbol = "same_symbol"
	// CloseCaller: one footprint's symbol calls the other's directly.
	CloseCaller = "caller"
	// CloseDependent: a dependent at depth 1 by another edge, or deeper.
	CloseDependent = "dependent"
)

// Directions of a shared symbol.
const (
	DirSame        = "same"                    // in both footprints
	DirTheirsOnYou = "theirs_depends_on_yours" // their symbol depends on one of yours
	DirYoursOnThem = "yours_depends_on_theirs" // your symbol depends on one of theirs
)

// SharedSymbol is one symbol where two tasks' code meets.
type SharedSymbol struct {
	UID       string `json:"uid"`
	Label     string `json:"label,omitempty"`
	Path      string `json:"path,omitempty"`
	Line      int    `json:"line,omitempty"`
	Closeness string `json:"closeness"`
	Depth     int    `json:"depth"`
	Direction string `json:"direction"`
	// Of is the footprint symbol of the other side it depends on, or that
	// depends on it (empty for same_symbol).
	Of string `json:"of,omitempty"`
}

// Overlap is another active task whose footprint or reach meets this one's.
type Overlap struct {
	TaskID string `json:"task_id"`
	Title  string `json:"title"`
	Holder string `json:"holder,omitempty"`
	Status string `json:"status"`
	// Closeness and Depth are those of the closest shared symbol.
	Closeness string `json:"closeness"`
	Depth     int    `json:"depth"`
	// Shared lists the closest shared symbols first (at most
	// MaxSharedListed); SharedCount counts them all.
	Shared      []SharedSymbol `json:"shared"`
	SharedCount int            `json:"shared_count"`
}

// MaxSharedListed is how many shared symbols an Overlap or a Notice lists.
const MaxSharedListed = 10

// Notice kinds.
const (
	// NoticeIndex: a graph event (an index of a commit, a pull, another
	// agent's edits) changed symbols in the footprint or reach.
	NoticeIndex = "index"
	// NoticeTask: another task's derived footprint came to hold symbols in
	// the footprint or reach (another agent changed them in its work tree).
	NoticeTask = "task"
)

// Notice is one change under a task (changed_under_you).
type Notice struct {
	Seq  uint64 `json:"seq"`
	Kind string `json:"kind"`
	// Path is the file of an index notice.
	Path string `json:"path,omitempty"`
	// TaskID and Holder name the other task of a task notice.
	TaskID string `json:"task_id,omitempty"`
	Holder string `json:"holder,omitempty"`
	// By is who appended the event.
	By eventlog.Actor `json:"by"`
	// Changed are the changed symbols in the footprint (depth 0,
	// closeness same_symbol) or the reach, closest first (at most
	// MaxSharedListed); ChangedCount counts them all.
	Changed      []SharedSymbol `json:"changed"`
	ChangedCount int            `json:"changed_count"`
}

// FootprintSymbols resolves a task's footprint on g: the uids of touches
// that name nodes, the symbols of touched paths and globs, and the
// derived footprint's symbols; sorted, deduplicated.
func FootprintSymbols(g *projections.Graph, t tasks.Task) []string {
	return nil // implemented by the coordination change
}

// Overlaps returns the other active tasks whose footprint or reach meets
// task id's, closest first. Call it inside a view.
func Overlaps(ctx context.Context, g *projections.Graph, b *tasks.Board, id string) []Overlap {
	return nil // implemented by the coordination change
}

// OverlapIDs returns, for every active task that overlaps another, the
// ids it overlaps, sorted. Call it inside a view.
func OverlapIDs(ctx context.Context, g *projections.Graph, b *tasks.Board) map[string][]string {
	return nil // implemented by the coordination change
}

// Notices returns the changes under task id since it became active (its
// claim, or its creation while unclaimed), newest first, at most limit, and
// how many there are in all; dropped is set when older changes were no
// longer kept. Call it inside a view.
func Notices(ctx context.Context, g *projections.Graph, b *tasks.Board, id string, limit int) (list []Notice, total int, dropped bool) {
	return nil, 0, false // implemented by the coordination change
}
