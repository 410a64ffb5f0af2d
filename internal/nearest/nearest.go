// Package nearest ranks names by how close they are to a mistyped one, for
// error messages that suggest what the caller probably meant ("did you mean
// cos_graph_resolve?", "unknown key complxity; did you mean complexity?").
package nearest

import (
	"sort"
	"strings"
)

// Distance is the Levenshtein edit distance between a and b, in runes.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Rank returns up to k of names, closest to name first: by edit distance
// (case-insensitive), halved when one contains the other, ties broken by
// name.
func Rank(name string, names []string, k int) []string {
	type scored struct {
		name string
		d    int
	}
	low := strings.ToLower(name)
	ss := make([]scored, 0, len(names))
	for _, n := range names {
		ln := strings.ToLower(n)
		d := Distance(low, ln)
		if strings.Contains(ln, low) || strings.Contains(low, ln) {
			d /= 2
		}
		ss = append(ss, scored{n, d})
	}
	sort.Slice(ss, func(i, j int) bool {
		if ss[i].d != ss[j].d {
			return ss[i].d < ss[j].d
		}
		return ss[i].name < ss[j].name
	})
	out := make([]string, 0, k)
	for i := 0; i < len(ss) && i < k; i++ {
		out = append(out, ss[i].name)
	}
	return out
}

// Best returns the candidate closest to s when it is within maxDist edits or
// one is a prefix of the other, else "".
func Best(s string, candidates []string, maxDist int) string {
	low := strings.ToLower(s)
	best, bestD := "", maxDist+1
	for _, c := range candidates {
		d := Distance(low, c)
		if strings.HasPrefix(c, low) || strings.HasPrefix(low, c) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
