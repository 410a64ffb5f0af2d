package extract

import "sort"

// lineIndex maps byte offsets to 1-based line numbers in O(log n).
type lineIndex []int // offsets of line starts

func newLineIndex(src []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range src {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

// line returns the 1-based line of byte offset off.
func (l lineIndex) line(off int) int {
	return sort.Search(len(l), func(i int) bool { return l[i] > off })
}
