package tools

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/internal/pagecursor"
	"github.com/cos-dev/cos/query"
)

// This file is what cos_graph_references and cos_graph_impact share:
// paging a listing, and meta.completeness (query.Completeness).

// setCompleteness fills tm's completeness keys from c.
func setCompleteness(tm *envelope.ToolMeta, c *query.Completeness) {
	tm.Completeness, tm.CompletenessReasons = c.Meta()
	tm.FallbackFiles = c.FallbackSample(tm.CompletenessReasons)
}

// Page sizes of cos_graph_references and cos_graph_impact.
const (
	graphPageDefault = 100
	graphPageMax     = 1000
)

// graphPage is one page of a listing of n items: items [From, From+Len).
type graphPage struct {
	From, Len int
	// Next is next_cursor: empty when the page ends the listing.
	Next string
	// WalkSeq is the log seq the whole listing is consistent with: the
	// first page's.
	WalkSeq uint64
	// Limit is the page size used: the caller's limit, or less when the
	// page was shortened to fit the budget.
	Limit int
}

// pageStart decodes cursor (empty: the first page) for a listing of n items
// whose query digest is query. A malformed cursor is E_CURSOR; one of
// another query or from a log position this view has not reached is
// STALE_CURSOR; one from before the graph last changed is STALE_CURSOR
// too (movedCursor), which the Runner serves from the state at the
// cursor's seq instead.
func pageStart(c *Call, cursor string, query [8]byte, n int) (from int, walkSeq uint64, err error) {
	if cursor == "" {
		return 0, c.V.Pos.Seq, nil
	}
	cur, err := decodeCursor(cursor)
	if err != nil {
		return 0, 0, err
	}
	stale := staleCursor
	switch last := c.V.Graph.LastChange(c.V.Pos.Seq); {
	case cur.Query != query:
		return 0, 0, stale("it belongs to another question: another tool, or other arguments than the first page's")
	case cur.Seq > c.V.Pos.Seq:
		return 0, 0, stale(fmt.Sprintf("it is from log seq %d, this view is at %d", cur.Seq, c.V.Pos.Seq))
	case last > cur.Seq:
		return 0, 0, movedCursor(fmt.Sprintf("the graph changed at log seq %d, after the cursor's %d", last, cur.Seq))
	case cur.After > uint64(n):
		return 0, 0, stale(fmt.Sprintf("it points past the %d items of the answer", n))
	}
	return int(cur.After), cur.Seq, nil
}

// pageOf cuts the page of n items that starts at the cursor: at most limit
// items, fewer when their views (built by view) would not fit in the
// envelope budget — a page the envelope trimmed would lose items the next
// cursor skips.
func pageOf[T any](c *Call, cursor string, query [8]byte, n, limit int, view func(from, to int) []T) ([]T, graphPage, error) {
	var items []T
	_, p, err := pageShaped(c, cursor, query, n, limit, view, func(v []T) any { items = v; return v })
	return items, p, err
}

// pageShaped is pageOf for an answer that shows a page's items as
// shape(items) (a compact form): the budget is measured on the shape, and
// the shape of the page is returned.
func pageShaped[T any](c *Call, cursor string, query [8]byte, n, limit int, view func(from, to int) []T, shape func([]T) any) (any, graphPage, error) {
	from, walkSeq, err := pageStart(c, cursor, query, n)
	if err != nil {
		return nil, graphPage{}, err
	}
	size := min(limit, n-from)
	items := view(from, from+size)
	shown := shape(items)
	for size > 1 {
		total, fit := rowsFit(c, shown)
		if fit {
			break
		}
		size = min(size-1, max(1, int(float64(size)*boardBudget(c)*boardFitShare/float64(total))))
		items = items[:size]
		shown = shape(items)
		limit = size
		c.cutPage()
	}
	p := graphPage{From: from, Len: size, WalkSeq: walkSeq, Limit: limit}
	if from+size < n {
		p.Next = pagecursor.Cursor{Seq: walkSeq, Query: query, After: uint64(from + size)}.Encode()
	}
	return shown, p, nil
}

// cutPage records that the budget shortened a page below its limit:
// meta.page_cut "budget" and meta.page_budget_chars.
func (c *Call) cutPage() { c.pageBudget = int(boardBudget(c)) }

// pageParams are the paging arguments of cos_graph_references and
// cos_graph_impact.
func pageParams() []Param {
	return []Param{
		{Name: "include_tests", Type: TBool, Default: true},
		{Name: "limit", Type: TInt, Min: f64(1), Max: f64(graphPageMax), Default: graphPageDefault},
		{Name: "cursor", Type: TString, MaxLen: pagecursor.MaxLen, Minted: true},
	}
}

// queryDigest is the identity of a paged question inside its cursors; list
// arguments are sorted so their order does not matter. extra are the
// tool's other arguments (scopeDigest, …).
func queryDigest(tool, root string, types []string, depth int, includeTests bool, extra ...string) [8]byte {
	sorted := slices.Clone(types)
	slices.Sort(sorted)
	return pagecursor.Digest(append([]string{tool, root, strings.Join(sorted, ","), strconv.Itoa(depth), strconv.FormatBool(includeTests)}, extra...)...)
}
