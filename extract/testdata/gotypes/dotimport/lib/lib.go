// Package lib is dot-imported by use.
package lib

// Counter is used by its bare name in use.
type Counter struct{ n int }

// Inc has a pointer receiver.
func (c *Counter) Inc() { c.n++ }

// NewCounter returns a counter.
func NewCounter() *Counter { return &Counter{} }

// Helper is called by its bare name in use.
func Helper() int { return 1 }
