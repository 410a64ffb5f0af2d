//go:build !unix

package scip

import "os/exec"

// killGroup leaves cmd as it is: its cancellation kills the indexer
// itself.
func killGroup(*exec.Cmd) {}
