// Package e1 uses the examples' x.
package e1

import "example.com/x"

// Greet calls x.
func Greet() string { return x.Hello() }
