package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

func (a *app) changesCommand() *cobra.Command {
	var (
		f       serverFlags
		base    string
		depth   int
		asJSON  bool
		showAll bool
		tests   bool
	)
	cmd := &cobra.Command{
		Use:   "changes",
		Short: "Show the symbols a diff changes, what depends on them, the tests among them and the risk",
		Long: "Compare the work tree (and the git index) with a git revision, or with what the graph was last indexed " +
			"from (--base index), and show the functions, methods, classes and headings whose lines changed — added, " +
			"modified or removed — then the nodes that depend on them up to --depth hops, the tests among those, and " +
			"a risk level with its reasons, and the tests to run: the test functions that reach the changed symbols, as go " +
			"test, pytest and vitest/jest command lines (--tests prints only those, ready for a shell). The changed files are " +
			"indexed again first. The same answer as the tool cos_graph_changes; --json prints its envelope. Exit 0 on an " +
			"answer, 1 when it fails, 2 on a wrong command line.",
		Example: "  cos changes\n  cos changes --base main --depth 3\n  cos changes --base index --json\n  cos changes --base main --tests | sh",
		Args:    cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(base) == "" {
				return usageError("--base needs a git revision (HEAD, main, a commit id) or \"index\"")
			}
			if depth < 1 || depth > 5 {
				return usageError("--depth %d: give 1 to 5 hops", depth)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			raw, err := json.Marshal(map[string]any{"base": base, "depth": depth})
			if err != nil {
				return err
			}
			o, err := a.openTools(cmd.Context(), f, a.stderrLogger(slog.LevelWarn), nil)
			if err != nil {
				return failure(err)
			}
			defer func() { _ = o.close(context.Background()) }()
			opts := f.budgetOptions()
			if tests {
				// Commands for a shell: the agent-context budget would cut a
				// long go test -run list to "…[truncated]".
				opts.NoBudget = true
			}
			env := o.r.Call(cmd.Context(), "cos_graph_changes", raw, opts)
			if asJSON {
				if _, err := fmt.Fprintf(a.io.Out, "%s\n", env.JSON()); err != nil {
					return err
				}
				if !env.OK() {
					return &exitError{code: ExitError}
				}
				return nil
			}
			if !env.OK() {
				return &exitError{code: ExitError, err: env.Err().WithCause(nil)}
			}
			if tests {
				return writeTestsToRun(a.io.Out, a.io.Err, env.JSON())
			}
			return writeChanges(a.io.Out, a.io.Err, env.JSON(), showAll)
		},
	}
	f.add(cmd, "off")
	cmd.Flags().StringVar(&base, "base", "HEAD", `git revision to compare the work tree with, or "index": the files changed since the last index`)
	cmd.Flags().IntVar(&depth, "depth", 2, "hops from the changed symbols to their dependents (1 to 5)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the envelope as JSON")
	cmd.Flags().BoolVar(&showAll, "all", false, "list every dependent (by default up to 20 a depth)")
	cmd.Flags().BoolVar(&tests, "tests", false, "print only the tests to run: one command a line, the counts as # comments")
	return cmd
}

// changesView is the part of a cos_graph_changes answer the text shows.
type changesView struct {
	Data struct {
		Base      string   `json:"base"`
		Commit    string   `json:"commit"`
		Root      string   `json:"root"`
		Note      string   `json:"note"`
		Refreshed []string `json:"refreshed"`
		Files     []struct {
			Path    string `json:"path"`
			OldPath string `json:"old_path"`
			Status  string `json:"status"`
			Binary  bool   `json:"binary"`
		} `json:"files"`
		Changed []struct {
			Name     string `json:"name"`
			Kind     string `json:"kind"`
			Path     string `json:"path"`
			Line     int    `json:"line"`
			EndLine  int    `json:"end_line"`
			Change   string `json:"change"`
			Exported bool   `json:"exported"`
		} `json:"changed"`
		Dependents map[string][]changesDependent `json:"dependents"`
		Tests      []changesDependent            `json:"tests"`
		TestsToRun testsToRun                    `json:"tests_to_run"`
		Depth      int                           `json:"depth"`
		Risk       struct {
			Level   string   `json:"level"`
			Reasons []string `json:"reasons"`
		} `json:"risk"`
		Meta struct {
			Warnings  []string `json:"warnings"`
			Truncated bool     `json:"truncated"`
		} `json:"meta"`
	} `json:"data"`
}

// testsToRun is the tests_to_run section of a cos_graph_changes answer.
type testsToRun struct {
	Selected     int            `json:"selected"`
	Suite        int            `json:"suite"`
	Completeness string         `json:"completeness"`
	Reasons      map[string]int `json:"completeness_reasons"`
	Runs         []struct {
		Command string `json:"command"`
	} `json:"runs"`
	Note string `json:"note"`
}

// summary is the one line that says how many tests are selected.
func (t testsToRun) summary() string {
	s := fmt.Sprintf("%d of %d tests reach the change", t.Selected, t.Suite)
	if t.Completeness != "" && t.Completeness != "exact" {
		s += " (a lower bound: " + reasonList(t.Reasons) + ")"
	}
	return s
}

func reasonList(r map[string]int) string {
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		keys[i] = fmt.Sprintf("%s %d", k, r[k])
	}
	return strings.Join(keys, ", ")
}

