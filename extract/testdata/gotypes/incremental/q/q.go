// Package q calls p and does not change.
package q

import "example.com/incremental/p"

// Use calls every function of p.
func Use() int { return p.F() + p.G() + p.H() }
