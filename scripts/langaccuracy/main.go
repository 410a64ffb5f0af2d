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

func main() { acc.Main("langaccuracy", run) }

// cacheDir is where the indexers and npm tarballs are kept:
// ${XDG_CACHE_HOME:-$HOME/.cache}/cos-langaccuracy.
func cacheDir() (string, error) {
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "cos-langaccuracy"), nil
}

// run is the whole command; progress goes to stderr, the report to stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("langaccuracy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "list the top missed and false-positive edges of each category, with file:line and the source line")
	top := fs.Int("top", defaultTop, "edges listed per category with -v")
	jsonOut := fs.String("json", "", "also write the raw numbers to this file")
	only := fs.String("only", "", "comma-separated targets to run: json,http,email,asyncio,rxjs,zod,express")
	toolsDir := fs.String("scip-tools", "", "folder holding scip-python and scip-typescript (itself, bin/ or node_modules/.bin/); default: PATH, then the cache, installed with npm")
	keep := fs.Bool("keep", false, "keep each target's temporary folder (the copied files and index.scip) and print where")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: langaccuracy [-v] [-top N] [-json FILE] [-only NAMES] [-scip-tools DIR] [-keep]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return acc.ErrUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "langaccuracy: unexpected argument %q\n", fs.Arg(0))
		return acc.ErrUsage
	}
	targets := defaultTargets()
	if *only != "" {
		targets = selectTargets(targets, strings.Split(*only, ","))
		if len(targets) == 0 {
			fmt.Fprintf(stderr, "langaccuracy: -only %q matches no target\n", *only)
			return acc.ErrUsage
		}
	}
	cache, err := cacheDir()
	if err != nil {
		return err
	}
	ts := toolSet{Dir: *toolsDir, Cache: cache, Log: stderr}

	rep := acc.NewReport[result]()
	for _, t := range targets {
		res, err := measure(ctx, t, ts, cache, *top, *keep, stderr)
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

// measure prepares one target and runs both sides on it.
func measure(ctx context.Context, t target, ts toolSet, cache string, top int, keep bool, stderr io.Writer) (result, error) {
	res := result{Name: t.Name, Language: t.Lang.String(), Source: t.Package + "/" + t.Sub}
	if t.Package == "" {
		res.Source = "python stdlib " + t.Sub
	}
	fmt.Fprintf(stderr, "== %s: preparing %s\n", t.Name, res.Source)
	ws, err := prepare(ctx, t, cache)
	if ws.Tmp != "" && !keep {
		defer func() { _ = os.RemoveAll(ws.Tmp) }()
	}
	if err != nil {
		return res, err
	}
	if keep {
		fmt.Fprintf(stderr, "== %s: kept in %s\n", t.Name, ws.Tmp)
	}

	fmt.Fprintf(stderr, "== %s: SCIP indexer\n", t.Name)
	idx, took, err := runIndexer(ctx, ts, t, ws)
	if err != nil {
		return res, err
	}
	docs, err := loadIndex(idx, ws.Root, ws.Root)
	if err != nil {
		return res, err
	}
	runtime.GC()
	fmt.Fprintf(stderr, "== %s: cos extraction\n", t.Name)
	g, err := runCos(ctx, ws.Root)
	if err != nil {
		return res, err
	}
	or := buildTruth(docs, g.Nodes, t.Lang)
	or.Duration = took
	res.Indexer = scipPythonPkg
	if t.Lang == langTS {
		res.Indexer = scipTypescriptPkg
	}
	res.CosSeconds = g.Duration.Seconds()
	res.IndexerSeconds = took.Seconds()
	if res.CosSeconds > 0 {
		res.SpeedUp = res.IndexerSeconds / res.CosSeconds
	}
	res.CosFiles = g.Files
	res.Oracle = or.Stats
	res.Comparison = compare(or, g, t.Lang, top)
	fmt.Fprintf(stderr, "== %s: cos %.2f s, %s %.1f s\n", t.Name, res.CosSeconds, res.Indexer, res.IndexerSeconds)
	return res, nil
}
