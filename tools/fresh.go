package tools

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/query"
	"github.com/cos-dev/cos/state"
)

// Read-your-edits: a graph read answers from files that are what the graph
// holds. After the handler of a graph read tool answers, the files its
// answer names, which the handler declares (Call.NameFiles), are
// checked cheaply (indexing.Freshness); when some changed on disk and this
// server can write, they are re-indexed, and the handler runs once more in
// a view that includes the run. meta.index says how fresh the answer is.

// graphRead reports whether t is a read tool of the graph module: its
// answers name files, and get meta.index.
func graphRead(t *Tool) bool { return t.Module == "graph" && t.ReadOnly }

// readGraph runs the graph read tool of c (handler, freshness check, at
// most one re-index and a second run of the handler). rerr is the error of
// the first view (the call fails with it); err is the handler's.
func (r *Runner) readGraph(ctx context.Context, c *Call) (data any, tm envelope.ToolMeta, err, rerr error) {
	var (
		chk  indexing.Check
		cerr error
		why  string // why nothing was found, when the graph is empty or filling
		fill bool   // the graph is filling: a retry may find it
	)
	defer func() { err = notFoundBecause(err, why, fill) }()
	if r.worktree != nil {
		return r.readWorktree(ctx, c)
	}
	run := func() error {
		return r.st.Read(ctx, func(v state.View) {
			c.V, c.inView = v, true
			defer func() { c.inView = false }()
			c.files = nil
			data, tm, err = c.Tool.Handler(ctx, c)
			chk, cerr = indexing.Check{}, nil
			if err == nil && r.fresh != nil {
				chk, cerr = r.fresh.StaleHeld(v, c.files)
				c.index = indexing.IndexMeta(v, chk, cerr)
			} else if err != nil {
				why, fill = r.ix.NotFoundReason(v)
			}
		})
	}
	if rerr := run(); rerr != nil {
		return nil, tm, nil, rerr
	}
	if err != nil && why == "" && r.fresh != nil && ToEnvelopeError(err).Code == envelope.CodeNotFound {
		// A not-found names no file to check, but what was asked for may
		// be in a file written since the last index (a function just
		// added): bring every changed file in, then ask once more.
		if pending := r.pendingFiles(ctx); len(pending) > 0 {
			if seq, ierr := r.reindex(ctx, pending); ierr == nil && r.st.WaitFor(ctx, seq) == nil {
				if rerr := run(); rerr != nil {
					return nil, tm, nil, rerr
				}
			}
		}
	}
	if err != nil || cerr != nil || len(chk.Stale) == 0 {
		return data, tm, err, nil
	}
	stale := chk.Stale
	if why := r.cannotReindex(chk.Reindex); why != "" {
		tm.Warnings = append(tm.Warnings, indexing.StaleWarning(stale, why))
		return data, tm, nil, nil
	}
	seq, ierr := r.reindex(ctx, chk.Reindex)
	if ierr != nil {
		tm.Warnings = append(tm.Warnings, indexing.StaleWarning(stale, "re-indexing them failed: "+ierr.Error()))
		return data, tm, nil, nil
	}
	if werr := r.st.WaitFor(ctx, seq); werr != nil {
		tm.Warnings = append(tm.Warnings, indexing.StaleWarning(stale, "the re-index committed, but this answer could not wait for it: "+werr.Error()))
		return data, tm, nil, nil
	}
	first, firstTM, firstIndex := data, tm, c.index
	if rerr := run(); rerr != nil {
		firstTM.Warnings = append(firstTM.Warnings, indexing.StaleWarning(stale, "they were re-indexed, but the graph could not be read again: "+rerr.Error()))
		c.index = firstIndex
		return first, firstTM, nil, nil
	}
	if err == nil && len(chk.Stale) > 0 {
		tm.Warnings = append(tm.Warnings, indexing.StaleWarning(chk.Stale, "they still differ after re-indexing (changed again meanwhile, or indexing skips them)"))
	}
	return data, tm, err, nil
}

// refreshLockWait bounds how long a read waits for another index run (the
// watcher's, another client's) before it answers from the graph as it is,
// with a warning: a read is not held up by a long run.
const refreshLockWait = 2 * time.Second

