//go:build ignore

package main

// legacy is in no build: //go:build ignore.
func legacy() string { return "legacy" }
