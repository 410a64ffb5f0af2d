package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/cos-dev/cos/scripts/internal/acc"
)

// defaultTop is how many missed and false-positive edges -v lists per
// category.
const defaultTop = 10

func main() { acc.Main("accuracy", run) }

// envFlag collects repeated -env KEY=VALUE flags.
type envFlag []string

func (e *envFlag) String() string { return strings.Join(*e, " ") }
func (e *envFlag) Set(v string) error {
	if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
		return fmt.Errorf("want KEY=VALUE, got %q", v)
	}
	*e = append(*e, v)
	return nil
}

// run is the whole command; progress goes to stderr, the report to stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("accuracy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "list the top missed and false-positive edges of each category, with file:line")
	top := fs.Int("top", defaultTop, "edges listed per category and kind with -v")
	jsonOut := fs.String("json", "", "also write the raw numbers to this file")
	only := fs.String("only", "", "comma-separated default targets to run (names as printed, e.g. net/http,cobra)")
	exportDeps := fs.Bool("export-deps", false, "oracle: load dependencies from export data instead of source (about 3× faster, the same calls edges; CHA dispatch can differ slightly)")
	var env envFlag
	fs.Var(&env, "env", "KEY=VALUE set while measuring the DIR arguments (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: accuracy [-v] [-top N] [-json FILE] [-only NAMES] | [-env K=V]... DIR...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return acc.ErrUsage
	}
	var targets []target
	if fs.NArg() > 0 {
		for _, d := range fs.Args() {
			targets = append(targets, target{Name: filepath.Base(d), Dir: d, Env: env})
		}
	} else {
		goroot, err := goEnv(ctx, "GOROOT")
		if err != nil {
			return err
		}
		targets = defaultTargets(goroot)
		if *only != "" {
			targets = selectTargets(targets, strings.Split(*only, ","))
			if len(targets) == 0 {
				fmt.Fprintf(stderr, "accuracy: -only %q matches no target\n", *only)
				return acc.ErrUsage
			}
		}
	}

	rep := acc.NewReport[result]()
	for _, t := range targets {
		res, err := measure(ctx, t, oracleOptions{ExportDeps: *exportDeps}, *top, stderr)
		if err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
		rep.Targets = append(rep.Targets, res)
		writeTarget(stdout, res, *verbose)
	}
	writeSummary(stdout, rep.Targets)
	if *jsonOut != "" {
		return acc.WriteJSON(*jsonOut, rep)
	}
	return nil
}

// measure runs both sides on one target, in its environment.
func measure(ctx context.Context, t target, oo oracleOptions, top int, stderr io.Writer) (result, error) {
	res := result{Name: t.Name, Env: t.Env}
	dir, cleanup, err := t.resolve(ctx)
	if err != nil {
		return res, err
	}
	defer cleanup()
	if dir, err = filepath.Abs(dir); err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		return res, err
	}
	res.Dir = dir
	restore := setEnv(t.Env)
	defer restore()

	fmt.Fprintf(stderr, "== %s: cos extraction of %s\n", t.Name, dir)
	g, err := runCos(ctx, dir)
	if err != nil {
		return res, err
	}
	runtime.GC()
	fmt.Fprintf(stderr, "== %s: oracle (go/packages, SSA, static + CHA call graphs)\n", t.Name)
	or, err := runOracle(ctx, dir, oo)
	if err != nil {
		return res, err
	}
	res.CosSeconds = g.Duration.Seconds()
	res.OracleSeconds = or.Duration.Seconds()
	res.CosExtraction = g.Extraction
	res.CosFiles = g.Stats.FilesSeen
	res.Oracle = or.Stats
	res.Comparison = compare(or, g, top)
	fmt.Fprintf(stderr, "== %s: cos %.1f s, oracle %.1f s\n", t.Name, res.CosSeconds, res.OracleSeconds)
	runtime.GC()
	return res, nil
}

// setEnv sets KEY=VALUE pairs for go list (ours and the oracle's) and
// returns a function that restores the previous values.
func setEnv(env []string) func() {
	type old struct {
		key, val string
		set      bool
	}
	var olds []old
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		prev, set := os.LookupEnv(k)
		olds = append(olds, old{k, prev, set})
		_ = os.Setenv(k, v)
	}
	return func() {
		for i := len(olds) - 1; i >= 0; i-- {
			if olds[i].set {
				_ = os.Setenv(olds[i].key, olds[i].val)
			} else {
				_ = os.Unsetenv(olds[i].key)
			}
		}
	}
}
