// Package use dot-imports an in-tree package and a standard one.
package use

import (
	. "strings"

	. "example.com/dotimport/lib"
)

// Func calls a dot-imported function.
func Func() int { return Helper() }

// Ctor calls a method on what a dot-imported function returns.
func Ctor() {
	c := NewCounter()
	c.Inc()
}

// Value calls a method on a variable of a dot-imported type.
func Value() {
	var d Counter
	d.Inc()
}

// Std calls a dot-imported standard library function.
func Std() string { return ToUpper("x") }
