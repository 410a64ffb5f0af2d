package tools

import (
	"context"
	"os"
	"path/filepath"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/internal/pagecursor"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/query"
)

func graphDoctorTool() *Tool {
	return &Tool{
		Name:        "cos_graph_doctor",
		Title:       "Check the graph",
		Description: "Graph problems (dangling edges, orphans, stale files, …); fix deletes the fixable ones; list pages files read without types.",
		Data: Fields{"healthy": "boolean", "issues": typ(query.Diagnosis{}.Issues), "stats": typ(doctorStats{}), "fixed": typ(doctorFixed{}),
			"files": typ([]projections.FallbackFile{}), "count": "integer", "listed": "integer", "limit": "integer", "next_cursor": "string", "walk_log_seq": "integer"},
		Module: "graph", Layer: envelope.LayerGraph, Destructive: true, Idempotent: true,
		Example: `{"fix": false}`,
		Params: []Param{
			{Name: "fix", Type: TBool, Default: false},
			{Name: "list", Type: TString, Enum: []string{listFallbackFiles}},
			{Name: "limit", Type: TInt, Min: f64(1), Max: f64(graphPageMax)},
			{Name: "cursor", Type: TString, MaxLen: pagecursor.MaxLen, Minted: true},
		},
		Handler: doctorTool,
	}
}

// doctorTool answers cos_graph_doctor (query.Diagnose) and, with fix,
// deletes what the diagnosis plans.
func doctorTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	if c.Args.Str("list") != "" {
		return doctorList(ctx, c)
	}
	if c.Args.Str("cursor") != "" || c.Args.Has("limit") {
		return nil, envelope.ToolMeta{}, argError(c.Tool, "limit", "limit or cursor without list", `list: "`+listFallbackFiles+`" with limit and cursor`)
	}
	tm := envelope.ToolMeta{FixableCategories: query.DoctorFixable, InformationalCategories: query.DoctorInformational}
	// stale_paths needs to know where the files live: the roots given, or
	// the folder last indexed. A graph built without either (only agent
	// upserts) skips that check rather than calling every path stale.
	var exists func(p string) bool
	useRoots := c.ix.HasRoots() || c.ix.IndexedRoot() != ""
	var (
		body map[string]any
		plan *query.DoctorPlan
	)
	var changed []string
	if err := freshView(ctx, c, func() {
		if useRoots {
			m := indexing.NewPathMapper(c.V, c.ix.Roots())
			exists = func(p string) bool { fs, rel := m.Map(p); return existsUnder(fs, rel) }
		}
		changed = c.changedOnDisk(ctx)
		body, plan = doctorBody(query.Diagnose(c.V.Graph, exists, changed))
	}); err != nil {
		return nil, tm, err
	}
	if !c.Args.Bool("fix", false) {
		return body, tm, nil
	}
	if plan.Empty() {
		body["fixed"] = doctorFixed{Removed: map[string]int{}}
		return body, tm, nil
	}
	req := eventlog.AppendRequest{Stream: graph.Stream}
	if len(plan.Edges) > 0 {
		req.Events = append(req.Events, mustPayload(graph.TypeEdgesDeleted, graph.EdgesDeleted{Edges: plan.Edges}))
	}
	if len(plan.Nodes) > 0 {
		req.Events = append(req.Events, mustPayload(graph.TypeNodesDeleted, graph.NodesDeleted{UIDs: plan.Nodes}))
	}
	for _, p := range plan.Files {
		req.Events = append(req.Events, mustPayload(graph.TypeFileRemoved, graph.FileRemoved{Path: p}))
	}
	rcs, err := c.Append(ctx, req)
	if err != nil {
		return nil, tm, err
	}
	if err := c.ReadBack(ctx, rcs[0].LastSeq, func() { body, _ = doctorBody(query.Diagnose(c.V.Graph, exists, c.changedOnDisk(ctx))) }); err != nil {
		return nil, tm, err
	}
	rc, edges, nodes, files := receiptOf(rcs[0]), len(plan.Edges), len(plan.Nodes), plan.Files
	if files == nil {
		files = []string{}
	}
	body["fixed"] = doctorFixed{Receipt: &rc, Removed: plan.Removed, EdgesDeleted: &edges, NodesDeleted: &nodes, FilesRemoved: &files}
	return body, tm, nil
}

