// Package x, the examples' copy.
package x

// Hello greets.
func Hello() string { return "examples" }
