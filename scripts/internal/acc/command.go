package acc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"time"
)

// ErrUsage is returned by a harness's run for a bad command line; Main
// exits with status 2 for it.
var ErrUsage = errors.New("usage")

// Main runs a harness with the process's arguments, stdout and stderr,
// cancelled on an interrupt, and exits: 2 for ErrUsage, 1 for another
// error (printed to stderr after name), 0 otherwise.
func Main(name string, run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case errors.Is(err, ErrUsage):
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// Report is everything -json writes: where and when it ran, and one
// result a target.
type Report[R any] struct {
	Go      string `json:"go"`
	GOOS    string `json:"goos"`
	GOARCH  string `json:"goarch"`
	Time    string `json:"time"`
	Targets []R    `json:"targets"`
}

// NewReport returns a report of this toolchain and platform, stamped now
// (UTC, RFC 3339), with no targets yet.
func NewReport[R any]() Report[R] {
	return Report[R]{Go: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, Time: time.Now().UTC().Format(time.RFC3339)}
}

// WriteJSON writes v to path as indented JSON ending in a newline.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
