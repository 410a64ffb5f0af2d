package tools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/gitfiles"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/state"
)

// BaseIndex is the base of cos_graph_changes that compares the files on
// disk with what the graph was last indexed from.
const BaseIndex = "index"

func graphChangesTool() *Tool {
	return &Tool{
		Name:        "cos_graph_changes",
		Title:       "Changes and their risk",
		Description: "Symbols changed since base (a git revision, or \"index\": the last index), their dependents, tests and risk.",
		Data: Fields{"base": "string", "commit": "string", "root": "string", "depth": "integer", "count": "integer",
			"files": "[]object", "changed": "[]object", "dependents": "object", "counts_by_depth": "object",
			"tests": "[]object", "risk": "object", "refreshed": "[]string", "note": "string"},
		Module: "graph", Layer: envelope.LayerGraph, ReadOnly: false, Idempotent: true, WritesOnlyToRefresh: true,
		Example: `{"base": "HEAD", "depth": 2}`,
		Params: []Param{
			{Name: "base", Type: TString, NonEmpty: true, MaxLen: 256, Default: "HEAD"},
			{Name: "depth", Type: TInt, Min: f64(1), Max: f64(5), Default: 2},
		},
		Handler: changesTool,
	}
}

// changedSymbol is one symbol of a cos_graph_changes answer.
type changedSymbol struct {
	UID     string `json:"uid"`
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Path    string `json:"path"`
	Line    int    `json:"line,omitempty"`
	EndLine int    `json:"end_line,omitempty"`
	// Change is added, modified or removed.
	Change   string `json:"change"`
	Exported bool   `json:"exported"`
	// RenamedFrom is the uid the symbol had before its file was renamed.
	RenamedFrom string `json:"renamed_from,omitempty"`
}

// changedFile is one file of the diff.
type changedFile struct {
	Path    string `json:"path"`
	OldPath string `json:"old_path,omitempty"`
	Status  string `json:"status"`
	Binary  bool   `json:"binary,omitempty"`
}

// changeDependent is one dependent of the changed symbols.
type changeDependent struct {
	UID     string `json:"uid"`
	Kind    string `json:"kind"`
	Label   string `json:"label"`
	Path    string `json:"path,omitempty"`
	Line    int    `json:"line,omitempty"`
	Depth   int    `json:"depth"`
	Via     string `json:"via"`
	Through string `json:"through"`
}

// changeRisk is the risk level and why.
type changeRisk struct {
	Level   string   `json:"level"`
	Reasons []string `json:"reasons"`
}

