// Command benchmcp drives MCP servers over stdio and prints what it
// measured as JSON lines (one Result per line), for scripts/bench.sh.
//
//	benchmcp roundtrip   -cos BIN [-nodes 100000 -calls 200 -runs 3]
//	benchmcp propagation -cos BIN [-calls 50 -runs 3 -nats off]
//	benchmcp index       -cos BIN -root DIR [-runs 3]
//	benchmcp reads       -cos BIN -state DIR [-calls 200 -runs 3 -seed 1 -label NAME -answers FILE]   (state DIR: `cos index` done)
//	benchmcp kernel      -cos BIN -root DIR -state DIR [-edit-dir drivers/net -edits 10 -query kmalloc -runs 3]   (root DIR: a git work tree it edits)
//	benchmcp cold        -cos BIN -state DIR [-query kmalloc -runs 3 -label NAME]   (first read of a cold cos call and cos serve)
//	benchmcp compare     -cos BIN -memory-js FILE [-node node -entities 5000 -batch 100 -lookups 1000 -reads 5 -writers 4 -runs 3]
//	benchmcp procs       -testbin EVENTLOG.test [-calls 100 -runs 3]   (4 processes × 16 appenders × calls appends)
//	benchmcp gobench     -table NAME < go-test-bench-output
//	benchmcp table       FILE.jsonl...   (Markdown tables with medians, spreads and ratios)
//
// Every timing is wall-clock time around a whole JSON-RPC round trip (the
// request written to the server's stdin until its response line is read).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
)

// Defaults of the flags.
const (
	defaultNodes    = 100_000
	defaultCalls    = 200
	defaultRuns     = 3
	defaultEntities = 5_000
	defaultBatch    = 100
	defaultLookups  = 1_000
	defaultReads    = 5
	defaultWriters  = 4
)

// config is every flag of every subcommand.
type config struct {
	Cos      string
	Node     string
	MemoryJS string
	TmpDir   string
	Root     string
	TestBin  string
	Table    string
	NATS     string
	Systems  string
	State    string
	Label    string
	Answers  string
	EditDir  string
	Query    string
	Window   string
	Seed     uint64
	Nodes    int
	Calls    int
	Runs     int
	Entities int
	Batch    int
	Lookups  int
	Reads    int
	Writers  int
	Edits    int
}

func (c *config) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.Cos, "cos", "cos", "cos binary")
	fs.StringVar(&c.Node, "node", "node", "node binary (memory server)")
	fs.StringVar(&c.MemoryJS, "memory-js", "", "dist/index.js of @modelcontextprotocol/server-memory")
	fs.StringVar(&c.TmpDir, "tmp", "", "folder for temporary stores (default: the system's)")
	fs.StringVar(&c.Root, "root", "", "folder to index")
	fs.StringVar(&c.TestBin, "testbin", "", "boltlog test binary (procs)")
	fs.StringVar(&c.Table, "table", tableEventLog, "table the parsed go benchmarks go to")
	fs.StringVar(&c.NATS, "nats", "off", `comma-separated --nats modes to measure propagation under ("off", "auto")`)
	fs.StringVar(&c.State, "state", "", "state folder of an indexed repository (reads)")
	fs.StringVar(&c.Answers, "answers", "", "file the first run's answers go to, one JSON line per call, to diff two binaries (reads)")
	fs.StringVar(&c.Label, "label", "", "row prefix naming the binary or tree (reads, cold; default: the -cos file name)")
	fs.Uint64Var(&c.Seed, "seed", 1, "seed of the uid sample (reads)")
	fs.StringVar(&c.Systems, "systems", "cos,memory", "comma-separated systems to compare (cos, memory)")
	fs.IntVar(&c.Nodes, "nodes", defaultNodes, "synthetic graph size for round trips")
	fs.IntVar(&c.Calls, "calls", defaultCalls, "calls per tool per run")
	fs.IntVar(&c.Runs, "runs", defaultRuns, "runs; each figure is the median of the runs")
	fs.IntVar(&c.Entities, "entities", defaultEntities, "entities written (relations: twice as many)")
	fs.IntVar(&c.Batch, "batch", defaultBatch, "entities or relations per write call")
	fs.IntVar(&c.Lookups, "lookups", defaultLookups, "names looked up and nodes opened")
	fs.IntVar(&c.Reads, "reads", defaultReads, "whole-graph reads per run")
	fs.IntVar(&c.Writers, "writers", defaultWriters, "concurrent server processes on one store")
	fs.StringVar(&c.EditDir, "edit-dir", defaultEditDir, "folder of -root whose .c files the edit run changes (kernel)")
	fs.IntVar(&c.Edits, "edits", defaultEdits, "files edited before the edit run (kernel)")
	fs.StringVar(&c.Query, "query", defaultColdQuery, "name the cold-start read resolves (kernel, cold)")
	fs.StringVar(&c.Window, "window-start", "", `when the measured work started, as "HH:MM UTC, load L1 L5 L15" (default: when this command started; gobench: pass the time before go test ran)`)
}

