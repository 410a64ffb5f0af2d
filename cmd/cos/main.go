// Command cos is the knowledge server for coding agents; see package cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/cos-dev/cos/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