// Risk levels of cos_graph_changes.
const (
	riskLow    = "low"
	riskMedium = "medium"
	riskHigh   = "high"
)

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
		last   projections.IndexRun
		hasRun bool
	)
	if err := c.st.Read(ctx, func(v state.View) {
		hashes = v.Graph.FileHashes()
		last, hasRun = v.Graph.LastIndex()
	}); err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	d, err := diffFor(ctx, root, base, hashes, last, hasRun)
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	// Removed symbols are gone from the files on disk: their dependents
	// are read before the files are indexed again, while the graph still
	// has the edges that point at them.
	removed := d.removedSymbols(root)
	var gone *dependentWalk
	if err := c.st.Read(ctx, func(v state.View) {
		gone = walkDependents(ctx, v.Graph, removedUIDs(removed), depth)
	}); err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	refreshed, warn := c.refreshChanged(ctx, root, d, hashes)

	var (
		data any
		tm   envelope.ToolMeta
	)
	if err := c.st.Read(ctx, func(v state.View) {
		c.V = v
		data, tm = changesAnswer(ctx, v.Graph, d, removed, gone, depth)
	}); err != nil {
		return nil, tm, err
	}
	m := data.(map[string]any)
	m["base"], m["commit"], m["root"] = base, d.commit, root
	m["refreshed"] = refreshed
	if d.note != "" {
		m["note"] = d.note
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

// changeSet is the diff cos_graph_changes maps onto the graph.
type changeSet struct {
	files []gitfiles.FileChange
	// base holds the base content of each old path that has one (nil
	// when there is no base revision: base "index" outside git).
	base map[string][]byte
	// commit is the base commit ("" when none).
	commit string
	// note says how the changes were found when it is not a plain diff.
	note string
	// olds caches the symbols of each base file (oldSymbols).
	olds map[string][]span
}

// oldSymbols returns the symbols of old path p at the base, extracted
// once, and whether the base has that file.
func (cs *changeSet) oldSymbols(p string) ([]span, bool) {
	data, ok := cs.base[p]
	if !ok {
		return nil, false
	}
	if s, done := cs.olds[p]; done {
		return s, true
	}
	if cs.olds == nil {
		cs.olds = map[string][]span{}
	}
	s := baseSymbols(p, data)
	cs.olds[p] = s
	return s, true
}

// diffFor finds the changed files against base, with their base content.
func diffFor(ctx context.Context, root, base string, hashes map[string]string, last projections.IndexRun, hasRun bool) (*changeSet, error) {
	if base == BaseIndex {
		return indexDiff(ctx, root, hashes, last, hasRun)
	}
	commit, err := gitfiles.ResolveCommit(ctx, root, base)
	var re *gitfiles.RevisionError
	if err != nil && base == "HEAD" && errors.As(err, &re) {
		// A repository without a commit yet: HEAD is the empty tree and
		// every file is added (gitfiles.Diff's reading of "HEAD").
		if head, herr := gitfiles.Head(ctx, root); herr == nil && head == "" {
			commit, err = "", nil
		}
	}
	if err != nil {
		return nil, gitError(err, root, base)
	}
	files, err := gitfiles.Diff(ctx, root, commit)
	if err != nil {
		return nil, gitError(err, root, base)
	}
	cs := &changeSet{files: files, commit: commit}
	if err := cs.loadBase(ctx, root); err != nil {
		return nil, gitError(err, root, base)
	}
	return cs, nil
}

// loadBase reads the base content of every old path a hunk touches.
func (cs *changeSet) loadBase(ctx context.Context, root string) error {
	var olds []string
	for _, f := range cs.files {
		if f.OldPath != "" && !f.Binary {
			olds = append(olds, f.OldPath)
		}
	}
	cs.base = map[string][]byte{}
	if len(olds) == 0 || cs.commit == "" {
		return nil
	}
	b, err := gitfiles.ShowFiles(ctx, root, cs.commit, olds)
	if err != nil {
		return err
	}
	cs.base = b
	return nil
}

// indexDiff is base "index": the files whose content differs from what
// the graph holds. In git, when the last index run recorded a clean
// commit, that commit is the base of a real diff limited to those files;
// otherwise every symbol of a changed file is compared by uid only.
func indexDiff(ctx context.Context, root string, hashes map[string]string, last projections.IndexRun, hasRun bool) (*changeSet, error) {
	stale := map[string]bool{}
	for p, want := range hashes {
		if !fileMatches(root, p, want) {
			stale[p] = true
		}
	}
	inGit := false
	if _, err := gitfiles.TopLevel(ctx, root); err == nil {
		inGit = true
		// New files git would keep are changes too.
		if out, err := gitfiles.Git(ctx, root, "ls-files", "-z", "--others", "--exclude-standard", "--", "."); err == nil {
			for _, p := range bytes.Split(out, []byte{0}) {
				if len(p) > 0 {
					if _, held := hashes[string(p)]; !held {
						stale[string(p)] = true
					}
				}
			}
		}
	}
	if inGit && hasRun && last.Commit != "" && !last.Dirty {
		files, err := gitfiles.Diff(ctx, root, last.Commit)
		if err == nil {
			cs := &changeSet{commit: last.Commit}
			for _, f := range files {
				if stale[f.NewPath] || stale[f.OldPath] {
					cs.files = append(cs.files, f)
				}
			}
			if err := cs.loadBase(ctx, root); err == nil {
				return cs, nil
			}
		}
	}
	cs := &changeSet{note: "the last index was not of a clean git commit, so no base content is known: " +
		"every symbol of a file changed since the last index is listed as modified unless its uid is new or gone"}
	for _, p := range slices.Sorted(maps.Keys(stale)) {
		_, held := hashes[p]
		_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		switch {
		case !held:
			cs.files = append(cs.files, gitfiles.FileChange{NewPath: p, Status: gitfiles.StatusAdded})
		case err != nil:
			cs.files = append(cs.files, gitfiles.FileChange{OldPath: p, Status: gitfiles.StatusDeleted})
		default:
			cs.files = append(cs.files, gitfiles.FileChange{OldPath: p, NewPath: p, Status: gitfiles.StatusModified})
		}
	}
	return cs, nil
}

// fileMatches reports whether the file p under root has the content hash
// want (the graph's); a binary file (the graph records no hash) matches
// when it exists.
func fileMatches(root, p, want string) bool {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(indexing.OnDisk(root, p))))
	if err != nil {
		return false
	}
	if want == "" {
		return true
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]) == want
}

