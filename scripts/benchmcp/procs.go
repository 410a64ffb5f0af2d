package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/cos-dev/cos/eventlog/boltlog"
)

// Environment of the boltlog test binary's child mode (eventlog/boltlog's
// multiprocess_test.go): role "bench" appends per events from each of
// goroutines goroutines to its own streams of the log at path.
const (
	eventlogChildEnv = "COS_EVENTLOG_CHILD"
	eventlogArgsEnv  = "COS_EVENTLOG_ARGS"
)

// appendProcesses is BenchmarkAppend_Processes timed from outside: procs
// OS processes of the boltlog test binary, goroutines appenders each,
// per appends per appender, on one fresh log; events/s over the wall time
// of the slowest (process start-up included, as in the benchmark). It
// stands in for the benchmark when that fails.
func appendProcesses(ctx context.Context, rec *Recorder, cfg config, testBin string, procs, goroutines, per int) error {
	for run := 0; run < cfg.Runs; run++ {
		dir, err := os.MkdirTemp(cfg.TmpDir, "procs-")
		if err != nil {
			return err
		}
		path := filepath.Join(dir, "events.db")
		l, err := boltlog.Open(ctx, path, boltlog.Options{}) // created once, as the benchmark does
		if err != nil {
			removeAll(dir)
			return err
		}
		if err := l.Close(ctx); err != nil {
			removeAll(dir)
			return err
		}
		var wg sync.WaitGroup
		errc := make(chan error, procs)
		t := time.Now()
		for p := 0; p < procs; p++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.CommandContext(ctx, testBin, "-test.run=^$")
				cmd.Env = append(os.Environ(), eventlogChildEnv+"=bench",
					fmt.Sprintf("%s=%s,%d,%d,%d", eventlogArgsEnv, path, p, goroutines, per))
				if out, err := cmd.CombinedOutput(); err != nil {
					errc <- fmt.Errorf("child %d: %w: %.300s", p, err, out)
				}
			}()
		}
		wg.Wait()
		wall := time.Since(t)
		removeAll(dir)
		close(errc)
		if err := <-errc; err != nil {
			return err
		}
		rec.Add(tableEventLog, rowProcessesOutside, "events/s", "events/s", float64(procs*goroutines*per)/wall.Seconds())
	}
	return nil
}

// rowProcessesOutside is the event-log row appendProcesses fills.
const rowProcessesOutside = "Append_Processes_Outside"