// writeTestsToRun prints the tests to run of a cos_graph_changes envelope:
// the counts and note as # comments, then one command a line.
func writeTestsToRun(out, errOut io.Writer, raw []byte) error {
	var v changesView
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("read the answer: %w", err)
	}
	t := v.Data.TestsToRun
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", t.summary())
	if t.Note != "" {
		fmt.Fprintf(&b, "# %s\n", t.Note)
	}
	for _, r := range t.Runs {
		b.WriteString(r.Command + "\n")
	}
	if _, err := io.WriteString(out, b.String()); err != nil {
		return err
	}
	for _, w := range v.Data.Meta.Warnings {
		fmt.Fprintf(errOut, "cos: warning: %s\n", w)
	}
	return nil
}

type changesDependent struct {
	Kind  string `json:"kind"`
	Label string `json:"label"`
	Path  string `json:"path"`
	Line  int    `json:"line"`
	Via   string `json:"via"`
}

// changesLimit is how many dependents a depth shows without --all.
const changesLimit = 20

// writeChanges renders a cos_graph_changes envelope as text on out; the
// answer's warnings go to errOut.
func writeChanges(out, errOut io.Writer, raw []byte, all bool) error {
	var v changesView
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("read the answer: %w", err)
	}
	d := v.Data
	var b strings.Builder
	against := d.Base
	if d.Commit != "" && d.Base != d.Commit {
		against += " (" + short(d.Commit) + ")"
	}
	if d.Base == "index" {
		against = "the last index"
	}
	fmt.Fprintf(&b, "Changes against %s in %s\n", against, d.Root)
	if len(d.Files) == 0 {
		b.WriteString("\nNothing changed.\n")
	} else {
		fmt.Fprintf(&b, "\nFiles (%d):\n", len(d.Files))
		for _, f := range d.Files {
			line := fmt.Sprintf("  %-8s %s", f.Status, f.Path)
			if f.OldPath != "" {
				line += " (from " + f.OldPath + ")"
			}
			if f.Binary {
				line += " [binary]"
			}
			b.WriteString(line + "\n")
		}
	}
	if len(d.Files) > 0 {
		fmt.Fprintf(&b, "\nChanged symbols (%d):\n", len(d.Changed))
		if len(d.Changed) == 0 {
			b.WriteString("  none: the changed lines lie outside every function, class and heading\n")
		}
		for _, c := range d.Changed {
			where := fmt.Sprintf("%s:%d", c.Path, c.Line)
			if c.EndLine > c.Line {
				where += fmt.Sprintf("-%d", c.EndLine)
			}
			exp := ""
			if c.Exported {
				exp = "  exported"
			}
			fmt.Fprintf(&b, "  %-8s %-8s %s  %s%s\n", c.Change, c.Kind, c.Name, where, exp)
		}
	}
	for depth := 1; depth <= d.Depth; depth++ {
		deps := d.Dependents[fmt.Sprint(depth)]
		if len(deps) == 0 {
			continue
		}
		if depth == 1 {
			b.WriteString("\nDependents:\n")
		}
		fmt.Fprintf(&b, "  depth %d (%d):\n", depth, len(deps))
		shown := deps
		if !all && len(shown) > changesLimit {
			shown = shown[:changesLimit]
		}
		for _, x := range shown {
			fmt.Fprintf(&b, "    %s  %s  (%s)\n", x.Label, place(x.Path, x.Line), x.Via)
		}
		if len(shown) < len(deps) {
			fmt.Fprintf(&b, "    … and %d more (--all lists them)\n", len(deps)-len(shown))
		}
	}
	if len(d.Changed) > 0 {
		fmt.Fprintf(&b, "\nTests (%d):\n", len(d.Tests))
		if len(d.Tests) == 0 {
			fmt.Fprintf(&b, "  none within depth %d\n", d.Depth)
		}
		for _, x := range d.Tests {
			fmt.Fprintf(&b, "  %s  %s\n", x.Label, place(x.Path, x.Line))
		}
	}
	if len(d.Changed) > 0 {
		fmt.Fprintf(&b, "\nTests to run: %s\n", d.TestsToRun.summary())
		for _, r := range d.TestsToRun.Runs {
			fmt.Fprintf(&b, "  %s\n", r.Command)
		}
		if d.TestsToRun.Note != "" {
			fmt.Fprintf(&b, "  (%s)\n", d.TestsToRun.Note)
		}
	}
	fmt.Fprintf(&b, "\nRisk: %s\n", d.Risk.Level)
	for _, r := range d.Risk.Reasons {
		fmt.Fprintf(&b, "  - %s\n", r)
	}
	if d.Note != "" {
		fmt.Fprintf(&b, "\nNote: %s\n", d.Note)
	}
	if _, err := io.WriteString(out, b.String()); err != nil {
		return err
	}
	for _, w := range d.Meta.Warnings {
		fmt.Fprintf(errOut, "cos: warning: %s\n", w)
	}
	if d.Meta.Truncated {
		fmt.Fprintln(errOut, "cos: note: the answer was trimmed to the budget; --budget-chars raises it")
	}
	return nil
}

func place(p string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", p, line)
	}
	return p
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
