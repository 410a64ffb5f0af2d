// Package c requires module b with no replace, outside go.work.
package c

import "example.com/b/lib"

// Total calls lib.
func Total() int { return lib.Sum(3, 4) }
