package query

import (
	"cmp"
	"context"
	"math/rand/v2"
	"path"
	"slices"
	"sync"

	"gonum.org/v1/gonum/graph/community"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// Community detection over the call graph (the Hub's map, cos_graph_export
// clusters): Louvain modularity (gonum's community.Modularize) on the
// undirected call graph of the functions and methods outside test files,
// each pair weighted by the calls and references edges between them.
// Functions without any such edge are not clustered.

// clusterResolution is the Louvain resolution γ: 1 is classic modularity.
const clusterResolution = 1

// clusterSeed seeds the Louvain random source: with the nodes in uid
// order, the same graph gives the same communities in every process.
var clusterSeed = [2]uint64{29, 5}

// Limits of a cluster's description.
const (
	clusterTopFolders = 3
	clusterTopLinks   = 8
)

// FolderCount is a folder and how many members of a cluster it holds.
type FolderCount struct {
	Folder string `json:"folder"`
	Count  int    `json:"count"`
}

// ClusterLink is the number of calls and references edges between a
// cluster and another.
type ClusterLink struct {
	Cluster int `json:"cluster"`
	Edges   int `json:"edges"`
}

// Cluster is one community of the call graph.
type Cluster struct {
	// ID is the cluster's position in Clusters.List (largest first).
	ID int `json:"id"`
	// Name is Folder and the label of Top: "net/http (Server.Serve)".
	Name string `json:"name"`
	// Folder is the folder holding most members (ties: the first by name).
	Folder string `json:"folder"`
	// Top is the member with the most edges in the call graph (ties: the
	// first uid), TopLabel its label.
	Top      string `json:"top"`
	TopLabel string `json:"top_label"`
	Size     int    `json:"size"`
	// Folders are the folders holding most members, at most three.
	Folders []FolderCount `json:"folders"`
	// InternalEdges counts the edges between two members; Links the edges
	// to each other cluster, most first (at most eight), ExternalEdges all
	// of those.
	InternalEdges int           `json:"internal_edges"`
	ExternalEdges int           `json:"external_edges"`
	Links         []ClusterLink `json:"links"`
}

// Clusters is the answer of ClustersOf.
type Clusters struct {
	// List holds the clusters, largest first (ties by name, then top).
	List []Cluster
	// Of maps a clustered uid to its cluster's ID.
	Of map[string]int
	// Modularity is the partition's modularity Q (−0.5 to 1; above ~0.3
	// the communities are clearly separated).
	Modularity float64
	// Nodes and Edges are the size of the clustered call graph (edges are
	// joined pairs); Unclustered the functions and methods left out for
	// having no call or reference to or from another.
	Nodes, Edges, Unclustered int
}

// ClustersOf detects the communities of g's call graph. It fails only with
// ctx's error.
func ClustersOf(ctx context.Context, g *projections.Graph) (*Clusters, error) {
	var uids []string
	var heads []graph.Node
	g.Nodes(func(n graph.Node) bool {
		if (n.Kind == graph.KindFunction || n.Kind == graph.KindMethod) && !IsTestPath(n.Path) {
			uids = append(uids, n.UID)
			heads = append(heads, graph.Node{UID: n.UID, Label: n.Label, Path: n.Path})
		}
		return true
	})
	index := make(map[string]int64, len(uids))
	for i, u := range uids {
		index[u] = int64(i)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pairs := map[[2]int64]float64{}
	for i, u := range uids {
		for _, typ := range [2]string{graph.EdgeCalls, graph.EdgeReferences} {
			for _, t := range g.Targets(u, typ) {
				j, ok := index[t]
				if !ok || j == int64(i) {
					continue
				}
				k := [2]int64{min(int64(i), j), max(int64(i), j)}
				pairs[k]++
			}
		}
	}
	// Keep the nodes with at least one edge, renumbered in uid order.
	joined := make([]bool, len(uids))
	for k := range pairs {
		joined[k[0]], joined[k[1]] = true, true
	}
	renum := make([]int64, len(uids))
	var kept []int
	for i := range uids {
		renum[i] = -1
		if joined[i] {
			renum[i] = int64(len(kept))
			kept = append(kept, i)
		}
	}
	cpairs := make(map[[2]int64]float64, len(pairs))
	for k, w := range pairs {
		cpairs[[2]int64{renum[k[0]], renum[k[1]]}] = w
	}
	cg := newCallGraph(len(kept), cpairs)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := &Clusters{Of: map[string]int{}, Nodes: len(kept), Edges: len(cpairs), Unclustered: len(uids) - len(kept)}
	if len(kept) == 0 {
		return out, nil
	}
	reduced := community.Modularize(cg, clusterResolution, rand.NewPCG(clusterSeed[0], clusterSeed[1]))
	comms := reduced.Communities()
	out.Modularity = community.Q(cg, comms, clusterResolution)

	// Describe each community; ids are given after sorting.
	degree := make([]float64, len(kept))
	for i := range kept {
		for _, w := range cg.wts[i] {
			degree[i] += w
		}
	}
	member := make([]int, len(kept)) // renumbered node → community index
	list := make([]Cluster, len(comms))
	for ci, comm := range comms {
		ids := make([]int64, len(comm))
		for k, n := range comm {
			ids[k] = n.ID()
			member[n.ID()] = ci
		}
		list[ci] = describeCluster(ids, kept, heads, degree)
	}
	counts := make([]map[int]int, len(comms))
	for k, w := range cpairs {
		a, b := member[k[0]], member[k[1]]
		if a == b {
			list[a].InternalEdges += int(w)
			continue
		}
		for _, p := range [2][2]int{{a, b}, {b, a}} {
			if counts[p[0]] == nil {
				counts[p[0]] = map[int]int{}
			}
			counts[p[0]][p[1]] += int(w)
			list[p[0]].ExternalEdges += int(w)
		}
	}
	order := make([]int, len(list))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		x, y := list[a], list[b]
		return cmp.Or(y.Size-x.Size, cmp.Compare(x.Name, y.Name), cmp.Compare(x.Top, y.Top))
	})
	newID := make([]int, len(list))
	for id, ci := range order {
		newID[ci] = id
	}
	for id, ci := range order {
		c := list[ci]
		c.ID = id
		c.Links = []ClusterLink{}
		for other, n := range counts[ci] {
			c.Links = append(c.Links, ClusterLink{Cluster: newID[other], Edges: n})
		}
		slices.SortFunc(c.Links, func(a, b ClusterLink) int { return cmp.Or(b.Edges-a.Edges, a.Cluster-b.Cluster) })
		if len(c.Links) > clusterTopLinks {
			c.Links = c.Links[:clusterTopLinks]
		}
		out.List = append(out.List, c)
	}
	for i, orig := range kept {
		out.Of[uids[orig]] = newID[member[i]]
	}
	return out, nil
}