func (c *config) validate() error {
	for _, v := range []struct {
		name string
		n    int
	}{{"nodes", c.Nodes}, {"calls", c.Calls}, {"runs", c.Runs}, {"entities", c.Entities}, {"batch", c.Batch}, {"lookups", c.Lookups}, {"reads", c.Reads}, {"writers", c.Writers}, {"edits", c.Edits}} {
		if v.n < 1 {
			return fmt.Errorf("-%s %d: must be ≥ 1", v.name, v.n)
		}
	}
	if c.Nodes < funcsPerFile+1 {
		return fmt.Errorf("-nodes %d: must be ≥ %d", c.Nodes, funcsPerFile+1)
	}
	if c.Nodes > maxSynthNodes || c.Entities > maxSynthNodes {
		return fmt.Errorf("-nodes/-entities: at most %d distinct synthetic names", maxSynthNodes)
	}
	if c.Entities < 3*c.Writers {
		return fmt.Errorf("-entities %d: want at least 3 per writer (-writers %d)", c.Entities, c.Writers)
	}
	return nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchmcp:", err)
		os.Exit(1)
	}
}

// run executes one subcommand; results go to out as JSON lines (Markdown
// for "table").
func run(ctx context.Context, args []string, in io.Reader, out io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: benchmcp roundtrip|propagation|index|reads|kernel|cold|compare|procs|gobench|table [flags]")
	}
	sub := args[0]
	fs := flag.NewFlagSet(sub, flag.ContinueOnError)
	var cfg config
	cfg.flags(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	var rec Recorder
	if cfg.Window == "" {
		cfg.Window = windowNow()
	}
	switch sub {
	case "roundtrip":
		if err := roundTrips(ctx, &rec, cfg); err != nil {
			return err
		}
	case "propagation":
		for _, mode := range strings.Split(cfg.NATS, ",") {
			if err := propagation(ctx, &rec, cfg, strings.TrimSpace(mode)); err != nil {
				return fmt.Errorf("propagation (--nats %s): %w", mode, err)
			}
		}
	case "index":
		if cfg.Root == "" {
			return errors.New("index: -root is required")
		}
		if err := indexRuns(ctx, &rec, cfg, cfg.Root); err != nil {
			return err
		}
	case "reads":
		if err := realReads(ctx, &rec, cfg); err != nil {
			return err
		}
	case "kernel":
		if err := kernelRuns(ctx, &rec, cfg); err != nil {
			return err
		}
	case "cold":
		if err := coldRuns(ctx, &rec, cfg); err != nil {
			return err
		}
	case "compare":
		systems, err := cfg.systems()
		if err != nil {
			return err
		}
		for _, sys := range systems {
			if err := sideBySide(ctx, &rec, cfg, sys); err != nil {
				return err
			}
		}
		for _, sys := range systems {
			if err := concurrentWriters(ctx, &rec, cfg, sys); err != nil {
				return err
			}
		}
	case "procs":
		if cfg.TestBin == "" {
			return errors.New("procs: -testbin (go test -c ./eventlog/boltlog) is required")
		}
		if err := appendProcesses(ctx, &rec, cfg, cfg.TestBin, 4, 16, cfg.Calls); err != nil {
			return err
		}
	case "gobench":
		failed, err := parseGoBench(in, cfg.Table, &rec)
		if err != nil {
			return err
		}
		for _, f := range failed {
			rec.SetText(cfg.Table, f, colError, "FAILED (see go test output)")
		}
	case "table":
		var all []Result
		for _, path := range fs.Args() {
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			rs, err := ReadJSONL(f)
			f.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			all = append(all, rs...)
		}
		return renderTables(out, all)
	default:
		return fmt.Errorf("unknown subcommand %q", sub)
	}
	rec.MarkWindow(cfg.Window, windowNow())
	return rec.WriteJSONL(out)
}

// systems are the systems -systems names, checked to be runnable.
func (c config) systems() ([]system, error) {
	var out []system
	for _, s := range strings.Split(c.Systems, ",") {
		switch strings.TrimSpace(s) {
		case "cos":
			out = append(out, cosSystem(c))
		case "memory":
			if _, err := exec.LookPath(c.Node); err != nil {
				return nil, errNoNode
			}
			if _, err := os.Stat(c.MemoryJS); c.MemoryJS == "" || err != nil {
				return nil, fmt.Errorf("-memory-js %q: not found (npm install @modelcontextprotocol/server-memory, then pass its dist/index.js)", c.MemoryJS)
			}
			out = append(out, memorySystem(c))
		default:
			return nil, fmt.Errorf("-systems: unknown system %q (cos, memory)", s)
		}
	}
	return out, nil
}
