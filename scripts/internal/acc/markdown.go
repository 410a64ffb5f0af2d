package acc

import (
	"fmt"
	"sort"
	"strings"
)

// Pct prints a share as a percentage with one decimal, "–" for a negative
// share (a Ratio of nothing).
func Pct(share float64) string {
	if share < 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*share)
}

// Plural prints "1 site", "2 sites".
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Bracket prints tags as " [a, b]", nothing for none.
func Bracket(tags []string) string {
	if len(tags) == 0 {
		return ""
	}
	return " [" + strings.Join(tags, ", ") + "]"
}

// TagList prints tag counts, most first, then by name: "a 3, b 1"; "none"
// when there is nothing to print. of > 0 is the number the counts are out
// of: what the tags leave of it is added as "no other edge N".
func TagList(m map[string]int, of int) string {
	keys := make([]string, 0, len(m))
	tagged := 0
	for k, n := range m {
		keys = append(keys, k)
		tagged += n
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, 0, len(keys)+1)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if of > 0 && of > tagged {
		parts = append(parts, fmt.Sprintf("no other edge %d", of-tagged))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
