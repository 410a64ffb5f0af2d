package tools

import (
	"context"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/projections"
)

func indexTools() []*Tool {
	return []*Tool{{
		Name:  "cos_graph_index",
		Title: "Index the repository",
		Description: "Index a folder (default: the repository); only changed files are extracted again. A folder inside a root " +
			"refreshes that part; another folder becomes a root (paths name//path).",
		Data:   Fields{"report": typ(indexing.Report{}), "graph": typ(projections.GraphCounts{}), "removed": typ(indexing.RootRemoval{})},
		Module: "graph", Layer: envelope.LayerGraph, Idempotent: true,
		Example: `{"path": ".", "precise": true}`,
		Params: []Param{
			{Name: "path", Type: TString, MaxLen: 4096},
			{Name: "precise", Type: TBool, Default: false, Description: "Python/TypeScript calls from installed SCIP indexers"},
			{Name: "force", Type: TBool, Default: false, Description: "extract unchanged files too"},
			{Name: "scip", Type: TStringList, MaxLen: maxSCIPFiles, Description: "SCIP index files to merge"},
			{Name: "name", Type: TString, MaxLen: 64, Description: "a new root's name"},
			{Name: "remove", Type: TString, MaxLen: 4096, Description: "root (name or folder) to take out"},
		},
		Handler: indexTool,
	}}
}

// maxSCIPFiles bounds cos_graph_index's scip list.
const maxSCIPFiles = 16

func indexTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	if which := c.Args.Str("remove"); c.Args.Has("remove") {
		if which == "" || c.Args.Has("path") || c.Args.Has("name") {
			return nil, envelope.ToolMeta{}, envelope.Errorf(envelope.CodeArgument, "remove names a root (its name, or primary) and comes alone, without path or name")
		}
		out, err := c.ix.RemoveRoot(ctx, which)
		if err == nil {
			err = c.ReadBack(ctx, out.LastSeq, func() {})
		}
		return map[string]any{"removed": out}, envelope.ToolMeta{}, err
	}
	root, err := c.ix.ApprovedPath(c.Args.Str("path"))
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	o := indexing.RunOptions{Precise: indexing.PreciseOptions{Run: c.Args.Bool("precise", false), Tools: c.ix.SCIPTools()},
		Force: c.Args.Bool("force", false), Report: indexProgress(ctx), Name: c.Args.Str("name")}
	for _, f := range c.Args.Strings("scip") {
		p, err := c.ix.ApprovedFile(f)
		if err != nil {
			return nil, envelope.ToolMeta{}, err
		}
		o.Precise.Indexes = append(o.Precise.Indexes, p)
	}
	rep, err := c.ix.IndexWith(ctx, root, o)
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	var counts projections.GraphCounts
	seq := max(rep.LastSeq, c.st.Position().Seq)
	if err := c.ReadBack(ctx, seq, func() { counts = c.V.Graph.Counts() }); err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	return map[string]any{"report": rep, "graph": counts}, envelope.ToolMeta{}, nil
}
