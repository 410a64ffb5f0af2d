//go:build !plan9

package main

// platform has a twin in platform_plan9.go, which no test platform builds.
func platform() string { return "other" }

// Handle has a twin in platform_plan9.go.
type Handle struct{}

// Close has a twin in platform_plan9.go.
func (Handle) Close() {}