// pendingFiles returns every file an index of the graph's roots would
// look at again (changed, gone, or new and kept by git), by root folder;
// none when the graph records no index run.
func (r *Runner) pendingFiles(ctx context.Context) map[string][]string {
	var ts []indexing.Target
	if err := r.st.Read(ctx, func(v state.View) { ts = r.fresh.Targets(v) }); err != nil {
		return nil
	}
	out := map[string][]string{}
	for _, t := range ts {
		if r.cannotReindex(map[string][]string{t.Root: nil}) != "" {
			continue // nothing could come of the scan
		}
		if paths, err := r.fresh.Pending(ctx, t); err == nil && len(paths) > 0 {
			out[t.Root] = paths
		}
	}
	return out
}

// reindex indexes the paths of each root folder of byRoot (targeted runs,
// each waiting at most refreshLockWait for another run) and returns the
// seq the projections must reach for the answer to include them.
func (r *Runner) reindex(ctx context.Context, byRoot map[string][]string) (uint64, error) {
	return r.ix.IndexPaths(ctx, byRoot, indexing.RunOptions{Report: indexProgress(ctx), LockWait: refreshLockWait})
}

// cannotReindex says why this server cannot re-index the graph's files
// under the root folders of byRoot, or "" when it can.
func (r *Runner) cannotReindex(byRoot map[string][]string) string {
	for _, root := range slices.Sorted(maps.Keys(byRoot)) {
		if why := r.cannotReindexRoot(root); why != "" {
			return why
		}
	}
	return ""
}

func (r *Runner) cannotReindexRoot(root string) string {
	switch {
	case r.st.ReadOnly():
		return fmt.Sprintf("this server is a read-only view of the log at seq %d and does not re-index", r.st.Position().Seq)
	case !r.st.Writable():
		return fmt.Sprintf("the state folder %s is read-only, so they cannot be re-indexed", r.st.Dir())
	case r.ix == nil:
		return "this server has no indexer"
	case root == "":
		return "the graph does not say which folder it was indexed from"
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return fmt.Sprintf("the indexed folder %s is not there", root)
	}
	return ""
}

// notFoundBecause adds why (indexing.Indexer.NotFoundReason) to an
// E_NOT_FOUND, keeping its details, retryable while the graph is filling;
// other errors pass unchanged.
func notFoundBecause(err error, why string, filling bool) error {
	if err == nil || why == "" {
		return err
	}
	ee := ToEnvelopeError(err)
	if ee.Code != envelope.CodeNotFound {
		return err
	}
	out := envelope.Wrap(err, envelope.CodeNotFound, "%s; %s", ee.Message, why).WithDetails(ee.Details)
	out.Retryable = filling
	return out
}

// errInView is returned by Refresh called from inside a view, where
// waiting for a re-index would deadlock.
var errInView = errors.New("Refresh was called inside a view; a tool that refreshes first must not be ReadOnly")

// Refresh brings the graph up to date with the disk for paths —
// repo-relative, slash-separated paths of the graph's indexed root, new
// files included — before a handler computes its answer: it checks them
// (indexing.Freshness.Stale), re-indexes the stale ones when this server
// can write (a targeted run) and waits until the projections include the
// run. It returns the paths still stale afterwards, sorted, and records
// their count for meta.index.
//
// A non-nil error means the stale paths could not be re-indexed (a
// read-only server, a read-only state folder, a failed run, ctx ended):
// the answer should stand from the graph as it is, with the error as a
// warning (Call.Warn), never fail because of it. It is an error too when
// the graph records no index run (indexing.ErrNoIndexRun; stale is then
// nil). Call it outside any view: a ReadOnly tool's handler runs inside
// one, so a tool that refreshes first is not ReadOnly and reads with its
// own views.
func (c *Call) Refresh(ctx context.Context, paths []string) (stale []string, err error) {
	if c.inView {
		return nil, errInView
	}
	if c.runner.worktree != nil {
		return nil, c.runner.worktree.Sync(ctx)
	}
	if c.fresh == nil {
		return nil, errors.New("this server does not check files against the graph")
	}
	var (
		chk  indexing.Check
		cerr error
	)
	check := func() error {
		return c.st.Read(ctx, func(v state.View) {
			chk, cerr = c.fresh.Stale(v, paths)
			c.index = indexing.IndexMeta(v, chk, cerr)
		})
	}
	if err := check(); err != nil {
		return nil, err
	}
	if cerr != nil {
		return nil, cerr
	}
	if len(chk.Stale) == 0 {
		return nil, nil
	}
	if why := c.runner.cannotReindex(chk.Reindex); why != "" {
		return chk.Stale, errors.New(why)
	}
	seq, err := c.runner.reindex(ctx, chk.Reindex)
	if err != nil {
		return chk.Stale, fmt.Errorf("re-index: %w", err)
	}
	if err := c.st.WaitFor(ctx, seq); err != nil {
		return chk.Stale, err
	}
	before := chk.Stale
	if err := check(); err != nil {
		return before, err
	}
	return chk.Stale, cerr
}

