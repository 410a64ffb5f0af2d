package lang

import "sort"

// LineIndex maps byte offsets to 1-based line numbers in O(log n).
type LineIndex []int // offsets of line starts

func NewLineIndex(src []byte) LineIndex {
	idx := LineIndex{0}
	for i, c := range src {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

// Line returns the 1-based line of byte offset off.
func (l LineIndex) Line(off int) int {
	return sort.Search(len(l), func(i int) bool { return l[i] > off })
}
