// Package a calls into module b, replaced by ../b and listed in go.work.
package a

import "example.com/b/lib"

// Run calls lib.
func Run() int { return lib.Sum(1, 2) + lib.New().Len() }
