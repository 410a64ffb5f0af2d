package query

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
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
// (a uid that names no node stays: it may appear later; a file's uid adds
// the file's symbols), the symbols of touched paths and globs, and the
// derived footprint's symbols; sorted, deduplicated.
func FootprintSymbols(g *projections.Graph, t tasks.Task) []string {
	var out []string
	var globs []string
	for _, s := range t.Touches {
		switch tasks.KindOfTouch(s) {
		case tasks.TouchUID:
			out = append(out, s)
			if n, ok := g.NodeHeader(s); ok && n.Kind == graph.KindFile && n.Path != "" {
				out = append(out, g.PathSymbols(n.Path)...)
			}
		case tasks.TouchGlob:
			globs = append(globs, s)
		default:
			out = append(out, pathSymbols(g, s)...)
		}
	}
	if len(globs) > 0 {
		for _, p := range g.Paths() {
			for _, gl := range globs {
				if tasks.MatchTouch(gl, p) {
					out = append(out, g.PathSymbols(p)...)
					break
				}
			}
		}
	}
	if t.Footprint != nil {
		out = append(out, t.Footprint.Symbols...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// pathSymbols returns the symbols of the file p, or of every file under
// the folder p.
func pathSymbols(g *projections.Graph, p string) []string {
	p = strings.TrimSuffix(p, "/")
	if p == "." || p == "" {
		var out []string
		for _, f := range g.Paths() {
			out = append(out, g.PathSymbols(f)...)
		}
		return out
	}
	out := g.PathSymbols(p)
	paths := g.Paths()
	prefix := p + "/"
	i, _ := slices.BinarySearch(paths, prefix)
	for ; i < len(paths) && strings.HasPrefix(paths[i], prefix); i++ {
		out = append(out, g.PathSymbols(paths[i])...)
	}
	return out
}

// coordTask is an active task with its footprint and reach, computed once
// per call.
type coordTask struct {
	t     tasks.Task
	fp    []string
	inFP  map[string]bool
	reach *Dependents
}

// coordOf resolves the footprint and reach of every active task; self is
// task id's (nil when id is not active).
func coordOf(ctx context.Context, g *projections.Graph, b *tasks.Board, id string) (all []*coordTask, self *coordTask) {
	if id != "" {
		if t, ok := b.Get(id); !ok || !t.IsActive() {
			return nil, nil
		}
	}
	// Tasks with the same footprint share its reach, walked once.
	byFP := map[string]*coordTask{}
	for _, t := range b.Active() {
		fp := FootprintSymbols(g, t)
		key := strings.Join(fp, "\x00")
		c, ok := byFP[key]
		if ok {
			c = &coordTask{t: t, fp: c.fp, inFP: c.inFP, reach: c.reach}
		} else {
			c = coordTaskOfFP(ctx, g, t, fp)
			byFP[key] = c
		}
		if t.ID == id {
			self = c
		}
		all = append(all, c)
	}
	return all, self
}

// coordTaskOf resolves the footprint and reach of t.
func coordTaskOf(ctx context.Context, g *projections.Graph, t tasks.Task) *coordTask {
	return coordTaskOfFP(ctx, g, t, FootprintSymbols(g, t))
}

// coordTaskOfFP is coordTaskOf with t's footprint fp already resolved.
func coordTaskOfFP(ctx context.Context, g *projections.Graph, t tasks.Task, fp []string) *coordTask {
	c := &coordTask{t: t, fp: fp}
	c.inFP = make(map[string]bool, len(c.fp))
	for _, u := range c.fp {
		c.inFP[u] = true
	}
	c.reach = WalkDependents(ctx, g, c.fp, ReachDepth)
	return c
}

// closenessRank orders closeness: same symbol, caller, dependent.
func closenessRank(c string) int {
	switch c {
	case CloseSameSymbol:
		return 0
	case CloseCaller:
		return 1
	}
	return 2
}

func compareShared(a, b SharedSymbol) int {
	if a.Depth != b.Depth {
		return a.Depth - b.Depth
	}
	if c := closenessRank(a.Closeness) - closenessRank(b.Closeness); c != 0 {
		return c
	}
	return strings.Compare(a.UID, b.UID)
}

// dependentShared returns uid as a shared symbol reached by the walk d,
// with the footprint symbol of the walk's roots it leads to.
func dependentShared(g *projections.Graph, d *Dependents, uid, dir string) (SharedSymbol, bool) {
	dep, ok := d.byUID[uid]
	if !ok {
		return SharedSymbol{}, false
	}
	cl := CloseDependent
	if dep.Depth == 1 && dep.Via == graph.EdgeCalls {
		cl = CloseCaller
	}
	of := dep.Through
	for range ReachDepth {
		next, ok := d.byUID[of]
		if !ok {
			break
		}
		of = next.Through
	}
	s := sharedOf(g, uid, cl, dep.Depth, dir)
	s.Of = of
	return s, true
}

func sharedOf(g *projections.Graph, uid, closeness string, depth int, dir string) SharedSymbol {
	s := SharedSymbol{UID: uid, Closeness: closeness, Depth: depth, Direction: dir}
	if n, ok := g.NodeHeader(uid); ok {
		s.Label, s.Path, s.Line = n.Label, n.Path, n.Line
	}
	return s
}

// overlap returns where t's and u's code meet, nil when it does not.
func overlap(g *projections.Graph, t, u *coordTask) *Overlap {
	var shared []SharedSymbol
	for _, s := range u.fp {
		if t.inFP[s] {
			shared = append(shared, sharedOf(g, s, CloseSameSymbol, 0, DirSame))
		} else if sh, ok := dependentShared(g, t.reach, s, DirTheirsOnYou); ok {
			shared = append(shared, sh)
		}
	}
	for _, s := range t.fp {
		if u.inFP[s] {
			continue
		}
		if sh, ok := dependentShared(g, u.reach, s, DirYoursOnThem); ok {
			shared = append(shared, sh)
		}
	}
	if len(shared) == 0 {
		return nil
	}
	slices.SortFunc(shared, compareShared)
	o := &Overlap{TaskID: u.t.ID, Title: u.t.Title, Holder: u.t.Assignee, Status: u.t.Status,
		Closeness: shared[0].Closeness, Depth: shared[0].Depth, SharedCount: len(shared)}
	o.Shared = shared[:min(len(shared), MaxSharedListed)]
	return o
}

// Overlaps returns the other active tasks whose footprint or reach meets
// task id's, closest first. Call it inside a view.
func Overlaps(ctx context.Context, g *projections.Graph, b *tasks.Board, id string) []Overlap {
	all, self := coordOf(ctx, g, b, id)
	return overlapsOf(g, all, self)
}

// overlapsOf returns the tasks of all whose code meets self's, closest
// first ([] when self is nil).
func overlapsOf(g *projections.Graph, all []*coordTask, self *coordTask) []Overlap {
	out := []Overlap{}
	if self == nil {
		return out
	}
	id := self.t.ID
	for _, u := range all {
		if u.t.ID == id {
			continue
		}
		if o := overlap(g, self, u); o != nil {
			out = append(out, *o)
		}
	}
	slices.SortFunc(out, func(a, b Overlap) int {
		if a.Depth != b.Depth {
			return a.Depth - b.Depth
		}
		if c := closenessRank(a.Closeness) - closenessRank(b.Closeness); c != 0 {
			return c
		}
		return strings.Compare(a.TaskID, b.TaskID)
	})
	return out
}

// OverlapIDs returns, for every active task that overlaps another, the
// ids it overlaps, sorted. Call it inside a view.
func OverlapIDs(ctx context.Context, g *projections.Graph, b *tasks.Board) map[string][]string {
	return NewBoardCoord().OverlapIDs(ctx, g, b)
}

// Notices returns the changes under task id since it became active (its
// claim, or its creation while unclaimed), newest first, at most limit, and
// how many there are in all; dropped is set when older changes were no
// longer kept. Call it inside a view.
func Notices(ctx context.Context, g *projections.Graph, b *tasks.Board, id string, limit int) (list []Notice, total int, dropped bool) {
	list = []Notice{}
	t, ok := b.Get(id)
	if !ok || !t.IsActive() {
		return list, 0, false
	}
	// Only this task's reach is walked: another task's derived footprint
	// is all a task notice reads of it.
	self := coordTaskOf(ctx, g, t)
	since := self.t.ClaimedSeq
	if since == 0 {
		since = self.t.CreatedSeq
	}
	// under returns uid as a symbol of the footprint or the reach.
	under := func(uid string) (SharedSymbol, bool) {
		if self.inFP[uid] {
			return sharedOf(g, uid, CloseSameSymbol, 0, DirSame), true
		}
		return dependentShared(g, self.reach, uid, DirTheirsOnYou)
	}
	finish := func(n Notice, changed []SharedSymbol) Notice {
		slices.SortFunc(changed, compareShared)
		n.ChangedCount = len(changed)
		n.Changed = changed[:min(len(changed), MaxSharedListed)]
		return n
	}
	changes, dropped := b.Changes(since)
	for _, c := range changes {
		var changed []SharedSymbol
		for _, uid := range c.UIDs {
			if s, ok := under(uid); ok {
				changed = append(changed, s)
			}
		}
		if len(changed) > 0 {
			list = append(list, finish(Notice{Seq: c.Seq, Kind: NoticeIndex, Path: c.Path, By: c.Actor}, changed))
		}
	}
	for _, u := range b.Active() {
		if u.ID == id || u.Footprint == nil {
			continue
		}
		bySeq := map[uint64][]SharedSymbol{}
		for _, uid := range u.Footprint.Symbols {
			at := u.Footprint.Since[uid]
			if at <= since {
				continue
			}
			if s, ok := under(uid); ok {
				bySeq[at] = append(bySeq[at], s)
			}
		}
		for at, changed := range bySeq {
			list = append(list, finish(Notice{Seq: at, Kind: NoticeTask, TaskID: u.ID, Holder: u.Assignee}, changed))
		}
	}
	slices.SortFunc(list, func(a, b Notice) int {
		if a.Seq != b.Seq {
			return cmp.Compare(b.Seq, a.Seq)
		}
		if a.Kind != b.Kind {
			return strings.Compare(a.Kind, b.Kind)
		}
		return strings.Compare(a.TaskID, b.TaskID)
	})
	total = len(list)
	if limit >= 0 && len(list) > limit {
		list = list[:limit]
	}
	return list, total, dropped
}
