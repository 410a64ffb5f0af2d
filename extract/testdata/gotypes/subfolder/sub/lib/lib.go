// Package lib is inside the indexed folder.
package lib

// Thing is returned by NewThing.
type Thing struct{}

// NewThing returns a thing.
func NewThing() *Thing { return &Thing{} }

// Do has a pointer receiver.
func (t *Thing) Do() {}

// Hello is a package function.
func Hello() string { return "hi" }
