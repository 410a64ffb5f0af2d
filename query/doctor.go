package query

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// The cos_graph_doctor categories, in the order the answer lists them, and
// its two meta lists (docs/envelope.md, cos_graph_doctor categories).
var (
	DoctorCategories = []string{
		"dangling_source", "dangling_target", "duplicate_edges", "self_loops",
		"orphaned_inrepo", "orphaned_phantom", "orphaned_external_unresolved",
		"malformed_uid_path", "stale_paths", "changed_on_disk", "duplicate_contains",
		"slowest_extractions", "files_with_parse_errors",
	}
	DoctorFixable = []string{
		"stale_paths", "malformed_uid_path", "dangling_source", "dangling_target",
		"duplicate_contains", "orphaned_phantom", "orphaned_external_unresolved",
	}
	DoctorInformational = []string{"slowest_extractions", "orphaned_external_unresolved", "files_with_parse_errors"}
)

// Doctor sample sizes.
const (
	doctorSample  = 5
	doctorSlowest = 10
)

// DoctorIssue is one category of a doctor answer. Count is the number of
// findings (nodes, edges or extractions); Sample shows the first few.
type DoctorIssue struct {
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

// DoctorPlan is what fix=true deletes, with the number of findings per
// category it removes.
type DoctorPlan struct {
	Edges   []graph.EdgeKey
	edgeSet map[graph.EdgeKey]bool
	Nodes   []string
	nodeSet map[string]bool
	Files   []string
	// Removed counts the findings removed, by category.
	Removed map[string]int
}

func (p *DoctorPlan) edge(cat string, k graph.EdgeKey) {
	p.Removed[cat]++
	if !p.edgeSet[k] {
		p.edgeSet[k] = true
		p.Edges = append(p.Edges, k)
	}
}

func (p *DoctorPlan) node(cat, uid string) {
	if graph.ValidateUID(uid) != nil {
		return // the log refuses it; the projection never holds one
	}
	p.Removed[cat]++
	if !p.nodeSet[uid] {
		p.nodeSet[uid] = true
		p.Nodes = append(p.Nodes, uid)
	}
}

// Empty reports whether the plan deletes nothing.
func (p *DoctorPlan) Empty() bool { return len(p.Edges)+len(p.Nodes)+len(p.Files) == 0 }

// Diagnosis is the answer of Diagnose.
type Diagnosis struct {
	// Healthy is set when no finding is of a "real" category.
	Healthy bool
	// Issues lists every category, in DoctorCategories order.
	Issues []*DoctorIssue
	// IssueCount counts the real findings, IssueCountTotal every finding.
	IssueCount, IssueCountTotal int
	// Nodes, Edges and Files are the graph's sizes.
	Nodes, Edges, Files int
	// Plan is what a fix deletes.
	Plan *DoctorPlan
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

// Diagnose runs every check over g (inside a view). exists reports
// whether a repo-relative path is a file on disk (nil: where the files
// live is not known, and stale_paths is skipped); changed lists the files
// whose content differs from the graph's.
func Diagnose(g *projections.Graph, exists func(p string) bool, changed []string) Diagnosis {
	plan := &DoctorPlan{edgeSet: map[graph.EdgeKey]bool{}, nodeSet: map[string]bool{}, Removed: map[string]int{}}
	issues := map[string]*DoctorIssue{}
	for _, cat := range DoctorCategories {
		issues[cat] = &DoctorIssue{Category: cat, Severity: "real", Sample: []any{}, Fixable: slices.Contains(DoctorFixable, cat)}
		if slices.Contains(DoctorInformational, cat) {
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
		if e.Source == e.Target && e.Type != graph.EdgeCalls && e.Type != graph.EdgeReferences {
			// A function calling itself, or using itself as a value, is
			// recursion the graph records on purpose.
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
		if p == "" || malformedPath(p) || exists == nil {
			return false
		}
		if s, ok := checked[p]; ok {
			return s
		}
		s := !exists(p)
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
		if isStale(f.Path) && !slices.Contains(plan.Files, f.Path) {
			plan.Files = append(plan.Files, f.Path)
			if _, ok := stale[f.Path]; !ok {
				stale[f.Path] = nil
				add("stale_paths", f.Path)
				plan.Removed["stale_paths"]++
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
	list := make([]*DoctorIssue, 0, len(DoctorCategories))
	real, total := 0, 0
	for _, cat := range DoctorCategories {
		is := issues[cat]
		list = append(list, is)
		total += is.Count
		if is.Severity == "real" {
			real += is.Count
		}
	}
	counts := g.Counts()
	return Diagnosis{Healthy: real == 0, Issues: list, IssueCount: real, IssueCountTotal: total,
		Nodes: counts.Nodes, Edges: counts.Edges, Files: counts.Files, Plan: plan}
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
