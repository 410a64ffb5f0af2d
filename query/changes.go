package query

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/cos-dev/cos/gitfiles"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// Diff is the change set ChangesOf maps onto the graph: the changed files
// with their hunks, and the declarations of a file's base content and of
// the file on disk, read at the syntax level (indexing.ChangeSet).
type Diff interface {
	// Changes returns the changed files.
	Changes() []gitfiles.FileChange
	// HasBase reports whether there is a base revision: without one, a
	// modified file has no base content and no hunks.
	HasBase() bool
	// OldNodes returns the declarations of old path p at the base, and
	// whether the base has that file.
	OldNodes(p string) ([]graph.Node, bool)
	// DiskNodes returns the declarations of the file p on disk, and
	// whether it could be read.
	DiskNodes(p string) ([]graph.Node, bool)
}

// ChangedSymbol is one symbol of a cos_graph_changes answer.
type ChangedSymbol struct {
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

// ChangedFile is one file of the diff.
type ChangedFile struct {
	Path    string `json:"path"`
	OldPath string `json:"old_path,omitempty"`
	Status  string `json:"status"`
	Binary  bool   `json:"binary,omitempty"`
}

// ChangeDependent is one dependent of the changed symbols.
type ChangeDependent struct {
	UID     string `json:"uid"`
	Kind    string `json:"kind"`
	Label   string `json:"label"`
	Path    string `json:"path,omitempty"`
	Line    int    `json:"line,omitempty"`
	Depth   int    `json:"depth"`
	Via     string `json:"via"`
	Through string `json:"through"`
}

// ChangeRisk is the risk level and why.
type ChangeRisk struct {
	Level   string   `json:"level"`
	Reasons []string `json:"reasons"`
}

// Risk levels of cos_graph_changes.
const (
	riskLow    = "low"
	riskMedium = "medium"
	riskHigh   = "high"
)

// Changes is the answer of ChangesOf.
type Changes struct {
	Files   []ChangedFile
	Changed []ChangedSymbol
	// Dependents lists the dependents by depth, keyed "1", "2", …; Counts
	// counts them, Count is their total.
	Dependents map[string][]ChangeDependent
	Counts     map[string]int
	Count      int
	Tests      []ChangeDependent
	// TestsToRun are the tests that reach the added and modified symbols
	// (TestsOf), as commands.
	TestsToRun   TestsToRun
	Risk         ChangeRisk
	Completeness *Completeness
}

// Removed is the set of symbols of the base that a diff deletes and the
// file on disk no longer declares (RemovedSymbols).
type Removed struct{ byUID map[string]span }

// UIDs returns the removed symbols' uids, sorted.
func (r Removed) UIDs() []string { return slices.Sorted(maps.Keys(r.byUID)) }

// RemovedSymbols returns the symbols of the base that the diff deletes
// and the file on disk no longer declares (both read at the syntax level).
func RemovedSymbols(d Diff) Removed {
	out := map[string]span{}
	for _, f := range d.Changes() {
		deletes := slices.ContainsFunc(f.Hunks, func(h gitfiles.Hunk) bool { return h.Old.Count > 0 })
		if !deletes && f.Status != gitfiles.StatusDeleted {
			continue // nothing of the base went
		}
		olds, ok := oldSymbols(d, f.OldPath)
		if !ok {
			continue
		}
		if f.Status == gitfiles.StatusDeleted {
			for _, s := range olds {
				out[s.n.UID] = s
			}
			continue
		}
		now, ok := d.DiskNodes(f.NewPath)
		if !ok {
			continue
		}
		still := map[string]bool{}
		for _, s := range symbolSpans(now) {
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
	return Removed{byUID: out}
}

// oldSymbols returns the symbols of old path p at the base, and whether
// the base has that file.
func oldSymbols(d Diff, p string) ([]span, bool) {
	nodes, ok := d.OldNodes(p)
	if !ok {
		return nil, false
	}
	return symbolSpans(nodes), true
}

// Dependents is the dependents of a set of symbols, by depth.
type Dependents struct {
	byUID map[string]ChangeDependent
	comp  *Completeness
}

// WalkDependents walks from roots as cos_graph_impact does (impactWalk:
// every dependence edge type, interfaces followed), up to depth hops, and
// records each dependent once at its smallest depth. Call it inside a
// view.
func WalkDependents(ctx context.Context, g *projections.Graph, roots []string, depth int) *Dependents {
	w := &impactWalk{
		g: g, follow: ImpactEdgeTypes, includeTests: true,
		comp: NewCompleteness(g, true), excl: NewBuildExclusion(g),
		seen: make(map[string]reach, len(roots)), interfaces: true,
	}
	for _, uid := range roots {
		w.seen[uid] = reach{}
	}
	out := &Dependents{byUID: map[string]ChangeDependent{}, comp: w.comp}
	frontier := roots
	for dd := 1; dd <= depth && len(frontier) > 0 && ctx.Err() == nil; dd++ {
		w.next = nil
		for _, uid := range frontier {
			w.expand(uid, dd)
		}
		for _, uid := range w.next {
			r := w.seen[uid]
			n := NodeOrMissing(g, uid)
			out.byUID[uid] = ChangeDependent{UID: uid, Kind: n.Kind, Label: n.Label, Path: n.Path, Line: n.Line, Depth: r.depth, Via: r.via, Through: r.through}
		}
		frontier = w.next
	}
	return out
}

// ChangesOf maps the diff onto g (the graph after the changed files
// were indexed again), walks the dependents of the added and modified
// symbols and merges those of the removed ones (gone, walked before).
// Call it inside a view.
func ChangesOf(ctx context.Context, g *projections.Graph, d Diff, removed Removed, gone *Dependents, depth int) Changes {
	paths := map[string]bool{}
	files := make([]ChangedFile, 0, len(d.Changes()))
	for _, f := range d.Changes() {
		if f.NewPath != "" {
			paths[f.NewPath] = true
		}
		files = append(files, ChangedFile{Path: f.Path(), OldPath: oldIfRenamed(f), Status: string(f.Status), Binary: f.Binary})
	}
	cur := graphSymbols(g, paths)
	changed := map[string]ChangedSymbol{}
	add := func(s span, change, renamedFrom string) {
		if old, ok := changed[s.n.UID]; ok && (old.Change == "added" || old.Change == "removed") {
			return
		}
		changed[s.n.UID] = ChangedSymbol{UID: s.n.UID, Name: s.n.Label, Kind: s.n.Kind, Path: s.n.Path,
			Line: s.n.Line, EndLine: s.n.EndLine, Change: change, Exported: exported(s.n), RenamedFrom: renamedFrom}
	}
	for _, s := range removed.byUID {
		add(s, "removed", "")
	}
	for _, f := range d.Changes() {
		news := cur[f.NewPath]
		olds, hasBase := oldSymbols(d, f.OldPath)
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
		case !d.HasBase() && f.Status == gitfiles.StatusModified:
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
	list := make([]ChangedSymbol, 0, len(changed))
	var roots []string
	for _, s := range changed {
		list = append(list, s)
		if s.Change != "removed" {
			roots = append(roots, s.UID)
		}
	}
	slices.SortFunc(list, func(a, b ChangedSymbol) int {
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
	live := WalkDependents(ctx, g, roots, depth)
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
	levels := map[string][]ChangeDependent{}
	counts := map[string]int{}
	for dd := 1; dd <= depth; dd++ {
		levels[strconv.Itoa(dd)] = []ChangeDependent{}
		counts[strconv.Itoa(dd)] = 0
	}
	tests := []ChangeDependent{}
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
		if IsTestPath(dep.Path) {
			tests = append(tests, dep)
		} else if dep.Path != "" && !dirs[path.Dir(dep.Path)] {
			otherDirs++
		}
	}

	return Changes{Files: files, Changed: list, Dependents: levels, Counts: counts, Count: len(all), Tests: tests,
		TestsToRun: TestsOf(ctx, g, roots, slices.Sorted(mapKeys(paths))),
		Risk:       riskOf(list, counts, len(all), otherDirs, len(tests), removedUsed, depth), Completeness: live.comp}
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
func riskOf(list []ChangedSymbol, counts map[string]int, total, otherDirs, tests, removedUsed, depth int) ChangeRisk {
	var reasons []string
	level := riskLow
	raise := func(l string) {
		if l == riskHigh || l == riskMedium && level == riskLow {
			level = l
		}
	}
	if len(list) == 0 {
		return ChangeRisk{Level: riskLow, Reasons: []string{"no symbol changed"}}
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
	return ChangeRisk{Level: level, Reasons: reasons}
}
