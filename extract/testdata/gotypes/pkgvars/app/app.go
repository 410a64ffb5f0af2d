// Package app calls methods on package-level variables, its own and
// another package's.
package app

import (
	"bytes"

	"example.com/pkgvars/store"
)

var (
	local  store.Store
	buf    bytes.Buffer
	stores = map[string]*store.Store{}
)

// OtherPackage calls through another package's variable.
func OtherPackage() string { return store.Default.Load() }

// ValueMethod calls a value method through another package's variable.
func ValueMethod() string { return store.Default.Name() }

// SamePackage calls a pointer method on this package's variable.
func SamePackage() string { return local.Load() }

// External calls a method of an outside type on a package variable.
func External() { buf.WriteString("x") }

// MapVar calls through a package-level map.
func MapVar() string { return stores["a"].Load() }
