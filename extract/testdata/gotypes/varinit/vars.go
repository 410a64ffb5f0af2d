// Package varinit calls from package-level variable initialisers: the
// caller is the file.
package varinit

import "strings"

var reg = newRegistry()

var total = count() + len(reg.items)

var _ = register("a")

var onTick = func() int { return tick() }

var upper = strings.ToUpper("x")

var found = reg.lookup("k")
