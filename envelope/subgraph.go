package envelope

import (
	"slices"
	"strconv"
	"strings"
)

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
// Long strings are cut before nodes are dropped: when counting every string
// of at least ScalarTrimFloorChars characters at its least (an empty head,
// the marker and its path in truncated_string_fields) keeps more nodes than
// counting them whole, that larger K is kept and the string step that
// follows gives the strings the longest common head that fits. Without
// this, one node with a 60,000-character note, first by degree, emptied the
// answer.
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
	whole := func(v any, _ string) (cost, bool) { return measureLimited(v, t.budget) }
	base, over := measureLimited(t.doc, t.budget)
	keepNodes, keepEdges := 0, 0
	if !over {
		keepNodes, keepEdges = t.grow(base, nodes, edges, order, completeAt, whole)
	}
	if keepNodes < n || keepEdges < m {
		// Long strings are cut before nodes are dropped: with every string
		// of at least ScalarTrimFloorChars characters at its least (an
		// empty head and the marker, its path named in meta), more nodes
		// may fit. Then they are kept, and the string step (run, after
		// this) gives those strings the longest common head that fits.
		// So one node with a huge string costs its string, not the answer.
		if base, cuts, ok := t.cutBase(); ok {
			// Until a string is cut, an element costs what it did whole
			// and the base is larger: past node keepNodes+1 with nothing
			// cut, no larger K can come, so the pass stops there.
			seen := 0
			least := func(v any, path string) (cost, bool) {
				if strings.HasPrefix(path, keyNodes+"[") {
					seen++
				}
				if cuts == 0 && seen > keepNodes+1 {
					return cost{}, true
				}
				c, n, over := t.leastCost(v, path)
				cuts += n
				return c, over
			}
			k, e := t.grow(base, nodes, edges, order, completeAt, least)
			if k > keepNodes || (k == keepNodes && e > keepEdges) {
				keepNodes, keepEdges = k, e
			}
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

// grow returns the largest K (and its edge count) for which the K nodes
// first in order and the edges completeAt them fit, given base, the cost of
// the envelope with both lists empty, and elemCost, the cost of an element
// at a JSON path (and whether it alone is over the budget).
func (t *trimmer) grow(base cost, nodes, edges []any, order []int, completeAt [][]int, elemCost func(v any, path string) (cost, bool)) (keepNodes, keepEdges int) {
	acc := base
	for k := 1; k <= len(nodes); k++ {
		i := order[k-1]
		c, cover := elemCost(nodes[i], keyNodes+"["+strconv.Itoa(i)+"]")
		if cover {
			return
		}
		next := acc.plus(c)
		if k > 1 {
			next = next.plus(asciiCost(1))
		}
		ek := keepEdges
		for _, j := range completeAt[k] {
			c, cover := elemCost(edges[j], keyEdges+"["+strconv.Itoa(j)+"]")
			if cover {
				return
			}
			next = next.plus(c)
			if ek > 0 {
				next = next.plus(asciiCost(1))
			}
			ek++
		}
		if next.plus(asciiCost(digits(k)-1+digits(ek)-1)).size() > t.budget {
			return
		}
		acc, keepNodes, keepEdges = next, k, ek
	}
	return
}

// leastCost is the cost of element v at path (nodes[i], edges[j]) once the
// string step has cut its long strings to an empty head: the element with
// each such string replaced by TruncationMarker, plus each string's path
// in truncated_string_fields (and a comma); with the number of such strings
// and whether the element alone is over the budget. The path is written with the
// element's index in the whole list, never shorter than its index in the
// kept list, so the estimate is never low.
func (t *trimmer) leastCost(v any, path string) (c cost, cut int, over bool) {
	var fields []stringField
	var cp any
	cp = collectStrings(v, path, func(nv any) { cp = nv }, &fields)
	var names cost
	for _, f := range fields {
		f.set(TruncationMarker)
		names = names.plus(stringCost(f.path)).plus(asciiCost(1))
	}
	c, over = measureLimited(cp, t.budget)
	if over {
		return c, len(fields), true
	}
	c = c.plus(names)
	return c, len(fields), c.size() > t.budget
}

// cutBase returns the cost of the envelope with the nodes and edges lists
// empty and every other long string cut to an empty head, with
// truncated_string_fields naming them (an empty list when none), how many
// there are, and whether it fits the budget. It leaves the body and meta as
// they were.
func (t *trimmer) cutBase() (cost, int, bool) {
	saved := make(map[string]any, len(t.body))
	for k, v := range t.body {
		saved[k] = v
	}
	var fields []stringField
	for k, v := range t.body {
		if k == keyMeta {
			continue
		}
		if _, isString := v.(string); isString && k == keyNode {
			continue
		}
		t.body[k] = collectStrings(v, pathKey(k, true), func(nv any) { t.body[k] = nv }, &fields)
	}
	names := []any{}
	for _, f := range fields {
		f.set(TruncationMarker)
		names = append(names, f.path)
	}
	t.meta[KeyTruncatedStrings] = names
	c, over := measureLimited(t.doc, t.budget)
	delete(t.meta, KeyTruncatedStrings)
	for k, v := range saved {
		t.body[k] = v
	}
	return c, len(fields), !over
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
