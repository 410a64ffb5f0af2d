//go:build !linux

package search

import "time"

// threadCPU is unavailable here; benchmarks report wall time only.
func threadCPU() (time.Duration, bool) { return 0, false }

// processCPU is unavailable here.
func processCPU() (time.Duration, bool) { return 0, false }
