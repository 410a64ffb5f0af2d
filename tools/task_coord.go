package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/internal/pagecursor"
	"github.com/cos-dev/cos/projections/tasks"
	"github.com/cos-dev/cos/query"
)

// Coordination answers of the task tools: the overlaps a task write
// answers, the footprint, reach and changes cos_task_get answers, and the
// overlap ids of board rows. Each is computed inside one view, so it is a
// function of the state at that view's seq and `at` reproduces it.

// Limits of cos_task_get's coordination answer.
const (
	// taskGetSymbols is how many footprint symbols cos_task_get lists.
	taskGetSymbols = 20
	// taskGetNotices is how many changes under the task it lists, newest
	// first.
	taskGetNotices = 20
	// overlapsListed is how many overlaps a task write and cos_task_get
	// list, closest first: each carries up to query.MaxSharedListed shared
	// symbols, so a footprint that meets every task would otherwise
	// outgrow the envelope. overlap_count counts them all.
	overlapsListed = 10
)

// touchesParam is the touches argument of cos_task_create and
// cos_task_claim.
var touchesParam = Param{Name: "touches", Type: TStringList, NonEmpty: true, Description: "uids, paths or globs"}

// touchesArg returns the validated touches argument (tasks.ParseTouches),
// nil when it was not given.
func touchesArg(c *Call) ([]string, error) {
	if !c.Args.Has("touches") {
		return nil, nil
	}
	list := c.Args.Strings("touches")
	if list == nil {
		list = []string{}
	}
	raw, err := json.Marshal(list)
	if err != nil {
		return nil, err
	}
	l, err := tasks.ParseTouches(raw)
	if l == nil && err == nil {
		l = []string{}
	}
	return l, err
}

// claimedPayload is task.claimed of assignee, replacing the task's touches
// when touches is not nil.
func claimedPayload(assignee string, touches []string) (eventlog.Payload, error) {
	if touches == nil {
		return tasks.ClaimedPayload(assignee)
	}
	data, err := json.Marshal(tasks.Claimed{Assignee: assignee, Touches: touches})
	if err != nil {
		return eventlog.Payload{}, fmt.Errorf("encode %s: %w", tasks.TypeClaimed, err)
	}
	return eventlog.Payload{Type: tasks.TypeClaimed, Data: data}, nil
}

// taskWriteData is the Data of the task writes: overlaps is always a list.
func taskWriteData() Fields {
	f := fieldsOf(taskAnswer{})
	f["overlaps"] = typ([]query.Overlap{})
	return f
}

// overlapsOf returns the closest overlapsListed overlaps of task id in the
// current view (c.V), [] when none, and how many there are; the footprints
// and reaches are those kept for the view's position (boardCoordAt).
func overlapsOf(ctx context.Context, c *Call, id string) ([]query.Overlap, int) {
	o := boardCoordAt(c).Overlaps(context.WithoutCancel(ctx), c.V.Graph, c.V.Board, id)
	if o == nil {
		o = []query.Overlap{}
	}
	return o[:min(len(o), overlapsListed)], len(o)
}

// derivedAnswer is a task's derived footprint as cos_task_get shows it
// (without the per-symbol seqs).
type derivedAnswer struct {
	Worktree  string   `json:"worktree"`
	Base      string   `json:"base,omitempty"`
	Head      string   `json:"head,omitempty"`
	Files     []string `json:"files"`
	Symbols   []string `json:"symbols"`
	Seq       uint64   `json:"seq"`
	Truncated bool     `json:"truncated,omitempty"`
}

// footprintAnswer is the footprint part of cos_task_get.
type footprintAnswer struct {
	Touches     []string       `json:"touches"`
	Symbols     []string       `json:"symbols"`
	SymbolCount int            `json:"symbol_count"`
	Derived     *derivedAnswer `json:"derived,omitempty"`
}

// changesAnswer is changed_under_you: the newest notices, how many there
// are, and whether older ones were no longer kept.
type changesAnswer struct {
	Notices []query.Notice `json:"notices"`
	Total   int            `json:"total"`
	Dropped bool           `json:"dropped"`
}

// coordAnswer is the coordination part of cos_task_get.
type coordAnswer struct {
	Footprint       footprintAnswer `json:"footprint"`
	ReachCount      int             `json:"reach_count"`
	Overlaps        []query.Overlap `json:"overlaps"`
	OverlapCount    int             `json:"overlap_count"`
	ChangedUnderYou changesAnswer   `json:"changed_under_you"`
}

