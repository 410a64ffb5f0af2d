package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// selection is what cos changes --tests selected for one commit.
type selection struct {
	tests map[testKey]bool
	// Selected and Suite are cos's own counts; Exact its completeness.
	Selected, Suite int
	Exact           bool
	Commands        []string
	indexTime       time.Duration
}

// changesAnswer is the part of the cos changes --json envelope read here.
type changesAnswer struct {
	OK   bool `json:"ok"`
	Data struct {
		TestsToRun struct {
			Selected int    `json:"selected"`
			Suite    int    `json:"suite"`
			Exact    bool   `json:"exact"`
			Runs     []run_ `json:"runs"`
		} `json:"tests_to_run"`
	} `json:"data"`
}

type run_ struct {
	Runner  string `json:"runner"`
	Target  string `json:"target"`
	Command string `json:"command"`
}

var runRE = regexp.MustCompile(`-run '\^\(?([^)$']*)\)?\$'`)

// selectionOf indexes the commit's worktree into a fresh state folder and
// asks cos changes for the diff parent..worktree.
func selectionOf(ctx context.Context, cos string, o *oracle, cache string) (*selection, error) {
	state := filepath.Join(cache, o.Commit[:12], "state")
	if err := os.RemoveAll(state); err != nil {
		return nil, err
	}
	start := time.Now()
	if _, err := command(ctx, o.Worktree, cos, "--state-dir", state, "index", o.Worktree); err != nil {
		return nil, err
	}
	sel := &selection{tests: map[testKey]bool{}, indexTime: time.Since(start)}
	out, err := command(ctx, o.Worktree, cos, "--state-dir", state, "changes", "--base", o.Parent, "--json", "--budget-chars", "400000")
	if err != nil {
		return nil, err
	}
	var a changesAnswer
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		return nil, fmt.Errorf("read the answer: %w", err)
	}
	t := a.Data.TestsToRun
	sel.Selected, sel.Suite, sel.Exact = t.Selected, t.Suite, t.Exact
	for _, r := range t.Runs {
		sel.Commands = append(sel.Commands, r.Command)
		if r.Runner != "go" {
			continue
		}
		pkg := r.Target
		if pkg == "." {
			pkg = "./" // the oracle's name of the root package
		}
		m := runRE.FindStringSubmatch(r.Command)
		if m == nil { // the whole package
			for _, name := range o.Suite[pkg] {
				sel.tests[testKey{pkg, name}] = true
			}
			continue
		}
		for _, name := range strings.Split(m[1], "|") {
			sel.tests[testKey{pkg, name}] = true
		}
	}
	return sel, nil
}
