package main

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cos-dev/cos/scripts/internal/acc"
	"github.com/cos-dev/cos/scripts/internal/calloracle"
)

//go:embed oracle/CallOracle.java
var oracleSource []byte

// project is a Java project fetched at a fixed commit.
type project struct {
	Name, Repo, Commit string
	// Sources are the source folders, relative to the checkout.
	Sources []string
}

// projects are the default targets.
var projects = []project{
	{Name: "gson", Repo: "google/gson", Commit: "9835b6f90192f79cdf5300c528fc6212455fb6c1", Sources: []string{"gson/src/main/java"}},
}

func main() { acc.Main("javaaccuracy", run) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("javaaccuracy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "list missed, false-positive and unjudged edges")
	top := fs.Int("top", 10, "edges listed per row with -v")
	jsonOut := fs.String("json", "", "also write the raw numbers to this file")
	only := fs.String("project", "", "comma-separated projects: "+names())
	dir := fs.String("dir", "", "measure this folder instead (with -src)")
	src := fs.String("src", "", "with -dir: comma-separated source folders relative to it (default: the folder)")
	oracleOut := fs.String("oracle-out", "", "also write the oracle's JSON lines to this file (one project)")
	oracleIn := fs.String("oracle-in", "", "read the oracle's JSON lines from this file instead of running javac (one project)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: javaaccuracy [-v] [-top N] [-json FILE] [-project NAMES] [-dir DIR [-src DIRS]] [-oracle-out FILE] [-oracle-in FILE]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return acc.ErrUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "javaaccuracy: unexpected argument %q\n", fs.Arg(0))
		return acc.ErrUsage
	}
	targets, err := choose(*only, *dir, *src)
	if err != nil {
		fmt.Fprintln(stderr, "javaaccuracy:", err)
		return acc.ErrUsage
	}
	cache, err := calloracle.CacheDir()
	if err != nil {
		return err
	}
	rep := acc.NewReport[calloracle.Result]()
	for _, p := range targets {
		root := p.Repo // -dir
		if p.Commit != "" {
			if root, err = calloracle.Fetch(ctx, cache, p.Name, p.Repo, p.Commit, stderr); err != nil {
				return err
			}
		}
		res, err := measure(ctx, p, root, *oracleIn, *oracleOut, *top, stderr)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Name, err)
		}
		rep.Targets = append(rep.Targets, res)
		calloracle.WriteResult(stdout, res, *verbose)
	}
	calloracle.WriteSummary(stdout, "javac (Tree API)", rep.Targets)
	if *jsonOut != "" {
		return acc.WriteJSON(*jsonOut, rep)
	}
	return nil
}

func names() string {
	var n []string
	for _, p := range projects {
		n = append(n, p.Name)
	}
	return strings.Join(n, ",")
}

// choose picks the projects to measure.
func choose(only, dir, src string) ([]project, error) {
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		p := project{Name: filepath.Base(abs), Repo: abs}
		if src != "" {
			p.Sources = strings.Split(src, ",")
		}
		return []project{p}, nil
	}
	if only == "" {
		return projects, nil
	}
	var out []project
	for _, n := range strings.Split(only, ",") {
		found := false
		for _, p := range projects {
			if p.Name == n {
				out = append(out, p)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("-project %q: no such project (%s)", n, names())
		}
	}
	return out, nil
}

// measure runs the oracle and cos on root and compares them.
func measure(ctx context.Context, p project, root, oracleIn, oracleOut string, top int, stderr io.Writer) (calloracle.Result, error) {
	res := calloracle.Result{Name: p.Name, Language: "Java", Oracle: javacVersion(ctx), Source: p.Repo}
	if p.Commit != "" {
		res.Source = p.Repo + "@" + p.Commit[:12] + " " + strings.Join(p.Sources, ",")
	}
	var lines []byte
	if oracleIn != "" {
		b, err := os.ReadFile(oracleIn)
		if err != nil {
			return res, err
		}
		lines = b
	} else {
		fmt.Fprintf(stderr, "== %s: javac oracle\n", p.Name)
		start := time.Now()
		b, err := runOracle(ctx, root, p.Sources, stderr)
		if err != nil {
			return res, err
		}
		res.OracleSeconds = time.Since(start).Seconds()
		lines = b
	}
	if oracleOut != "" {
		if err := os.WriteFile(oracleOut, lines, 0o644); err != nil {
			return res, err
		}
	}
	or, err := calloracle.Read(bytes.NewReader(lines))
	if err != nil {
		return res, err
	}
	fmt.Fprintf(stderr, "== %s: cos extraction\n", p.Name)
	g, err := calloracle.RunCos(ctx, root)
	if err != nil {
		return res, err
	}
	res.CosSeconds = g.Duration.Seconds()
	res.CosFiles = g.Files
	res.OracleFiles = len(or.Files)
	res.OracleStats = or.Stats
	res.Comparison = calloracle.Compare(or, g, top)
	return res, nil
}

// runOracle compiles CallOracle.java and runs it on root; its output is
// the JSON lines.
func runOracle(ctx context.Context, root string, sources []string, stderr io.Writer) ([]byte, error) {
	for _, tool := range []string{"javac", "java"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("%s is not on PATH: install a JDK 17 or later (Debian: apt-get install openjdk-17-jdk-headless)", tool)
		}
	}
	tmp, err := os.MkdirTemp("", "cos-javaaccuracy-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	srcFile := filepath.Join(tmp, "CallOracle.java")
	if err := os.WriteFile(srcFile, oracleSource, 0o644); err != nil {
		return nil, err
	}
	build := exec.CommandContext(ctx, "javac", "-d", tmp, srcFile)
	build.Stderr = stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("javac CallOracle.java: %w", err)
	}
	cmd := exec.CommandContext(ctx, "java", append([]string{"-cp", tmp, "CallOracle", root}, sources...)...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("java CallOracle: %w", err)
	}
	return out.Bytes(), nil
}

// javacVersion names the compiler, "javac 17.0.15".
func javacVersion(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "javac", "-version").CombinedOutput()
	if err != nil {
		return "javac"
	}
	return strings.TrimSpace(string(out))
}
