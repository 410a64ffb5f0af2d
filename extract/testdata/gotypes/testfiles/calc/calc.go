// Package calc is called by its in-package and external tests.
package calc

// Add is called by both kinds of test file.
func Add(a, b int) int { return a + b }

func internal() int { return 42 }
