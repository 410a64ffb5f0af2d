package tools

import (
	"context"
	"slices"
	"strconv"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/internal/pagecursor"
	"github.com/cos-dev/cos/query"
)

// auditKinds are the values of cos_graph_audit's kinds: node kinds for
// dead and untested, cycle kinds for cycles.
var auditKinds = []string{"function", "method", query.CycleImport, query.CycleRecursion}

func graphAuditTool() *Tool {
	return &Tool{
		Name:  "cos_graph_audit",
		Title: "Dead, untested, cycles",
		Description: "dead: no main, init, test, entry point or exported API reaches it; untested: no test within depth; " +
			"cycles: import and call cycles. Paged.",
		Data: Fields{"check": "string", "findings": typ([]query.AuditFinding{}), "cycles": typ([]query.Cycle{}), "count": "integer", "listed": "integer",
			"limit": "integer", "summary": typ(query.AuditSummary{}), "next_cursor": "string", "walk_log_seq": "integer"},
		Module: "graph", Layer: envelope.LayerGraph, ReadOnly: true, Idempotent: true,
		Example: `{"check": "dead", "path": "internal/", "include_exported": false}`,
		Params: []Param{
			{Name: "check", Type: TString, Required: true, Enum: query.AuditChecks},
			{Name: "path", Type: TString, MaxLen: 1024},
			{Name: "kinds", Type: TStringList, Enum: auditKinds},
			{Name: "include_exported", Type: TBool, Default: true},
			{Name: "depth", Type: TInt, Min: f64(1), Max: f64(32), Default: query.DefaultUntestedDepth},
			{Name: "include_self", Type: TBool, Default: false},
			{Name: "limit", Type: TInt, Min: f64(1), Max: f64(graphPageMax), Default: graphPageDefault},
			{Name: "cursor", Type: TString, MaxLen: pagecursor.MaxLen, Minted: true},
		},
		Handler: auditTool,
	}
}

// auditTool answers cos_graph_audit (query.AuditFunctions, query.FindCycles),
// paged.
func auditTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	var tm envelope.ToolMeta
	opts := query.AuditOptions{
		Check:           c.Args.Str("check"),
		Path:            c.Args.Str("path"),
		Kinds:           c.Args.Strings("kinds"),
		IncludeExported: c.Args.Bool("include_exported", true),
		Depth:           c.Args.Int("depth", query.DefaultUntestedDepth),
		SelfRecursion:   c.Args.Bool("include_self", false),
	}
	if err := query.ValidatePathPattern(opts.Path); err != nil {
		return nil, tm, envelope.Errorf(envelope.CodeArgument, "path: got %q, expected a path prefix or a glob (*, ?, [a-z])", opts.Path).
			WithDetails(map[string]any{"field": "path", "got": opts.Path})
	}
	if w := query.PathFilterWarning(c.V.Graph, opts.Path); w != "" {
		tm.Warnings = append(tm.Warnings, w)
	}
	cycles := opts.Check == query.AuditCycles
	for _, k := range opts.Kinds {
		if slices.Contains(query.CycleKinds, k) != cycles {
			want := "function or method"
			if cycles {
				want = "import or recursion"
			}
			return nil, tm, envelope.Errorf(envelope.CodeArgument, "kinds: got %q, expected %s for check %q", k, want, opts.Check).
				WithDetails(map[string]any{"field": "kinds", "got": k, "check": opts.Check})
		}
	}
	limit := c.Args.Int("limit", graphPageDefault)
	flags := strconv.FormatBool(opts.IncludeExported) + "," + strconv.FormatBool(opts.SelfRecursion) + "," + opts.Path
	digest := queryDigest("cos_graph_audit", opts.Check+"|"+flags, opts.Kinds, opts.Depth, false)
	data := map[string]any{"check": opts.Check}
	var comp *query.Completeness
	if cycles {
		found, cc, err := query.FindCycles(ctx, c.V.Graph, opts)
		if err != nil {
			return nil, tm, err
		}
		comp = cc
		page, p, err := pageOf(c, c.Args.Str("cursor"), digest, len(found), limit,
			func(from, to int) []query.Cycle { return found[from:to] })
		if err != nil {
			return nil, tm, err
		}
		if page == nil {
			page = []query.Cycle{}
		}
		data["cycles"], data["count"], data["listed"] = page, len(found), len(page)
		data["next_cursor"], data["limit"], data["walk_log_seq"] = p.Next, p.Limit, p.WalkSeq
	} else {
		found, sum, cc, err := query.AuditFunctions(ctx, c.V.Graph, opts, opts.Check == query.AuditUntested)
		if err != nil {
			return nil, tm, err
		}
		comp = cc
		page, p, err := pageOf(c, c.Args.Str("cursor"), digest, len(found), limit,
			func(from, to int) []query.AuditFinding { return found[from:to] })
		if err != nil {
			return nil, tm, err
		}
		if page == nil {
			page = []query.AuditFinding{}
		}
		for _, f := range page {
			c.nameNode(f.NodeView)
		}
		data["findings"], data["summary"], data["count"], data["listed"] = page, sum, len(found), len(page)
		data["next_cursor"], data["limit"], data["walk_log_seq"] = p.Next, p.Limit, p.WalkSeq
	}
	setCompleteness(&tm, comp)
	return data, tm, nil
}
