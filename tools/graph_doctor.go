package tools

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/projections"
)

// The cos_graph_doctor categories, in the order the answer lists them, and
// its two meta lists (docs/envelope.md, cos_graph_doctor categories).
var (
	doctorCategories = []string{
		"dangling_source", "dangling_target", "duplicate_edges", "self_loops",
		"orphaned_inrepo", "orphaned_phantom", "orphaned_external_unresolved",
		"malformed_uid_path", "stale_paths", "changed_on_disk", "duplicate_contains",
		"slowest_extractions", "files_with_parse_errors",
	}
	doctorFixable = []string{
		"stale_paths", "malformed_uid_path", "dangling_source", "dangling_target",
		"duplicate_contains", "orphaned_phantom", "orphaned_external_unresolved",
	}
	doctorInformational = []string{"slowest_extractions", "orphaned_external_unresolved", "files_with_parse_errors"}
)

// Doctor sample sizes.
const (
	doctorSample  = 5
	doctorSlowest = 10
)

// doctorIssue is one category of a doctor answer. Count is the number of
// findings (nodes, edges or extractions); Sample shows the first few.
type doctorIssue struct {
	Category string `json:"category"`
	// Severity is "real", or "info" for the informational categories,
	// which never make the graph unhealthy.
	Severity string `json:"severity"`
	Count    int    `json:"count"`
	Sample   []any  `json:"sample"`
	// Fixable says whether fix=true deletes this category's findings
	// (orphaned_external_unresolved: its zero-edge stubs only).
	Fixable bool `json:"fixable"`
	// PathCount is the number of distinct paths (stale_paths only).
	PathCount int `json:"path_count,omitempty"`
}

// doctorPlan is what fix=true deletes, with the number of findings per
// category it removes.
type doctorPlan struct {
	edges   []graph.EdgeKey
	edgeSet map[graph.EdgeKey]bool
	nodes   []string
	nodeSet map[string]bool
	files   []string
	removed map[string]int
}

func (p *doctorPlan) edge(cat string, k graph.EdgeKey) {
	p.removed[cat]++
	if !p.edgeSet[k] {
		p.edgeSet[k] = true
		p.edges = append(p.edges, k)
	}
}

func (p *doctorPlan) node(cat, uid string) {
	if graph.ValidateUID(uid) != nil {
		return // the log refuses it; the projection never holds one
	}
	p.removed[cat]++
	if !p.nodeSet[uid] {
		p.nodeSet[uid] = true
		p.nodes = append(p.nodes, uid)
	}
}

func (p *doctorPlan) empty() bool { return len(p.edges)+len(p.nodes)+len(p.files) == 0 }

func graphDoctorTool() *Tool {
	return &Tool{
		Name:        "cos_graph_doctor",
		Title:       "Check the graph",
		Description: "Graph problems (dangling edges, orphans, stale files, …); fix deletes the fixable ones.",
		Data:        Fields{"healthy": "boolean", "issues": "[]object", "stats": "object", "fixed": "object"},
		Module:      "graph", Layer: envelope.LayerGraph, Destructive: true, Idempotent: true,
		Example: `{"fix": false}`,
		Params: []Param{
			{Name: "fix", Type: TBool, Default: false},
		},
		Handler: doctorTool,
	}
}

func doctorTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	tm := envelope.ToolMeta{FixableCategories: doctorFixable, InformationalCategories: doctorInformational}
	// stale_paths needs to know where the files live: the roots given, or
	// the folder last indexed. A graph built without either (only agent
	// upserts) skips that check rather than calling every path stale.
	var roots []string
	if c.ix.HasRoots() || c.ix.IndexedRoot() != "" {
		roots = c.ix.Roots()
	}
	var (
		body map[string]any
		plan *doctorPlan
	)
	var changed []string
	if err := freshView(ctx, c, func() {
		changed = c.changedOnDisk(ctx)
		body, plan = diagnose(c.V.Graph, roots, changed)
	}); err != nil {
		return nil, tm, err
	}
	if !c.Args.Bool("fix", false) {
		return body, tm, nil
	}
	if plan.empty() {
		body["fixed"] = map[string]any{"removed": map[string]int{}}
		return body, tm, nil
	}
	req := eventlog.AppendRequest{Stream: graph.Stream}
	if len(plan.edges) > 0 {
		req.Events = append(req.Events, mustPayload(graph.TypeEdgesDeleted, graph.EdgesDeleted{Edges: plan.edges}))
	}
	if len(plan.nodes) > 0 {
		req.Events = append(req.Events, mustPayload(graph.TypeNodesDeleted, graph.NodesDeleted{UIDs: plan.nodes}))
	}
	for _, p := range plan.files {
		req.Events = append(req.Events, mustPayload(graph.TypeFileRemoved, graph.FileRemoved{Path: p}))
	}
	rcs, err := c.Append(ctx, req)
	if err != nil {
		return nil, tm, err
	}
	if err := c.ReadBack(ctx, rcs[0].LastSeq, func() { body, _ = diagnose(c.V.Graph, roots, c.changedOnDisk(ctx)) }); err != nil {
		return nil, tm, err
	}
	body["fixed"] = map[string]any{
		"receipt":       receiptOf(rcs[0]),
		"removed":       plan.removed,
		"edges_deleted": len(plan.edges),
		"nodes_deleted": len(plan.nodes),
		"files_removed": plan.files,
	}
	return body, tm, nil
}

// malformedPath reports whether a uid or path holds "../", a backtick or
// whitespace (the malformed_uid_path category).
func malformedPath(s string) bool {
	return strings.Contains(s, "../") || strings.ContainsRune(s, '`') || strings.IndexFunc(s, unicode.IsSpace) >= 0
}

// isExternalStub reports whether uid is a code:external: or cos:identifier:
// stub (the orphaned_external_unresolved category).
func isExternalStub(uid string) bool {
	return strings.HasPrefix(uid, "code:external:") || strings.HasPrefix(uid, "cos:identifier:")
}