// doctorFixed is data.fixed of a fix: what it deleted, by category
// (Removed) and in all, with the write's receipt; a fix with nothing to
// delete says only Removed, empty. Fields are in JSON key order.
type doctorFixed struct {
	EdgesDeleted *int           `json:"edges_deleted,omitempty"`
	FilesRemoved *[]string      `json:"files_removed,omitempty"`
	NodesDeleted *int           `json:"nodes_deleted,omitempty"`
	Receipt      *writeReceipt  `json:"receipt,omitempty"`
	Removed      map[string]int `json:"removed"`
}

// doctorStats is data.stats: the findings (real ones, every one) and the
// graph's sizes. Fields are in JSON key order.
type doctorStats struct {
	Edges           int `json:"edges"`
	Files           int `json:"files"`
	IssueCount      int `json:"issue_count"`
	IssueCountTotal int `json:"issue_count_total"`
	Nodes           int `json:"nodes"`
}

// existsUnder reports whether the repo-relative p is a file under one of
// roots. A path the indexer stored under its Latin-1 reading (a file name
// that is not valid UTF-8: "bad\xff.go" is stored as "badÿ.go") is also
// looked for under its bytes on disk (indexing.OnDisk).
func existsUnder(roots []string, p string) bool {
	for _, r := range roots {
		if _, err := os.Stat(filepath.Join(r, filepath.FromSlash(indexing.OnDisk(r, p)))); err == nil {
			return true
		}
	}
	return false
}

// doctorBody is the answer of cos_graph_doctor for d, and d's fix plan.
func doctorBody(d query.Diagnosis) (map[string]any, *query.DoctorPlan) {
	return map[string]any{
		"healthy": d.Healthy,
		"issues":  d.Issues,
		"stats":   doctorStats{Edges: d.Edges, Files: d.Files, IssueCount: d.IssueCount, IssueCountTotal: d.IssueCountTotal, Nodes: d.Nodes},
	}, d.Plan
}

// listFallbackFiles is the list of cos_graph_doctor that pages the Go files
// an answer's completeness_reasons.syntax_fallback_files counts.
const listFallbackFiles = "syntax_fallback_files"

// doctorList answers cos_graph_doctor with list: the files, paged, each
// with its fallback reason (load_error, type_error, syntax_error,
// incomplete_package) and the first error behind it. fix is refused with
// it.
func doctorList(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	var tm envelope.ToolMeta
	if c.Args.Bool("fix", false) {
		return nil, tm, argError(c.Tool, "fix", "true with list", "fix without list, or list without fix")
	}
	var (
		data map[string]any
		err  error
	)
	if ferr := freshView(ctx, c, func() {
		files := c.V.Graph.LowerBoundFiles()
		digest := pagecursor.Digest("cos_graph_doctor", listFallbackFiles)
		var page []projections.FallbackFile
		var p graphPage
		page, p, err = pageOf(c, c.Args.Str("cursor"), digest, len(files), c.Args.Int("limit", graphPageDefault),
			func(from, to int) []projections.FallbackFile { return files[from:to] })
		if err != nil {
			return
		}
		if page == nil {
			page = []projections.FallbackFile{}
		}
		data = map[string]any{"files": page, "count": len(files), "listed": len(page), "limit": p.Limit,
			"next_cursor": p.Next, "walk_log_seq": p.WalkSeq}
	}); ferr != nil {
		return nil, tm, ferr
	}
	if err != nil {
		return nil, tm, err
	}
	return data, tm, nil
}