// describeCluster names a community of the renumbered nodes ids: its most
// common folder and its best connected member.
func describeCluster(ids []int64, kept []int, heads []graph.Node, degree []float64) Cluster {
	folders := map[string]int{}
	top := -1
	for _, id := range ids {
		h := heads[kept[id]]
		folders[folderOf(h.Path)]++
		if top < 0 || degree[id] > degree[top] || degree[id] == degree[top] && h.UID < heads[kept[top]].UID {
			top = int(id)
		}
	}
	fc := make([]FolderCount, 0, len(folders))
	for f, n := range folders {
		fc = append(fc, FolderCount{f, n})
	}
	slices.SortFunc(fc, func(a, b FolderCount) int { return cmp.Or(b.Count-a.Count, cmp.Compare(a.Folder, b.Folder)) })
	if len(fc) > clusterTopFolders {
		fc = fc[:clusterTopFolders]
	}
	t := heads[kept[top]]
	return Cluster{Name: fc[0].Folder + " (" + t.Label + ")", Folder: fc[0].Folder, Top: t.UID, TopLabel: t.Label, Size: len(ids), Folders: fc}
}

// folderOf is the folder of a repo-relative path ("." for the root).
func folderOf(p string) string {
	if p == "" {
		return "."
	}
	return path.Dir(p)
}

// clusterCache holds the last ClustersOf answer, keyed by the graph and
// the seq of its last change: detection costs seconds on a large tree,
// and the Hub and cos_graph_export ask again for the same graph.
var clusterCache struct {
	// mu guards the fields below.
	mu  sync.Mutex
	g   *projections.Graph
	seq uint64
	// version is g.Version() when c was computed.
	version uint64
	c       *Clusters
}

// CachedClusters is ClustersOf, answered from the last call when g has
// not changed since (g.LastChange(pos), pos the log position the view
// reflects). The answer is shared: do not modify it.
func CachedClusters(ctx context.Context, g *projections.Graph, pos uint64) (*Clusters, error) {
	seq, version := g.LastChange(pos), g.Version()
	clusterCache.mu.Lock()
	if clusterCache.g == g && clusterCache.seq == seq && clusterCache.version == version && clusterCache.c != nil {
		c := clusterCache.c
		clusterCache.mu.Unlock()
		return c, nil
	}
	clusterCache.mu.Unlock()
	c, err := ClustersOf(ctx, g)
	if err != nil {
		return nil, err
	}
	clusterCache.mu.Lock()
	clusterCache.g, clusterCache.seq, clusterCache.version, clusterCache.c = g, seq, version, c
	clusterCache.mu.Unlock()
	return c, nil
}
