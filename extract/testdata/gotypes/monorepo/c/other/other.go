// Package other of module c imports nothing of module b.
package other

// Alone calls nothing.
func Alone() {}