// coordinationOf builds the coordination answer of t in the current view.
func coordinationOf(ctx context.Context, c *Call, t tasks.Task) coordAnswer {
	g, b := c.V.Graph, c.V.Board
	symbols := query.FootprintSymbols(g, t)
	fp := footprintAnswer{Touches: t.Touches, Symbols: symbols[:min(len(symbols), taskGetSymbols)], SymbolCount: len(symbols)}
	if fp.Touches == nil {
		fp.Touches = []string{}
	}
	if fp.Symbols == nil {
		fp.Symbols = []string{}
	}
	if d := t.Footprint; d != nil {
		fp.Derived = &derivedAnswer{Worktree: d.Worktree, Base: d.Base, Head: d.Head, Files: d.Files,
			Symbols: d.Symbols, Seq: d.Seq, Truncated: d.Truncated}
	}
	reach := 0
	if len(symbols) > 0 {
		reach = query.WalkDependents(ctx, g, symbols, query.ReachDepth).Count()
	}
	notices, total, dropped := query.Notices(ctx, g, b, t.ID, taskGetNotices)
	if notices == nil {
		notices = []query.Notice{}
	}
	overlaps, overlapCount := overlapsOf(ctx, c, t.ID)
	return coordAnswer{Footprint: fp, ReachCount: reach, Overlaps: overlaps, OverlapCount: overlapCount,
		ChangedUnderYou: changesAnswer{Notices: notices, Total: total, Dropped: dropped}}
}

// overlapCursorPrefix marks a board cursor of an `overlapping` listing, so
// that a cursor is only valid for the filter it was issued for.
const overlapCursorPrefix = "o."

// boardCursorIn returns the board's cursor of the cursor argument, or
// STALE_CURSOR when it was issued with another `overlapping`. A cursor
// that is no cursor at all goes on to the board, which says so (E_CURSOR).
func boardCursorIn(cursor string, overlapping bool) (string, error) {
	if cursor == "" {
		return "", nil
	}
	inner, marked := strings.CutPrefix(cursor, overlapCursorPrefix)
	if marked != overlapping {
		if _, err := pagecursor.Decode(inner); err != nil {
			return inner, nil
		}
		return "", staleCursor("the cursor belongs to another filter")
	}
	return inner, nil
}

// boardCursorOut marks the next cursor of an `overlapping` listing.
func boardCursorOut(next string, overlapping bool) string {
	if next == "" || !overlapping {
		return next
	}
	return overlapCursorPrefix + next
}

// overlappingTotal counts the tasks of f that overlap another.
func overlappingTotal(b *tasks.Board, f tasks.Filter, ids map[string][]string) int {
	n := 0
	for id := range ids {
		t, ok := b.Get(id)
		if ok && f.Match(t) {
			n++
		}
	}
	return n
}

// boardCoord is the board's coordination in the current view: the ids
// each active task overlaps (computed on first use) and the count of
// changes under a task.
type boardCoord struct {
	ids    func() map[string][]string
	counts func(id string) int
}

// boardCoordOf returns the coordination of the view c.V, shared by every
// call at its position (Runner.boardCoords). It is computed without the
// call's cancellation: a part another call waits for is never cut short.
func boardCoordOf(ctx context.Context, c *Call) boardCoord {
	g, b := c.V.Graph, c.V.Board
	bc := boardCoordAt(c)
	ctx = context.WithoutCancel(ctx)
	return boardCoord{
		ids:    func() map[string][]string { return bc.OverlapIDs(ctx, g, b) },
		counts: func(id string) int { return bc.NoticeCount(ctx, g, b, id) },
	}
}

// boardCoordAt returns the coordination kept for the position of c.V; a
// new one for a Call without a Runner, and for a Runner serving a
// worktree, whose overlay changes the graph without a new seq.
func boardCoordAt(c *Call) *query.BoardCoord {
	if c.runner == nil || c.runner.worktree != nil {
		return query.NewBoardCoord()
	}
	return c.runner.boardCoords.at(c.V.Pos)
}

// boardPage lists up to limit rows of the board from cursor, each with the
// ids it overlaps and the count of changes under it. With overlapping it
// keeps only the rows that overlap, reading on through the board (in the
// same view) until limit rows are found or the board ends, so a page is
// short only at the end; its total
// counts the overlapping tasks of f. The overlaps are those of the view
// read, not of the walk's first page.
func boardPage(c *Call, f tasks.Filter, cursor string, limit int, overlapping bool,
	coord boardCoord) (tasks.Page, []boardRow, string, error) {
	rows := []boardRow{}
	var first tasks.Page
	for i := 0; ; i++ {
		page, next, err := c.V.Board.List(f, cursor, limit-len(rows), c.V.Pos.Seq)
		if err != nil {
			return tasks.Page{}, nil, "", err
		}
		if i == 0 {
			first = page
		}
		if !overlapping {
			for _, t := range page.Tasks {
				r := rowOf(t)
				r.Overlaps = slices.Clone(coord.ids()[t.ID])
				r.Changes = coord.counts(t.ID)
				rows = append(rows, r)
			}
			return first, rows, next, nil
		}
		ids := coord.ids()
		for _, t := range page.Tasks {
			r := rowOf(t)
			r.Overlaps = slices.Clone(ids[t.ID])
			if len(r.Overlaps) > 0 {
				r.Changes = coord.counts(t.ID)
				rows = append(rows, r)
			}
		}
		if next == "" || len(rows) == limit || len(ids) == 0 {
			if len(ids) == 0 {
				next = ""
			}
			first.Total = overlappingTotal(c.V.Board, f, ids)
			return first, rows, boardCursorOut(next, overlapping), nil
		}
		cursor = next
	}
}
