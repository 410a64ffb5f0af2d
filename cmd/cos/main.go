// Command cos is the knowledge server for coding agents; see package cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/cos-dev/cos/cli"
)

// defaultGCPercent trades memory for CPU: projections are large, long-lived
// heaps, and replaying a 100,000-node graph spent a third of its CPU in GC at
// the default of 100 (measured: GOGC=400 took replay CPU from 11.9 s to
// 7.8 s). GOGC in the environment still wins.
const defaultGCPercent = 300

// defaultMemoryLimit is the soft heap limit (bytes) under which the GC
// paces itself when GOMEMLIMIT is unset: with GOGC=300 a heap may grow to
// four times what is live, and type-checking a large tree (all of
// GOROOT/src) holds about 1 GB live; the limit keeps the peak near 2.5 GiB
// instead of past 3, at some GC CPU when it is reached. A limit is never a
// cap: a larger live heap still gets the memory it needs, and the limit
// follows a live heap past it (followLiveHeap) up to memoryLimitCeiling.
const defaultMemoryLimit = 5 << 29

// liveHeapPeriod is how often the soft limit is set from the live heap.
const liveHeapPeriod = 250 * time.Millisecond

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	stopFollow := make(chan struct{})
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
		go followLiveHeap(defaultMemoryLimit, memoryLimitCeiling, liveHeapPeriod, stopFollow)
	}
	stopProfiles := startProfiles()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() { // after the first signal, a second one ends the process at once
		<-ctx.Done()
		stop()
	}()
	code := cli.Run(ctx, os.Args[1:], cli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	close(stopFollow)
	stopProfiles()
	os.Exit(code)
}
