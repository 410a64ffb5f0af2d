// Package p loses F from a.go to b.go in TestRun_GoTypesIncremental.
package p

// F moves to b.go.
func F() int { return 1 }

// G stays in a.go.
func G() int { return 2 }
