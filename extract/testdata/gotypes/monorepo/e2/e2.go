// Package e2 uses the tools' x.
package e2

import "example.com/x"

// Greet calls x.
func Greet() string { x.Tool(); return x.Hello() }