// Warn adds a line to the answer's meta.warnings: something the caller
// should know about an answer that stands (the graph could not be brought
// up to date, …).
func (c *Call) Warn(msg string) { c.warnings = append(c.warnings, msg) }

// NameFiles declares files the answer names (repo-relative paths; "" is
// ignored): the files a graph read checks against the disk after its
// handler answers. Every handler of a graph read tool (graphRead) declares
// each file its answer names — the path and file fields of its nodes,
// candidates and sites, and the "path" and "file" keys of the metadata it
// shows (nameNode, nameMetadata); a file left out is never checked, so an
// answer naming it may show lines the disk no longer holds.
func (c *Call) NameFiles(paths ...string) {
	for _, p := range paths {
		if p != "" {
			c.files = append(c.files, p)
		}
	}
}

// nameNode declares the files a node view names: its path, and any string
// under a "path" or "file" key in its metadata.
func (c *Call) nameNode(n query.NodeView) {
	c.NameFiles(n.Path)
	c.nameMetadata(n.Metadata)
}

// nameNodes declares the files of each node view.
func (c *Call) nameNodes(ns []query.NodeView) {
	for _, n := range ns {
		c.nameNode(n)
	}
}

// nameMetadata declares every string held under a "path" or "file" key
// anywhere in a node's or an edge's metadata (a generic JSON tree, at most
// metadataDepth levels deep).
func (c *Call) nameMetadata(m map[string]any) {
	if len(m) > 0 {
		c.nameIn(m, 0)
	}
}

// metadataDepth bounds the nesting nameMetadata follows.
const metadataDepth = 24

func isPathKey(k string) bool { return k == "path" || k == "file" }

func (c *Call) nameIn(v any, depth int) {
	if depth > metadataDepth {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if !isPathKey(k) {
				c.nameIn(e, depth+1)
			} else if s, ok := e.(string); ok {
				c.NameFiles(s)
			} else {
				c.nameIn(e, 1)
			}
		}
	case []any:
		for _, e := range x {
			c.nameIn(e, depth+1)
		}
	}
}

// changedOnDisk returns the graph's files that changed on disk since they
// were indexed (cos_graph_doctor's changed_on_disk) and sets meta.index
// with their count. Call it inside the view c.V; nil when the graph
// records no index run.
func (c *Call) changedOnDisk(ctx context.Context) []string {
	if c.fresh == nil {
		return nil
	}
	t, ok := c.fresh.Target(c.V)
	if !ok {
		c.index = nil
		return nil
	}
	var changed []string
	for _, rt := range c.fresh.Targets(c.V) {
		paths, err := c.fresh.Changed(ctx, rt)
		if err != nil {
			return nil
		}
		for _, p := range paths {
			changed = append(changed, graph.RootPath(rt.Name, p))
		}
	}
	slices.Sort(changed)
	c.index = &envelope.Index{Root: t.Root, Commit: t.Commit, IndexedSeq: t.IndexedSeq, StaleFiles: len(changed)}
	return changed
}

// freshTargets are what cos_health's freshness scan compares with, one
// per root; none when the graph records no index run. Call it inside the
// view c.V.
func (c *Call) freshTargets() []indexing.Target {
	if c.fresh == nil {
		return nil
	}
	return c.fresh.Targets(c.V)
}
