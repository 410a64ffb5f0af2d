package tools

import (
	"context"
	"path"
	"slices"
	"strings"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/query"
)

// Bounds of cos_graph_overview, in groups.
const (
	overviewLimitDefault = 300
	overviewLimitMax     = 2000
)

// overviewGroup is one node of cos_graph_overview: a package (a folder of
// files) or a file, with the count of graph nodes it holds.
type overviewGroup struct {
	// ID is the folder ("." for the root) or the file's repo-relative path.
	ID string `json:"id"`
	// Path is the file of a file group (absent for a package).
	Path string `json:"path,omitempty"`
	// UID is the graph node of the folder or file ("" when the graph has
	// none): the root of its neighbourhood.
	UID string `json:"uid,omitempty"`
	// Members counts the nodes held (symbols, headings…: every node with
	// the path but the folder and file nodes themselves); ByKind splits
	// them by kind.
	Members int            `json:"members"`
	ByKind  map[string]int `json:"by_kind"`
	// Files counts the files of a package (1 for a file).
	Files int `json:"files"`
	// Internal counts the edges between two nodes of the group.
	Internal int `json:"internal"`
	// Cluster is the call-graph community most of its members belong to
	// (with clusters: true; absent when none does).
	Cluster *int `json:"cluster,omitempty"`
}

// overviewEdge is the edges from the nodes of one group to those of
// another, counted: Weight in all, ByType by edge type.
type overviewEdge struct {
	Source string         `json:"source"`
	Target string         `json:"target"`
	Weight int            `json:"weight"`
	ByType map[string]int `json:"by_type"`
}

// overviewAnswer is what cos_graph_overview answers.
type overviewAnswer struct {
	Level string `json:"level"`
	Under string `json:"under"`
	// Groups are the largest groups (most members, then most files, then
	// by id), at most limit; Edges join two of them, heaviest first.
	Groups []overviewGroup `json:"groups"`
	Edges  []overviewEdge  `json:"edges"`
	// Counts: groups (all under `under`), shown, edges (between groups
	// shown), members (nodes placed in any group), unplaced (nodes with no
	// place: external stubs, dependencies…).
	Counts   map[string]int  `json:"counts"`
	Clusters []query.Cluster `json:"clusters,omitempty"`
}

func graphOverviewTool() *Tool {
	return &Tool{
		Name:        "cos_graph_overview",
		Title:       "Graph overview",
		Description: "The graph by package (folder) or file: member counts and the edges between groups, weighted by type.",
		Data:        fieldsOf(overviewAnswer{}),
		Module:      "graph", Layer: envelope.LayerGraph, ReadOnly: true, Idempotent: true, HubOnly: true,
		Example: `{"level": "package", "limit": 100}`,
		Params: []Param{
			{Name: "level", Type: TString, Enum: []string{"package", "file"}, Default: "package"},
			{Name: "under", Type: TString, NonEmpty: true, MaxLen: 1024, Description: "a folder: only the groups in it and below"},
			{Name: "limit", Type: TInt, Min: f64(1), Max: f64(overviewLimitMax), Default: overviewLimitDefault},
			{Name: "clusters", Type: TBool, Description: "add each group's main call-graph community"},
		},
		Handler: overviewTool,
	}
}