// isPhantom reports whether a zero-edge node is junk the doctor may prune
// (the orphaned_phantom category): a stub whose minting edge is gone, a module
// stub with no path, or a file node whose path has no extension.
func isPhantom(n graph.Node) bool {
	if stub, _ := n.Metadata["stub"].(bool); stub {
		return true
	}
	switch n.Kind {
	case graph.KindModule:
		return n.Path == ""
	case graph.KindFile, graph.KindDocFile:
		p := n.Path
		if p == "" {
			p = strings.TrimPrefix(strings.TrimPrefix(n.UID, "code:file:"), "doc:file:")
		}
		return path.Ext(p) == ""
	}
	return false
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

// diagnose runs every check over g (inside a view) and returns the answer
// body and the fix plan.
func diagnose(g *projections.Graph, roots []string, changed []string) (map[string]any, *doctorPlan) {
	plan := &doctorPlan{edgeSet: map[graph.EdgeKey]bool{}, nodeSet: map[string]bool{}, removed: map[string]int{}}
	issues := map[string]*doctorIssue{}
	for _, cat := range doctorCategories {
		issues[cat] = &doctorIssue{Category: cat, Severity: "real", Sample: []any{}, Fixable: contains(doctorFixable, cat)}
		if contains(doctorInformational, cat) {
			issues[cat].Severity = "info"
		}
	}
	add := func(cat string, sample any) {
		is := issues[cat]
		is.Count++
		if len(is.Sample) < doctorSample {
			is.Sample = append(is.Sample, sample)
		}
	}
	dump := g.Dump()
	edgeText := func(e graph.Edge) string {
		return fmt.Sprintf("%s -[%s/%s]-> %s", e.Source, e.Type, e.Extractor, e.Target)
	}
	seenKey := map[graph.EdgeKey]int{}
	containsOf := map[string][]graph.Edge{}
	for _, de := range dump.Edges {
		e := de.Edge
		k := e.Key()
		if seenKey[k]++; seenKey[k] == 2 {
			add("duplicate_edges", edgeText(e)) // the projection keys edges by identity: stays 0 unless that changes
		}
		if !g.HasNode(e.Source) {
			add("dangling_source", edgeText(e))
			plan.edge("dangling_source", k)
		}
		if !g.HasNode(e.Target) {
			add("dangling_target", edgeText(e))
			plan.edge("dangling_target", k)
		}
		if e.Source == e.Target {
			add("self_loops", edgeText(e))
		}
		if e.Type == graph.EdgeContains {
			containsOf[e.Target] = append(containsOf[e.Target], e)
		}
	}
	for _, target := range sortedKeys(containsOf) {
		parents := containsOf[target]
		if len(parents) < 2 {
			continue
		}
		keep := 0
		if n, ok := g.Node(target); ok {
			want := expectedParent(n)
			for i, e := range parents {
				if e.Source == want {
					keep = i
				}
			}
		}
		for i, e := range parents {
			if i != keep {
				add("duplicate_contains", edgeText(e))
				plan.edge("duplicate_contains", e.Key())
			}
		}
	}
	stale := map[string][]string{} // path → uids of its nodes
	checked := map[string]bool{}
	isStale := func(p string) bool {
		if p == "" || malformedPath(p) || roots == nil {
			return false
		}
		if s, ok := checked[p]; ok {
			return s
		}
		s := !existsUnder(roots, p)
		checked[p] = s
		return s
	}
	for _, dn := range dump.Nodes {
		n := dn.Node
		in, out := g.Degree(n.UID)
		zero := in+out == 0
		switch {
		case malformedPath(n.UID) || malformedPath(n.Path):
			add("malformed_uid_path", n.UID)
			plan.node("malformed_uid_path", n.UID)
			continue
		case isStale(n.Path):
			stale[n.Path] = append(stale[n.Path], n.UID)
			add("stale_paths", n.UID)
			plan.node("stale_paths", n.UID)
			continue // deleted by the fix whatever its edges
		}
		switch {
		case isExternalStub(n.UID):
			add("orphaned_external_unresolved", n.UID)
			if zero {
				plan.node("orphaned_external_unresolved", n.UID)
			}
		case !zero:
		case isPhantom(n):
			add("orphaned_phantom", n.UID)
			plan.node("orphaned_phantom", n.UID)
		default:
			add("orphaned_inrepo", n.UID)
		}
	}
	for _, f := range dump.Files {
		if isStale(f.Path) && !contains(plan.files, f.Path) {
			plan.files = append(plan.files, f.Path)
			if _, ok := stale[f.Path]; !ok {
				stale[f.Path] = nil
				add("stale_paths", f.Path)
				plan.removed["stale_paths"]++
			}
		}
		if len(f.ParseErrors) > 0 {
			add("files_with_parse_errors", map[string]any{"path": f.Path, "extractor": f.Extractor, "errors": f.ParseErrors[:min(3, len(f.ParseErrors))]})
		}
	}
	issues["stale_paths"].PathCount = len(stale)
	for _, p := range changed {
		if _, gone := stale[p]; !gone && !isStale(p) {
			add("changed_on_disk", p) // a gone file is a stale path
		}
	}
	slow := dump.Files
	sort.SliceStable(slow, func(i, j int) bool { return slow[i].DurationMS > slow[j].DurationMS })
	for _, f := range slow[:min(doctorSlowest, len(slow))] {
		is := issues["slowest_extractions"]
		is.Count++
		is.Sample = append(is.Sample, map[string]any{"path": f.Path, "extractor": f.Extractor, "duration_ms": f.DurationMS})
	}
	list := make([]*doctorIssue, 0, len(doctorCategories))
	real, total := 0, 0
	for _, cat := range doctorCategories {
		is := issues[cat]
		list = append(list, is)
		total += is.Count
		if is.Severity == "real" {
			real += is.Count
		}
	}
	counts := g.Counts()
	return map[string]any{
		"healthy": real == 0,
		"issues":  list,
		"stats": map[string]any{
			"issue_count":       real,
			"issue_count_total": total,
			"nodes":             counts.Nodes,
			"edges":             counts.Edges,
			"files":             counts.Files,
		},
	}, plan
}

// expectedParent is the uid that should contain n: its file for a symbol or
// heading, its folder for a file.
func expectedParent(n graph.Node) string {
	switch {
	case n.Path == "":
		return ""
	case n.Kind == graph.KindFile || n.Kind == graph.KindDocFile:
		return graph.FolderUID(strings.TrimSuffix(path.Dir(n.Path), "."))
	}
	return graph.FileUID(n.Path)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
