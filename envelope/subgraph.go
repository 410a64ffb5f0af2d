package envelope

import "slices"

// Coherent subgraph trim (docs/envelope.md, the subgraph tier).
//
// A {nodes, edges} body is a graph, not a list of rows: cutting its tail
// leaves a disconnected slice, cutting edges first leaves a canvas with
// nothing to draw. So it keeps the K nodes of highest incident degree (ties
// in original order) and exactly the edges whose two ends are both kept, for
// the largest K whose envelope fits the subgraph ceiling. Kept nodes and
// edges keep their original order. Meta gets truncated_subgraph and
// truncated_nodes_from/_to, truncated_edges_from/_to.
//
// A node's id is its "uid"; an edge's ends are "source" and "target" (also
// accepted: source_uid/target_uid, src_uid/dst_uid). An edge whose end is not
// a node of the body is never kept once the trim runs.
//
// Degrees, ranks and, per K, the edges that become complete are computed
// once; K then grows from 0 with per-element costs and stops at the first K
// that does not fit — the same K a binary search over K finds, since the
// size only grows with K.

func (t *trimmer) subgraph() {
	nodes := t.body[keyNodes].([]any)
	edges := t.body[keyEdges].([]any)
	n, m := len(nodes), len(edges)

	index := make(map[string]int, n) // uid → first node carrying it
	for i, nd := range nodes {
		if uid := field(nd, "uid"); uid != "" {
			if _, dup := index[uid]; !dup {
				index[uid] = i
			}
		}
	}
	lookup := func(uid string) int {
		if i, ok := index[uid]; ok && uid != "" {
			return i
		}
		return -1
	}
	ends := make([][2]int, m)
	degree := make([]int, n)
	for j, e := range edges {
		s := lookup(field(e, "source", "source_uid", "src_uid"))
		d := lookup(field(e, "target", "target_uid", "dst_uid"))
		ends[j] = [2]int{s, d}
		if s >= 0 {
			degree[s]++
		}
		if d >= 0 {
			degree[d]++
		}
	}
	order := make([]int, n) // node indices, highest degree first
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return degree[b] - degree[a] })
	rank := make([]int, n)
	for r, i := range order {
		rank[i] = r
	}
	// completeAt[K] lists the edges kept from K nodes on, not before.
	completeAt := make([][]int, n+1)
	for j, ee := range ends {
		if ee[0] >= 0 && ee[1] >= 0 {
			k := max(rank[ee[0]], rank[ee[1]]) + 1
			completeAt[k] = append(completeAt[k], j)
		}
	}

	t.body[keyNodes] = []any{}
	t.body[keyEdges] = []any{}
	t.meta[KeyTruncatedSubgraph] = true
	t.meta[TruncatedFromKey(keyNodes)] = n
	t.meta[TruncatedToKey(keyNodes)] = 0
	t.meta[TruncatedFromKey(keyEdges)] = m
	t.meta[TruncatedToKey(keyEdges)] = 0
	base, over := measureLimited(t.doc, t.budget)
	keepNodes, keepEdges := 0, 0
	if !over {
		acc := base
	grow:
		for k := 1; k <= n; k++ {
			next := acc
			c, cover := measureLimited(nodes[order[k-1]], t.budget)
			if cover {
				break
			}
			next = next.plus(c)
			if k > 1 {
				next = next.plus(asciiCost(1))
			}
			ek := keepEdges
			for _, j := range completeAt[k] {
				c, cover := measureLimited(edges[j], t.budget)
				if cover {
					break grow
				}
				next = next.plus(c)
				if ek > 0 {
					next = next.plus(asciiCost(1))
				}
				ek++
			}
			if next.plus(asciiCost(digits(k)-1+digits(ek)-1)).size() > t.budget {
				break
			}
			acc, keepNodes, keepEdges = next, k, ek
		}
	}
	if keepNodes == n && keepEdges == m { // nothing to cut after all
		t.body[keyNodes], t.body[keyEdges] = nodes, edges
		for _, k := range []string{KeyTruncatedSubgraph, TruncatedFromKey(keyNodes), TruncatedToKey(keyNodes), TruncatedFromKey(keyEdges), TruncatedToKey(keyEdges)} {
			delete(t.meta, k)
		}
		return
	}
	keptNodes := make([]any, 0, keepNodes)
	for i, nd := range nodes {
		if rank[i] < keepNodes {
			keptNodes = append(keptNodes, nd)
		}
	}
	keptEdges := make([]any, 0, keepEdges)
	for j, e := range edges {
		if ee := ends[j]; ee[0] >= 0 && ee[1] >= 0 && rank[ee[0]] < keepNodes && rank[ee[1]] < keepNodes {
			keptEdges = append(keptEdges, e)
		}
	}
	t.body[keyNodes] = keptNodes
	t.body[keyEdges] = keptEdges
	t.meta[TruncatedToKey(keyNodes)] = keepNodes
	t.meta[TruncatedToKey(keyEdges)] = keepEdges
	t.cut = true
}

// field returns the first of keys that holds a string in the object v.
func field(v any, keys ...string) string {
	o, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	for _, k := range keys {
		if s, ok := o[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}
