package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// tableKernel holds `benchmcp kernel`: a large tree (the Linux kernel in
// bench.sh) indexed fresh, again unchanged, after an edit of a few files,
// and the first read of a process started cold on its state folder.
const tableKernel = "kernel"

// Rows of tableKernel; the edit row names its file count.
const (
	rowKernelFull      = "full (fresh state folder)"
	rowKernelNoChange  = "again, nothing changed"
	rowKernelColdCall  = "cold start: " + rowColdCall
	rowKernelColdServe = "cold start: " + rowColdServe
)

// Rows of tableCold, after the tree's label, and of tableKernel.
const (
	rowColdCall  = "`cos call cos_graph_resolve`, one process"
	rowColdServe = "`cos serve`, first answer over MCP"
)

// Defaults of the kernel flags.
const (
	defaultEdits     = 10
	defaultEditDir   = "drivers/net"
	defaultColdQuery = "kmalloc"
)

// kernelRuns measures cfg.Root, a git work tree it may edit, cfg.Runs
// times: `cos index` into a fresh cfg.State (removed first), again with
// nothing changed, again after appending a function to cfg.Edits C files
// under cfg.EditDir (evenly spaced in path order, different text each
// run), then the first answer of cos_graph_resolve {q: cfg.Query} from a
// `cos call` and from a `cos serve` started cold on the state folder. The
// last run's state folder is left for `benchmcp reads`.
func kernelRuns(ctx context.Context, rec *Recorder, cfg config) error {
	if cfg.Root == "" || cfg.State == "" {
		return errors.New("kernel: -root (a git work tree) and -state (a state folder to create) are required")
	}
	files, err := editTargets(filepath.Join(cfg.Root, cfg.EditDir), cfg.Edits)
	if err != nil {
		return fmt.Errorf("kernel: -edit-dir: %w", err)
	}
	editRow := fmt.Sprintf("after %d files of %s edited", len(files), cfg.EditDir)
	for run := 0; run < cfg.Runs; run++ {
		if err := os.RemoveAll(cfg.State); err != nil {
			return err
		}
		step := func(what string) {
			fmt.Fprintf(os.Stderr, "benchmcp kernel: run %d/%d: %s (%s)\n", run+1, cfg.Runs, what, time.Now().UTC().Format("15:04:05"))
		}
		step("cos index, fresh state folder")
		if err := indexOnce(ctx, rec, tableKernel, rowKernelFull, cfg.Cos, cfg.State, cfg.Root); err != nil {
			return err
		}
		if n, err := dirSize(cfg.State); err == nil {
			rec.Add(tableKernel, rowKernelFull, "state folder", "MB", float64(n)/1e6)
		}
		step("cos index, nothing changed")
		if err := indexOnce(ctx, rec, tableKernel, rowKernelNoChange, cfg.Cos, cfg.State, cfg.Root); err != nil {
			return err
		}
		step(editRow)
		for i, f := range files {
			if err := appendFunction(f, run, i); err != nil {
				return err
			}
		}
		if err := indexOnce(ctx, rec, tableKernel, editRow, cfg.Cos, cfg.State, cfg.Root); err != nil {
			return err
		}
		step("cold start, cos call")
		if err := coldCall(ctx, rec, tableKernel, rowKernelColdCall, cfg); err != nil {
			return err
		}
		step("cold start, cos serve")
		if err := coldServe(ctx, rec, tableKernel, rowKernelColdServe, cfg); err != nil {
			return err
		}
	}
	return nil
}

// editTargets are n .c files under dir, evenly spaced in sorted path
// order; an error when dir has fewer.
func editTargets(dir string, n int) ([]string, error) {
	var all []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.HasSuffix(path, ".c") {
			all = append(all, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(all) < n {
		return nil, fmt.Errorf("%s has %d .c files, want at least %d", dir, len(all), n)
	}
	slices.Sort(all)
	out := make([]string, n)
	for i := range out {
		out[i] = all[i*len(all)/n]
	}
	return out, nil
}

// appendFunction appends a small C function to file, named after run and
// i so that every run changes the file again.
func appendFunction(file string, run, i int) error {
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "\n/* benchmcp kernel: edit of run %d */\nint benchmcp_edit_r%d_f%d(int x)\n{\n\treturn x + %d;\n}\n", run, run, i, i)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// coldRuns times the first read of a process started cold on cfg.State
// (indexed), cfg.Runs times: coldCall and coldServe, in tableCold, rows
// prefixed with cfg.Label.
func coldRuns(ctx context.Context, rec *Recorder, cfg config) error {
	if cfg.State == "" {
		return errors.New("cold: -state (a state folder `cos index` filled) is required")
	}
	if _, err := os.Stat(cfg.State); err != nil {
		return fmt.Errorf("cold: -state: %w", err)
	}
	label := cfg.Label
	if label == "" {
		label = filepath.Base(cfg.Cos)
	}
	for range cfg.Runs {
		if err := coldCall(ctx, rec, tableCold, label+": "+rowColdCall, cfg); err != nil {
			return err
		}
		if err := coldServe(ctx, rec, tableCold, label+": "+rowColdServe, cfg); err != nil {
			return err
		}
	}
	return nil
}

// tableCold holds `benchmcp cold`: the first read of a process started
// cold on an indexed state folder.
const tableCold = "cold"

// coldCall times `cos call cos_graph_resolve {q}` on the state folder: one
// process that opens the store, loads the read models and answers.
func coldCall(ctx context.Context, rec *Recorder, table, row string, cfg config) error {
	args, _ := json.Marshal(map[string]any{"q": cfg.Query})
	out, m, err := runMeasured(cosCommand(ctx, cfg.Cos, "--state-dir", cfg.State, "call", "cos_graph_resolve", string(args)))
	if err != nil {
		return fmt.Errorf("cos call cos_graph_resolve %s: %w", args, err)
	}
	var env struct {
		OK bool `json:"ok"`
	}
	if err := json.Unmarshal(out, &env); err != nil || !env.OK {
		return fmt.Errorf("cos call cos_graph_resolve %s: not an ok envelope: %.300s", args, out)
	}
	addMeasured(rec, table, row, m)
	return nil
}

// coldServe starts `cos serve` on the state folder and times from the start
// to its first ok answer of cos_graph_resolve {q}; the peak RSS is the
// server's right after that answer, with the read models loaded.
func coldServe(ctx context.Context, rec *Recorder, table, row string, cfg config) error {
	t := time.Now()
	c, err := Start(ctx, cosServer(cfg.Cos, cfg.State, "off"))
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.MustOK(ctx, "cos_graph_resolve", map[string]any{"q": cfg.Query}); err != nil {
		return err
	}
	wall := time.Since(t)
	rec.Add(table, row, colWall, "s", wall.Seconds())
	if cpu, ok := procCPU(c.PID()); ok {
		rec.Add(table, row, colCPU, "s", cpu.Seconds())
	}
	if rss := procStatusBytes(c.PID(), "VmHWM"); rss > 0 {
		rec.Add(table, row, colPeakRSS, "MB", float64(rss)/1e6)
	}
	return nil
}
