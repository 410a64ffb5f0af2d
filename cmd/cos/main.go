// Command cos is the knowledge server for coding agents; see package cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/cos-dev/cos/cli"
)

// defaultGCPercent trades memory for CPU: projections are large, long-lived
// heaps, and replaying a 100,000-node graph spent a third of its CPU in GC at
// the default of 100 (measured: GOGC=400 took replay CPU from 11.9 s to
// 7.8 s). GOGC in the environment still wins.
const defaultGCPercent = 300

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
