package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/cos-dev/cos/projections"
	"github.com/spf13/cobra"
)

func (a *app) callCommand() *cobra.Command {
	var (
		f  serverFlags
		at string
	)
	cmd := &cobra.Command{
		Use:   "call TOOL [JSON|-]",
		Short: "Run one tool in-process against the state folder and print its envelope (exit 0 iff ok)",
		Long: "Run one cos_* tool against the state folder and print the envelope as JSON. The arguments are a JSON " +
			"object, given inline or on stdin with \"-\". With --at SEQ|RFC3339 the tool runs read-only against the " +
			"state as it was at that log position (the post-mortem view).",
		Example: "  cos call cos_graph_resolve '{\"q\":\"ListenAndServe\"}'\n  cos call --at 120 cos_task_board",
		Args:    cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			raw := "{}"
			if len(args) == 2 {
				raw = args[1]
			}
			if raw == "-" {
				b, err := io.ReadAll(a.io.In)
				if err != nil {
					return usageError("read arguments from stdin: %v", err)
				}
				raw = string(b)
			}
			var until *projections.Until
			if cmd.Flags().Changed("at") && strings.TrimSpace(at) == "" {
				return usageError("--at needs a log seq or an RFC 3339 time, e.g. --at 120; leave --at out for the live state")
			}
			if at != "" {
				u, err := parseUntil(at)
				if err != nil {
					return usageError("--at %q: %v", at, err)
				}
				until = &u
			}
			o, err := a.openTools(cmd.Context(), f, a.stderrLogger(slog.LevelWarn), until)
			if err != nil {
				return failure(err)
			}
			defer func() { _ = o.close(context.Background()) }()
			if until != nil {
				a.notePastHead(*until, o.st.Position().Seq)
			}
			if o.wt != nil { // the worktree's files, before any tool reads
				if err := o.wt.Sync(cmd.Context()); err != nil {
					a.stderrLogger(slog.LevelWarn).Warn("the worktree's changed files could not be read into the graph", "err", err)
				}
			}
			env := o.r.Call(cmd.Context(), args[0], json.RawMessage(raw), f.budgetOptions())
			if o.wt != nil && env.OK() {
				// A claim in a worktree records its footprint before the
				// process ends (a server does it in the background).
				if _, err := o.wt.Footprints().Update(cmd.Context()); err != nil {
					a.stderrLogger(slog.LevelWarn).Warn("the footprint of the worktree's tasks could not be recorded", "err", err)
				}
			}
			if _, err := fmt.Fprintf(a.io.Out, "%s\n", env.JSON()); err != nil {
				return err
			}
			if !env.OK() {
				return &exitError{code: ExitError} // the envelope on stdout says why
			}
			return nil
		},
	}
	f.add(cmd, "off")
	cmd.Flags().StringVar(&at, "at", "", "run read-only against the state at this log seq or RFC 3339 time")
	return cmd
}

// parseUntil reads a seq or an RFC 3339 time.
// Seq 0 is refused: it would read as "no bound" (the head), the opposite of
// what it says; the empty state has nothing to show.
func parseUntil(s string) (projections.Until, error) {
	if n, err := strconv.ParseUint(s, 10, 64); err == nil {
		if n == 0 {
			return projections.Until{}, fmt.Errorf("seq 0 is the empty log; the first event is seq 1")
		}
		return projections.Until{Seq: n}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return projections.Until{}, fmt.Errorf("want a seq number or an RFC 3339 time such as 2026-11-30T12:00:00Z")
	}
	return projections.Until{Time: t}, nil
}

// notePastHead tells the operator (on stderr) when a --at/--until seq lies
// past the log's head, so the view shown is the head's.
func (a *app) notePastHead(u projections.Until, at uint64) {
	if u.Seq == 0 || u.Seq <= at {
		return
	}
	fmt.Fprintf(a.io.Err, "cos: note: seq %d is past the log head %d; showing the state at %d\n", u.Seq, at, at)
}