// overviewTool answers cos_graph_overview. Every node with a path is
// placed in its file and the file's folder; a node with no path (a Go
// package's module node) goes to the folder of a file that defines it, at
// the package level. Folder nodes are the groups themselves and their
// contains edges are the tree, not dependencies: they count for neither.
func overviewTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	var tm envelope.ToolMeta
	level := c.Args.Str("level")
	if level == "" {
		level = "package"
	}
	under := ""
	if c.Args.Has("under") {
		u, err := overviewUnder(c.Args.Str("under"))
		if err != nil {
			return nil, tm, err
		}
		under = u
	}
	limit := c.Args.Int("limit", overviewLimitDefault)
	g := c.V.Graph

	groups := map[string]*overviewGroup{}
	place := map[string]string{} // uid → group id ("" for none)
	unplaced := 0
	group := func(id string) *overviewGroup {
		gr := groups[id]
		if gr == nil {
			gr = &overviewGroup{ID: id, ByKind: map[string]int{}}
			if level == "file" {
				gr.Path = id
			}
			groups[id] = gr
		}
		return gr
	}
	folderUID := map[string]string{}
	var pathless []graph.Node
	g.Nodes(func(n graph.Node) bool {
		if n.Kind == "folder" {
			dir := n.Path
			if dir == "" {
				dir = "."
			}
			folderUID[dir] = n.UID
			return true
		}
		if n.Path == "" {
			pathless = append(pathless, n)
			return true
		}
		id := n.Path
		if level == "package" {
			id = path.Dir(n.Path)
		}
		if !overviewWithin(id, under) {
			return true
		}
		place[n.UID] = id
		gr := group(id)
		if n.Kind == "file" {
			gr.Files++
			if level == "file" {
				gr.UID = n.UID
			}
		} else {
			gr.Members++
			gr.ByKind[n.Kind]++
		}
		return true
	})
	if err := ctx.Err(); err != nil {
		return nil, tm, err
	}
	if level == "package" {
		for _, n := range pathless {
			if id := definedIn(g, n.UID); id != "" && overviewWithin(id, under) {
				place[n.UID] = id
				gr := group(id)
				gr.Members++
				gr.ByKind[n.Kind]++
				continue
			}
			unplaced++
		}
		for id, gr := range groups {
			gr.UID = folderUID[id]
		}
	} else {
		unplaced = len(pathless)
	}
	if under != "" && len(groups) == 0 {
		return nil, tm, envelope.Errorf(envelope.CodeNotFound, "no file of the graph lies under %s", under).
			WithDetails(map[string]any{"under": under})
	}

	// Edges between groups, keyed by the pair.
	type pair struct{ from, to string }
	between := map[pair]*overviewEdge{}
	for uid, from := range place {
		for _, e := range g.Out(uid) {
			to, ok := place[e.Target]
			if !ok {
				continue
			}
			if to == from {
				groups[from].Internal++
				continue
			}
			p := pair{from, to}
			oe := between[p]
			if oe == nil {
				oe = &overviewEdge{Source: from, Target: to, ByType: map[string]int{}}
				between[p] = oe
			}
			oe.Weight++
			oe.ByType[e.Type]++
		}
	}

	all := make([]*overviewGroup, 0, len(groups))
	for _, gr := range groups {
		all = append(all, gr)
	}
	slices.SortFunc(all, func(a, b *overviewGroup) int {
		if a.Members != b.Members {
			return b.Members - a.Members
		}
		if a.Files != b.Files {
			return b.Files - a.Files
		}
		return strings.Compare(a.ID, b.ID)
	})
	shown := all[:min(limit, len(all))]
	kept := make(map[string]bool, len(shown))
	for _, gr := range shown {
		kept[gr.ID] = true
	}
	ans := overviewAnswer{Level: level, Under: under, Groups: make([]overviewGroup, 0, len(shown)), Edges: []overviewEdge{}}
	if c.Args.Bool("clusters", false) {
		cl, err := query.CachedClusters(ctx, g, c.V.Pos.Seq)
		if err != nil {
			return nil, tm, err
		}
		ans.Clusters = overviewClusters(cl, place, shown)
	}
	for _, gr := range shown {
		ans.Groups = append(ans.Groups, *gr)
		c.NameFiles(gr.Path)
	}
	for _, oe := range between {
		if kept[oe.Source] && kept[oe.Target] {
			ans.Edges = append(ans.Edges, *oe)
		}
	}
	slices.SortFunc(ans.Edges, func(a, b overviewEdge) int {
		if a.Weight != b.Weight {
			return b.Weight - a.Weight
		}
		if a.Source != b.Source {
			return strings.Compare(a.Source, b.Source)
		}
		return strings.Compare(a.Target, b.Target)
	})
	members := 0
	for _, gr := range all {
		members += gr.Members
	}
	ans.Counts = map[string]int{"groups": len(all), "shown": len(shown), "edges": len(ans.Edges), "members": members, "unplaced": unplaced}
	return ans, tm, nil
}

// overviewUnder cleans the under argument into a repo-relative folder,
// refusing one that leads out of the repository.
func overviewUnder(s string) (string, error) {
	u := path.Clean(strings.TrimSuffix(strings.TrimSpace(s), "/"))
	if strings.HasPrefix(u, "/") || u == ".." || strings.HasPrefix(u, "../") {
		return "", envelope.Errorf(envelope.CodeArgument, "under must be a folder inside the repository, like net/http; got %q", s).
			WithDetails(map[string]any{"field": "under"})
	}
	if u == "." {
		return "", nil
	}
	return u, nil
}

// overviewWithin reports whether the group id (a folder or a file path)
// lies in the folder under or below it ("" holds everything).
func overviewWithin(id, under string) bool {
	return under == "" || id == under || strings.HasPrefix(id, under+"/")
}

// definedIn returns the folder of the first file (by uid) that defines
// uid, "" when none does.
func definedIn(g *projections.Graph, uid string) string {
	best := ""
	for _, e := range g.In(uid) {
		if e.Type != "defines" {
			continue
		}
		if n, ok := g.Node(e.Source); ok && n.Path != "" && (best == "" || n.Path < best) {
			best = n.Path
		}
	}
	if best == "" {
		return ""
	}
	return path.Dir(best)
}

// overviewClusters sets each shown group's Cluster to the community most
// of its members belong to (ties: the lowest id) and returns those
// communities, in id order.
func overviewClusters(cl *query.Clusters, place map[string]string, shown []*overviewGroup) []query.Cluster {
	votes := map[string]map[int]int{}
	for uid, id := range cl.Of {
		gid, ok := place[uid]
		if !ok {
			continue
		}
		if votes[gid] == nil {
			votes[gid] = map[int]int{}
		}
		votes[gid][id]++
	}
	held := map[int]bool{}
	for _, gr := range shown {
		best, most := -1, 0
		for id, n := range votes[gr.ID] {
			if n > most || (n == most && id < best) {
				best, most = id, n
			}
		}
		if best >= 0 {
			gr.Cluster = &best
			held[best] = true
		}
	}
	out := []query.Cluster{}
	for _, c := range cl.List {
		if held[c.ID] {
			out = append(out, c)
		}
	}
	return out
}
