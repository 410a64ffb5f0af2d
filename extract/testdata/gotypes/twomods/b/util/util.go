// Package util of module b.
package util

// Res is returned by New.
type Res struct{}

// New returns a resource.
func New() *Res { return &Res{} }

// Close has a pointer receiver.
func (r *Res) Close() {}

// Do is declared by both modules' util.
func Do() {}

// Extra is declared by b's util only.
func Extra() {}
