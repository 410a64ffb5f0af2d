package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	repo := flag.String("repo", "", "git repository (a clone) to measure")
	n := flag.Int("n", 20, "how many of the latest commits that touch non-test Go files")
	cache := flag.String("cache", filepath.Join(os.TempDir(), "cos-testselect"), "folder for worktrees, profiles and state folders")
	cos := flag.String("cos", "", "cos binary (empty: only the oracle runs)")
	verbose := flag.Bool("v", false, "list every missed and every extra test")
	flag.Parse()
	if *repo == "" {
		fmt.Fprintln(os.Stderr, "testselect: -repo is required")
		os.Exit(2)
	}
	if err := run(context.Background(), *repo, *n, *cache, *cos, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "testselect:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, repo string, n int, cache, cos string, verbose bool) error {
	commits, err := gitLines(ctx, repo, "log", "--no-merges", "--format=%H", "-n", fmt.Sprint(n), "--", "*.go", ":!*_test.go")
	if err != nil {
		return err
	}
	var rows []row
	for _, c := range commits {
		start := time.Now()
		o, err := oracleOf(ctx, repo, c, cache)
		if err != nil {
			return fmt.Errorf("oracle of %s: %w", c[:12], err)
		}
		r := row{commit: c, oracle: o, oracleTime: time.Since(start)}
		if cos != "" {
			start = time.Now()
			sel, err := selectionOf(ctx, cos, o, cache)
			if err != nil {
				return fmt.Errorf("selection of %s: %w", c[:12], err)
			}
			r.sel, r.selTime = sel, time.Since(start)
		}
		rows = append(rows, r)
		fmt.Fprintf(os.Stderr, "%s: %d changed lines, %d of %d tests cover them (%s)\n",
			c[:12], o.ChangedLines, len(o.covering), o.suiteSize(), r.oracleTime.Round(time.Second))
	}
	report(os.Stdout, rows, cos != "", verbose)
	return nil
}

// gitLines runs git in dir and returns its output's non-empty lines.
func gitLines(ctx context.Context, dir string, args ...string) ([]string, error) {
	out, err := command(ctx, dir, "git", args...)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// command runs name in dir and returns its stdout; a failure carries
// stderr.
func command(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, lastLines(stderr.String(), 5))
	}
	return string(out), nil
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}