// gitError maps the git failures of cos_graph_changes to envelope errors.
func gitError(err error, root, base string) error {
	var re *gitfiles.RevisionError
	switch {
	case errors.As(err, &re):
		return envelope.Errorf(envelope.CodeArgument,
			"base %q names no commit of the repository at %s; give a branch, tag or commit id (HEAD, main, HEAD~1), or \"index\" for the files changed since the last index", clip(base, 80), root).
			WithDetails(map[string]any{"field": "base", "value": clip(base, 80), "example": `{"base": "HEAD"}`})
	case errors.Is(err, gitfiles.ErrNotWorkTree):
		return envelope.Errorf(envelope.CodeArgument,
			"%s is not inside a git work tree, so there is no revision %q to compare with; use base \"index\" for the files changed since the last index", root, clip(base, 80)).
			WithDetails(map[string]any{"field": "base", "value": clip(base, 80), "example": `{"base": "index"}`})
	case errors.Is(err, gitfiles.ErrNoGit):
		return envelope.Errorf(envelope.CodeUnavailable,
			"git is not installed (not on PATH), so base %q cannot be read; install git or use base \"index\"", clip(base, 80))
	}
	return err
}

// refreshChanged indexes again the changed files whose content the graph
// does not hold (Call.Refresh), so the answer's lines and uids are
// current, and returns the paths it brought up to date. It never fails
// the call: when this server cannot write, or the run fails, the answer
// is computed on the graph as it is, with a warning.
func (c *Call) refreshChanged(ctx context.Context, root string, d *changeSet, hashes map[string]string) ([]string, string) {
	var stale []string
	for _, f := range d.files {
		if f.NewPath != "" && !fileMatches(root, f.NewPath, hashes[f.NewPath]) {
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

// removedSymbols returns, by old path, the symbols of the base that the
// diff deletes and the file on disk no longer declares (both read at the
// syntax level), keyed by uid.
func (d *changeSet) removedSymbols(root string) map[string]span {
	out := map[string]span{}
	for _, f := range d.files {
		deletes := slices.ContainsFunc(f.Hunks, func(h gitfiles.Hunk) bool { return h.Old.Count > 0 })
		if !deletes && f.Status != gitfiles.StatusDeleted {
			continue // nothing of the base went
		}
		olds, ok := d.oldSymbols(f.OldPath)
		if !ok {
			continue
		}
		if f.Status == gitfiles.StatusDeleted {
			for _, s := range olds {
				out[s.n.UID] = s
			}
			continue
		}
		now, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.NewPath)))
		if err != nil {
			continue
		}
		still := map[string]bool{}
		for _, s := range baseSymbols(f.NewPath, now) {
			still[qualName(s.n.UID)] = true
		}
		for _, h := range f.Hunks {
			if h.Old.Count == 0 {
				continue
			}
			for _, s := range touched(olds, h.Old.Start, h.Old.End()) {
				if !still[qualName(s.n.UID)] {
					out[s.n.UID] = s
				}
			}
		}
	}
	return out
}

func removedUIDs(m map[string]span) []string {
	return slices.Sorted(maps.Keys(m))
}

// dependentWalk is the dependents of a set of symbols, by depth.
type dependentWalk struct {
	byUID map[string]changeDependent
	comp  *completeness
}

// walkDependents walks from roots as cos_graph_impact does (impactWalk:
// every dependence edge type, interfaces followed), up to depth hops, and
// records each dependent once at its smallest depth. Call it inside a
// view.
func walkDependents(ctx context.Context, g *projections.Graph, roots []string, depth int) *dependentWalk {
	w := &impactWalk{
		g: g, follow: impactEdgeTypes, includeTests: true,
		comp: &completeness{g: g, calls: true}, excl: newBuildExclusion(g),
		seen: make(map[string]reach, len(roots)), interfaces: true,
	}
	for _, uid := range roots {
		w.seen[uid] = reach{}
	}
	out := &dependentWalk{byUID: map[string]changeDependent{}, comp: w.comp}
	frontier := roots
	for dd := 1; dd <= depth && len(frontier) > 0 && ctx.Err() == nil; dd++ {
		w.next = nil
		for _, uid := range frontier {
			w.expand(uid, dd)
		}
		for _, uid := range w.next {
			r := w.seen[uid]
			n := nodeOrMissing(g, uid)
			out.byUID[uid] = changeDependent{UID: uid, Kind: n.Kind, Label: n.Label, Path: n.Path, Line: n.Line, Depth: r.depth, Via: r.via, Through: r.through}
		}
		frontier = w.next
	}
	return out
}

