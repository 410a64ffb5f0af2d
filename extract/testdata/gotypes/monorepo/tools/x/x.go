// Package x, the tools' copy.
package x

// Hello greets.
func Hello() string { return "tools" }

// Tool is the tools' copy only.
func Tool() {}
