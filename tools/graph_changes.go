package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/query"
	"github.com/cos-dev/cos/state"
)

func graphChangesTool() *Tool {
	return &Tool{
		Name:        "cos_graph_changes",
		Title:       "Changes and their risk",
		Description: "Symbols changed since base (a git revision, or \"index\": the last index), their dependents, tests to run (as commands) and risk.",
		Data: Fields{"base": "string", "commit": "string", "root": "string", "depth": "integer", "count": "integer",
			"files": typ(query.Changes{}.Files), "changed": typ(query.Changes{}.Changed), "dependents": typ(query.Changes{}.Dependents),
			"counts_by_depth": typ(query.Changes{}.Counts), "tests": typ(query.Changes{}.Tests), "tests_to_run": typ(query.Changes{}.TestsToRun),
			"risk": typ(query.Changes{}.Risk), "refreshed": "[]string", "note": "string"},
		Module: "graph", Layer: envelope.LayerGraph, ReadOnly: false, Idempotent: true, WritesOnlyToRefresh: true,
		Example: `{"base": "HEAD", "depth": 2}`,
		Params: []Param{
			{Name: "base", Type: TString, NonEmpty: true, MaxLen: 256, Default: "HEAD"},
			{Name: "depth", Type: TInt, Min: f64(1), Max: f64(5), Default: 2},
		},
		Handler: changesTool,
	}
}

// changesTool answers cos_graph_changes: the diff (outside any view), the
// changed files indexed again when stale, then one view for the symbols,
// their dependents and the risk.
func changesTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	base := strings.TrimSpace(c.Args.Str("base"))
	if base == "" {
		base = "HEAD"
	}
	depth := c.Args.Int("depth", 2)
	root := c.changesRoot()
	if root == "" {
		return nil, envelope.ToolMeta{}, envelope.Errorf(envelope.CodeNotFound,
			"the graph has not been indexed from a folder yet; index the repository first (cos_graph_index or cos index)")
	}
	var (
		hashes map[string]string
		roots  []projections.IndexRun
	)
	if err := c.st.Read(ctx, func(v state.View) {
		hashes, roots = v.Graph.FileHashes(), v.Graph.Roots()
	}); err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	if len(roots) == 0 {
		roots = []projections.IndexRun{{Root: root}} // a log from before index runs were recorded
	}
	d, err := indexing.DiffRoots(ctx, roots, base, hashes)
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	// Removed symbols are gone from the files on disk: their dependents
	// are read before the files are indexed again, while the graph still
	// has the edges that point at them.
	removed := query.RemovedSymbols(d)
	var gone *query.Dependents
	if err := c.st.Read(ctx, func(v state.View) {
		gone = query.WalkDependents(ctx, v.Graph, removed.UIDs(), depth)
	}); err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	refreshed, warn := c.refreshChanged(ctx, d, hashes)

	var ch query.Changes
	tm := envelope.ToolMeta{SemanticScope: fmt.Sprintf("transitive_depth_%d", depth)}
	if err := c.st.Read(ctx, func(v state.View) {
		c.V = v
		ch = query.ChangesOf(ctx, v.Graph, d, removed, gone, depth)
		setCompleteness(&tm, ch.Completeness)
	}); err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	m := map[string]any{
		"depth":           depth,
		"files":           ch.Files,
		"changed":         ch.Changed,
		"dependents":      ch.Dependents,
		"counts_by_depth": ch.Counts,
		"count":           ch.Count,
		"tests":           ch.Tests,
		"tests_to_run":    ch.TestsToRun,
		"risk":            ch.Risk,
	}
	m["base"], m["commit"], m["root"] = base, d.Commit, root
	m["refreshed"] = refreshed
	if d.Note != "" {
		m["note"] = d.Note
	}
	if warn != "" {
		c.Warn(warn)
	}
	if err := ctx.Err(); err != nil {
		return nil, tm, err
	}
	return m, tm, nil
}

// changesRoot is the folder the graph was indexed from: its paths are
// relative to it.
func (c *Call) changesRoot() string {
	if c.ix == nil {
		return ""
	}
	if r := c.ix.IndexedRoot(); r != "" {
		return r
	}
	var root string
	c.st.View(func(v state.View) {
		if run, ok := v.Graph.LastIndex(); ok {
			root = run.Root
		}
	})
	return root
}

// refreshChanged indexes again the changed files whose content the graph
// does not hold (Call.Refresh), so the answer's lines and uids are
// current, and returns the paths it brought up to date. It never fails
// the call: when this server cannot write, or the run fails, the answer
// is computed on the graph as it is, with a warning.
func (c *Call) refreshChanged(ctx context.Context, d *indexing.ChangeSet, hashes map[string]string) ([]string, string) {
	var stale []string
	for _, f := range d.Files {
		if f.NewPath != "" && !d.Matches(f.NewPath, hashes[f.NewPath]) {
			stale = append(stale, f.NewPath)
		} else if _, held := hashes[f.NewPath]; f.NewPath != "" && !held {
			stale = append(stale, f.NewPath)
		}
		if f.OldPath != "" && f.OldPath != f.NewPath {
			if _, held := hashes[f.OldPath]; held {
				stale = append(stale, f.OldPath)
			}
		}
	}
	stale = slices.Compact(slices.Sorted(slices.Values(stale)))
	if len(stale) == 0 {
		return []string{}, ""
	}
	still, err := c.Refresh(ctx, stale)
	if err != nil {
		return []string{}, fmt.Sprintf("%d changed file(s) could not be indexed again (%v); lines may be off: %s",
			len(stale), err, strings.Join(firstPaths(stale, 5), ", "))
	}
	done := make([]string, 0, len(stale))
	for _, p := range stale {
		if !slices.Contains(still, p) {
			done = append(done, p)
		}
	}
	return done, ""
}

// firstPaths is the first n of l and how many more there are.
func firstPaths(l []string, n int) []string {
	if len(l) > n {
		return append(l[:n:n], fmt.Sprintf("and %d more", len(l)-n))
	}
	return l
}
