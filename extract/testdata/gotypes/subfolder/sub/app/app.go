// Package app imports a package inside the indexed folder and one above it.
package app

import (
	"example.com/subfolder"
	"example.com/subfolder/sub/lib"
)

// Run calls into lib (in the tree) and into the module root (outside it).
func Run() {
	_ = lib.Hello()
	lib.NewThing().Do()
	_ = subfolder.Top()
}