// changesAnswer maps the diff onto g (the graph after the changed files
// were indexed again), walks the dependents of the added and modified
// symbols and merges those of the removed ones (gone, walked before).
// Call it inside a view.
func changesAnswer(ctx context.Context, g *projections.Graph, d *changeSet, removed map[string]span, gone *dependentWalk, depth int) (map[string]any, envelope.ToolMeta) {
	paths := map[string]bool{}
	files := make([]changedFile, 0, len(d.files))
	for _, f := range d.files {
		if f.NewPath != "" {
			paths[f.NewPath] = true
		}
		files = append(files, changedFile{Path: f.Path(), OldPath: oldIfRenamed(f), Status: string(f.Status), Binary: f.Binary})
	}
	cur := graphSymbols(g, paths)
	changed := map[string]changedSymbol{}
	add := func(s span, change, renamedFrom string) {
		if old, ok := changed[s.n.UID]; ok && (old.Change == "added" || old.Change == "removed") {
			return
		}
		changed[s.n.UID] = changedSymbol{UID: s.n.UID, Name: s.n.Label, Kind: s.n.Kind, Path: s.n.Path,
			Line: s.n.Line, EndLine: s.n.EndLine, Change: change, Exported: exported(s.n), RenamedFrom: renamedFrom}
	}
	for _, s := range removed {
		add(s, "removed", "")
	}
	for _, f := range d.files {
		news := cur[f.NewPath]
		olds, hasBase := d.oldSymbols(f.OldPath)
		oldBy := map[string]span{}
		for _, s := range olds {
			oldBy[qualName(s.n.UID)] = s
		}
		newBy := map[string]span{}
		for _, s := range news {
			newBy[qualName(s.n.UID)] = s
		}
		renamedFrom := func(s span) string {
			if f.Status != gitfiles.StatusRenamed {
				return ""
			}
			if o, ok := oldBy[qualName(s.n.UID)]; ok && o.n.UID != s.n.UID {
				return o.n.UID
			}
			return ""
		}
		switch {
		case f.Status == gitfiles.StatusAdded:
			for _, s := range news {
				add(s, "added", "")
			}
			continue
		case f.Status == gitfiles.StatusDeleted:
			continue // its symbols are all in removed
		case d.commit == "" && f.Status == gitfiles.StatusModified:
			// No base content: every symbol of the file.
			for _, s := range news {
				add(s, "modified", "")
			}
			continue
		}
		for _, h := range f.Hunks {
			if h.New.Count > 0 {
				for _, s := range touched(news, h.New.Start, h.New.End()) {
					if _, existed := oldBy[qualName(s.n.UID)]; existed || !hasBase {
						add(s, "modified", renamedFrom(s))
					} else {
						add(s, "added", "")
					}
				}
			}
			if h.Old.Count > 0 {
				for _, s := range touched(olds, h.Old.Start, h.Old.End()) {
					if now, still := newBy[qualName(s.n.UID)]; still {
						add(now, "modified", renamedFrom(now))
					}
				}
			}
		}
	}
	list := make([]changedSymbol, 0, len(changed))
	var roots []string
	for _, s := range changed {
		list = append(list, s)
		if s.Change != "removed" {
			roots = append(roots, s.UID)
		}
	}
	slices.SortFunc(list, func(a, b changedSymbol) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return strings.Compare(a.UID, b.UID)
	})
	slices.Sort(roots)

	// Dependents: the walk of cos_graph_impact from every added or
	// modified symbol at once, merged with the removed symbols' walk; each
	// dependent is listed once, at its smallest depth.
	live := walkDependents(ctx, g, roots, depth)
	all := live.byUID
	removedUsed := 0
	for uid, dep := range gone.byUID {
		if dep.Depth == 1 {
			removedUsed++
		}
		if _, isChanged := changed[uid]; isChanged {
			continue
		}
		if have, ok := all[uid]; !ok || dep.Depth < have.Depth {
			all[uid] = dep
		}
	}
	levels := map[string][]changeDependent{}
	counts := map[string]int{}
	for dd := 1; dd <= depth; dd++ {
		levels[strconv.Itoa(dd)] = []changeDependent{}
		counts[strconv.Itoa(dd)] = 0
	}
	tests := []changeDependent{}
	otherDirs := 0
	dirs := map[string]bool{}
	for _, s := range list {
		dirs[path.Dir(s.Path)] = true
	}
	for _, uid := range slices.Sorted(maps.Keys(all)) {
		dep := all[uid]
		key := strconv.Itoa(dep.Depth)
		levels[key] = append(levels[key], dep)
		counts[key]++
		if isTestPath(dep.Path) {
			tests = append(tests, dep)
		} else if dep.Path != "" && !dirs[path.Dir(dep.Path)] {
			otherDirs++
		}
	}

	tm := envelope.ToolMeta{SemanticScope: fmt.Sprintf("transitive_depth_%d", depth)}
	live.comp.setOn(&tm)
	data := map[string]any{
		"depth":           depth,
		"files":           files,
		"changed":         list,
		"dependents":      levels,
		"counts_by_depth": counts,
		"count":           len(all),
		"tests":           tests,
		"risk":            riskOf(list, counts, len(all), otherDirs, len(tests), removedUsed, depth),
	}
	return data, tm
}

