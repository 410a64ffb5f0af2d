package tools

import (
	"context"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/projections"
)

func indexTools() []*Tool {
	return []*Tool{{
		Name: "cos_graph_index",
		Description: "Index a folder of this repository into the code/doc graph: extract every changed file (by content hash) " +
			"and append it to the log; vanished files are removed. path defaults to the first approved root and must lie " +
			"inside an approved root (E_PATH otherwise). Returns files seen/changed/removed/failed, nodes, edges, events " +
			"and bytes appended, seconds and the slowest extractions. With precise or scip, Python, TypeScript and JavaScript " +
			"calls and references come from SCIP indexes for the files they cover, and report.precise says which files are precise. " +
			"With force, every file is extracted again even when its content did not change.",
		Module: "graph", Layer: envelope.LayerGraph, Idempotent: true,
		Example: `{"path": ".", "precise": true}`,
		Params: []Param{
			{Name: "path", Type: TString, MaxLen: 4096, Description: "folder to index, absolute or relative to the first approved root (default: that root)"},
			{Name: "precise", Type: TBool, Default: false, Description: "run the SCIP indexers installed on the server (scip-python, scip-typescript; " +
				"never installed by cos) and take Python, TypeScript and JavaScript calls and references from them for the files they " +
				"index; report.precise says which files are precise, which indexer is missing or failed"},
			{Name: "force", Type: TBool, Default: false, Description: "extract every file again, changed or not: brings back " +
				"nodes deleted with cos_graph_delete from files that did not change"},
			{Name: "scip", Type: TStringList, MaxLen: maxSCIPFiles, Description: "SCIP index files to merge (from any SCIP indexer), " +
				"each inside an approved root"},
		},
		Handler: indexTool,
	}}
}

// maxSCIPFiles bounds cos_graph_index's scip list.
const maxSCIPFiles = 16

func indexTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	root, err := c.ix.ApprovedPath(c.Args.Str("path"))
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	o := indexing.RunOptions{Precise: indexing.PreciseOptions{Run: c.Args.Bool("precise", false), Tools: c.ix.SCIPTools()},
		Force: c.Args.Bool("force", false), Report: indexProgress(ctx)}
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
