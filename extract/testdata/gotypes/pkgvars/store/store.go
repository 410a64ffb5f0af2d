// Package store declares a type and a package-level variable of it.
package store

// Store is held in package-level variables.
type Store struct{ name string }

// Load has a pointer receiver.
func (s *Store) Load() string { return s.name }

// Name has a value receiver.
func (s Store) Name() string { return s.name }

// Default is a package-level variable used from another package.
var Default = &Store{name: "default"}
