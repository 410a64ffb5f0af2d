package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/internal/pagecursor"
	"github.com/cos-dev/cos/query"
)

func graphTraceTool() *Tool {
	return &Tool{
		Name:  "cos_graph_trace",
		Title: "Trace a flow",
		Description: "Steps from an entry point or function: calls in source order, depth-first, interface calls " +
			"branching to implementations, recursion and repeats marked. Paged.",
		Data: Fields{"node": typ(query.NodeView{}), "processes": typ(query.Trace{}.Processes), "steps": typ(query.Trace{}.Steps), "branches": typ(query.Trace{}.Branches), "count": "integer",
			"limit": "integer", "next_cursor": "string", "walk_log_seq": "integer", "note": "string"},
		Module: "graph", Layer: envelope.LayerGraph, ReadOnly: true, Idempotent: true,
		Example: `{"uid": "code:function:cmd/main.go::main", "depth": 6, "max_steps": 200}`,
		Params: []Param{
			{Name: "uid", Type: TString, Required: true, NonEmpty: true, MaxLen: 1024},
			{Name: "depth", Type: TInt, Min: f64(1), Max: f64(query.TraceMaxDepth), Default: query.TraceDefaultDepth},
			{Name: "max_steps", Type: TInt, Min: f64(1), Max: f64(query.TraceMaxSteps), Default: query.TraceDefaultSteps},
			{Name: "include_tests", Type: TBool, Default: false},
			{Name: "limit", Type: TInt, Min: f64(1), Max: f64(graphPageMax), Default: graphPageDefault},
			{Name: "cursor", Type: TString, MaxLen: pagecursor.MaxLen, Minted: true},
		},
		Handler: traceTool,
	}
}

// traceTool answers cos_graph_trace (query.TraceFrom): the whole trace is
// walked on every page (it is bounded by max_steps), and the steps are
// paged by limit and cursor; a page lists the branches whose call step it
// holds.
func traceTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	res, err := c.Resolve(ctx, c.Args.Str("uid"), false)
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	tm := resolvedMeta(res)
	o := query.TraceOptions{
		MaxDepth:     c.Args.Int("depth", query.TraceDefaultDepth),
		MaxSteps:     c.Args.Int("max_steps", query.TraceDefaultSteps),
		IncludeTests: c.Args.Bool("include_tests", false),
	}
	tr, err := query.TraceFrom(ctx, c.V.Graph, res.Node, o)
	if errors.Is(err, query.ErrTraceStart) {
		return nil, tm, envelope.Errorf(envelope.CodeArgument, "%s is a node of kind %s: a trace starts at an entry point (with a handler), a function or a method",
			res.Node.UID, res.Node.Kind).WithDetails(map[string]any{"field": "uid", "kind": res.Node.Kind})
	}
	if err != nil {
		return nil, tm, err
	}
	tm.Completeness, tm.CompletenessReasons = tr.Completeness()
	tm.FallbackFiles = query.FallbackSample(c.V.Graph, tm.CompletenessReasons)
	limit := c.Args.Int("limit", graphPageDefault)
	digest := queryDigest("cos_graph_trace", res.Node.UID, []string{strconv.Itoa(o.MaxSteps)}, o.MaxDepth, o.IncludeTests)
	steps, p, err := pageOf(c, c.Args.Str("cursor"), digest, len(tr.Steps), limit, func(from, to int) []query.TraceStep {
		return tr.Steps[from:to]
	})
	if err != nil {
		return nil, tm, err
	}
	c.nameNode(query.ViewOf(res.Node))
	for _, s := range steps {
		c.NameFiles(s.File)
	}
	data := map[string]any{
		"node":         query.ViewOf(res.Node),
		"processes":    tr.Processes,
		"count":        len(tr.Steps),
		"steps":        steps,
		"branches":     tr.BranchesIn(p.From, p.From+p.Len),
		"next_cursor":  p.Next,
		"limit":        p.Limit,
		"walk_log_seq": p.WalkSeq,
	}
	if tr.Cut {
		data["note"] = fmt.Sprintf("the trace stopped at max_steps=%d: later calls are missing; raise max_steps, "+
			"or trace from the uid of a step to see below it", o.MaxSteps)
	}
	return data, tm, nil
}