func oldIfRenamed(f gitfiles.FileChange) string {
	if f.Status == gitfiles.StatusRenamed {
		return f.OldPath
	}
	return ""
}

// riskOf grades a change: high when a removed symbol still has dependents
// or many nodes depend on it across folders; medium when dependents reach
// other folders, several depend on it directly, or no test reaches a
// change that has dependents; low otherwise. Every reason that weighed is
// listed.
func riskOf(list []changedSymbol, counts map[string]int, total, otherDirs, tests, removedUsed, depth int) changeRisk {
	var reasons []string
	level := riskLow
	raise := func(l string) {
		if l == riskHigh || l == riskMedium && level == riskLow {
			level = l
		}
	}
	if len(list) == 0 {
		return changeRisk{Level: riskLow, Reasons: []string{"no symbol changed"}}
	}
	var byDepth []string
	for dd := 1; dd <= depth; dd++ {
		byDepth = append(byDepth, fmt.Sprintf("%d at depth %d", counts[strconv.Itoa(dd)], dd))
	}
	reasons = append(reasons, fmt.Sprintf("%d changed symbol(s); %d dependent(s): %s", len(list), total, strings.Join(byDepth, ", ")))
	nExported := 0
	for _, s := range list {
		if s.Exported {
			nExported++
		}
	}
	if removedUsed > 0 {
		raise(riskHigh)
		reasons = append(reasons, fmt.Sprintf("removed symbol(s) are still called or referenced by %d node(s)", removedUsed))
	}
	if nExported > 0 {
		reasons = append(reasons, fmt.Sprintf("%d of the changed symbols are exported", nExported))
	} else {
		reasons = append(reasons, "no changed symbol is exported")
	}
	d1 := counts["1"]
	switch {
	case otherDirs > 0:
		raise(riskMedium)
		if nExported > 0 && (d1 >= 10 || total >= 50) {
			raise(riskHigh)
		}
		reasons = append(reasons, fmt.Sprintf("%d dependent(s) are in other folders (packages) than the change", otherDirs))
	case total > 0:
		reasons = append(reasons, "every dependent is in the folder (package) of the change")
	}
	if total >= 100 {
		raise(riskHigh)
	} else if d1 >= 5 {
		raise(riskMedium)
	}
	switch {
	case tests > 0:
		reasons = append(reasons, fmt.Sprintf("%d test(s) reach the change within depth %d", tests, depth))
	case total > 0:
		raise(riskMedium)
		reasons = append(reasons, fmt.Sprintf("no test reaches the change within depth %d", depth))
	default:
		reasons = append(reasons, fmt.Sprintf("nothing depends on the change and no test reaches it within depth %d", depth))
	}
	return changeRisk{Level: level, Reasons: reasons}
}
