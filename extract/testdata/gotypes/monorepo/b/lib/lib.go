// Package lib is module b's library.
package lib

// Sum adds.
func Sum(x, y int) int { return x + y }

// List holds items.
type List struct{ items []int }

// New returns a List.
func New() *List { return &List{} }

// Len counts.
func (l *List) Len() int { return len(l.items) }
