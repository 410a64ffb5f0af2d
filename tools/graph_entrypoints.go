package tools

import (
	"context"
	"slices"
	"strings"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/internal/pagecursor"
	"github.com/cos-dev/cos/query"
)

func graphEntrypointsTool() *Tool {
	return &Tool{
		Name:  "cos_graph_entrypoints",
		Title: "Entry points",
		Description: "HTTP routes, CLI commands, MCP tools, gRPC services, event handlers, WebSocket upgrades, main and " +
			"init, with their handlers' uids. Paged.",
		Data: Fields{"entrypoints": typ([]query.Entrypoint{}), "count": "integer", "listed": "integer", "limit": "integer",
			"count_by_kind": typ(query.Entrypoints{}.ByKind), "next_cursor": "string", "walk_log_seq": "integer"},
		Module: "graph", Layer: envelope.LayerGraph, ReadOnly: true, Idempotent: true,
		Example: `{"kinds": ["http", "main"], "path": "cmd"}`,
		Params: []Param{
			{Name: "kinds", Type: TStringList, Enum: query.EntryKinds},
			{Name: "path", Type: TString, MaxLen: 4096, Description: "folder, file or glob"},
			{Name: "limit", Type: TInt, Min: f64(1), Max: f64(graphPageMax), Default: graphPageDefault},
			{Name: "cursor", Type: TString, MaxLen: pagecursor.MaxLen, Minted: true},
		},
		Handler: entrypointsTool,
	}
}

// entrypointsTool answers cos_graph_entrypoints (query.ListEntrypoints),
// paged.
func entrypointsTool(_ context.Context, c *Call) (any, envelope.ToolMeta, error) {
	kinds := c.Args.Strings("kinds")
	f := query.EntrypointFilter{Kinds: kinds, Path: c.Args.Str("path")}
	var tm envelope.ToolMeta
	if err := query.ValidatePathPattern(f.Path); err != nil {
		return nil, tm, envelope.Errorf(envelope.CodeArgument, "path: got %q, expected a folder, a file or a glob (*, ?, [a-z])", f.Path).
			WithDetails(map[string]any{"field": "path", "got": f.Path})
	}
	if w := query.PathFilterWarning(c.V.Graph, f.Path); w != "" {
		tm.Warnings = append(tm.Warnings, w)
	}
	found := query.ListEntrypoints(c.V.Graph, f)
	tm.Completeness, tm.CompletenessReasons = found.Completeness, found.Reasons
	tm.FallbackFiles = query.FallbackSample(c.V.Graph, tm.CompletenessReasons)
	sorted := slices.Clone(kinds)
	slices.Sort(sorted)
	digest := pagecursor.Digest("cos_graph_entrypoints", strings.Join(sorted, ","), f.Path)
	rows := found.Rows
	page, p, err := pageOf(c, c.Args.Str("cursor"), digest, len(rows), c.Args.Int("limit", graphPageDefault),
		func(from, to int) []query.Entrypoint { return rows[from:to] })
	if err != nil {
		return nil, tm, err
	}
	for _, r := range page {
		c.NameFiles(r.File)
	}
	return map[string]any{
		"entrypoints":   page,
		"count":         len(rows),
		"listed":        len(page),
		"count_by_kind": found.ByKind,
		"next_cursor":   p.Next,
		"limit":         p.Limit,
		"walk_log_seq":  p.WalkSeq,
	}, tm, nil
}
