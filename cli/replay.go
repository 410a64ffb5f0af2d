package cli

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"log/slog"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/projections/evidence"
	"github.com/cos-dev/cos/projections/tasks"
	"github.com/cos-dev/cos/state"
	"github.com/spf13/cobra"
)

// replayReport is what `cos replay` prints.
type replayReport struct {
	Until     string                  `json:"until"`
	Position  projections.Position    `json:"position"`
	StateHash string                  `json:"state_hash"`
	Events    uint64                  `json:"events"`
	ByType    map[string]int          `json:"by_type"`
	Stream    string                  `json:"stream,omitempty"`
	Graph     projections.GraphCounts `json:"graph"`
	Tasks     int                     `json:"tasks"`
	Sessions  int                     `json:"sessions"`
	Metrics   int                     `json:"metrics"`
	// Index is the last index run recorded up to the position: the folder
	// and the git commit the graph was built from then.
	Index *projections.IndexRun `json:"index,omitempty"`
}

func (a *app) replayCommand() *cobra.Command {
	var until, stream, dump string
	cmd := &cobra.Command{
		Use:   "replay --until SEQ|RFC3339 [--stream S] [--dump graph|nodes|tasks|evidence]",
		Short: "Rebuild the state as it was at a log position: counts and the state hash, or the state itself",
		Long: "Replay the log (from the newest snapshot at or before the bound) up to --until and print the event " +
			"counts and the state hash at that point: the same hash every process computed then. --stream restricts " +
			"the counts and the dump to one stream (the hash stays the whole state's), and the last index run by then: the folder and " +
			"the git commit the graph was built from. --dump prints that state as JSON; --dump nodes prints the graph's nodes only " +
			"(uid, kind, label, path; one a line, by uid), which a graph of millions of edges prints in seconds.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if until == "" {
				return usageError("--until is required: a seq number or an RFC 3339 time")
			}
			u, err := parseUntil(until)
			if err != nil {
				return usageError("--until %q: %v", until, err)
			}
			switch dump {
			case "", "graph", dumpNodes, "tasks", "evidence":
			default:
				return usageError(`--dump %q: want graph, nodes, tasks or evidence`, dump)
			}
			if cmd.Flags().Changed("dump") && dump == "" {
				return usageError(`--dump "": want graph, nodes, tasks or evidence (leave --dump out for the counts)`)
			}
			if cmd.Flags().Changed("stream") && stream == "" {
				return usageError(`--stream "": name a stream, e.g. task:TASK-001 (leave --stream out for the whole log)`)
			}
			if err := dumpStreamFits(dump, stream); err != nil {
				return err
			}
			l, err := a.openLog(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer func() { _ = l.Close(context.Background()) }()
			set := state.NewProjectionSet()
			t, err := projections.OpenAt(cmd.Context(), l, set.List(), u, projections.TailerOptions{StateDir: a.stateDir, Logger: a.stderrLogger(slog.LevelWarn)})
			if err != nil {
				return failure(err)
			}
			defer t.Close()
			hash, pos := t.StateHash()
			a.notePastHead(u, pos.Seq)
			rep := replayReport{Until: until, Position: pos, StateHash: hex.EncodeToString(hash[:]), ByType: map[string]int{}, Stream: stream}
			if dump == "" {
				// The counts are the report's: a dump prints the state only.
				err = l.Read(cmd.Context(), 1, func(ev eventlog.Event) error {
					if ev.Seq > pos.Seq {
						return eventlog.ErrStop
					}
					if stream == "" || ev.Stream == stream {
						rep.Events++
						rep.ByType[ev.Type]++
					}
					return nil
				})
				if err != nil {
					return failure(err)
				}
			}
			if dump == dumpNodes {
				var nodes []nodeLine
				t.View(func(projections.Position) { nodes = nodeLines(set.Graph) })
				return writeNodeLines(a.io.Out, nodes)
			}
			var out any = &rep
			t.View(func(projections.Position) {
				rep.Graph = set.Graph.Counts()
				rep.Tasks = len(set.Board.All())
				rep.Sessions = len(set.Bundles.Sessions())
				rep.Metrics = len(set.Series.Names())
				if run, ok := set.Graph.LastIndex(); ok {
					rep.Index = &run
				}
				switch dump {
				case "graph":
					out = set.Graph.Dump()
				case "tasks":
					all := set.Board.All()
					if id, ok := tasks.IDOfStream(stream); ok {
						all = filterTasks(all, id)
					}
					out = map[string]any{"tasks": all}
				case "evidence":
					var bundles []evidence.Bundle
					for _, s := range set.Bundles.Sessions() {
						if sess, ok := evidence.SessionOfStream(stream); ok && sess != s {
							continue
						}
						if b, err := set.Bundles.Get(s); err == nil {
							bundles = append(bundles, b)
						}
					}
					out = map[string]any{"bundles": bundles}
				}
			})
			enc := json.NewEncoder(a.io.Out)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			return enc.Encode(out)
		},
	}
	f := cmd.Flags()
	f.StringVar(&until, "until", "", "last log seq, or an RFC 3339 time, to include (required)")
	f.StringVar(&stream, "stream", "", "count (and dump) only this stream, e.g. task:TASK-001")
	f.StringVar(&dump, "dump", "", "print the state instead: graph, nodes (the graph's nodes only), tasks or evidence")
	return cmd
}

func filterTasks(all []tasks.Task, id string) []tasks.Task {
	var out []tasks.Task
	for _, t := range all {
		if t.ID == id {
			out = append(out, t)
		}
	}
	return out
}

// dumpStreamFits refuses a --stream that a --dump cannot restrict to: the
// graph is not kept per stream, a tasks dump restricts to a task stream and
// an evidence dump to a session stream. Without --dump, --stream restricts
// the counts, whatever the stream.
func dumpStreamFits(dump, stream string) error {
	if stream == "" || dump == "" {
		return nil
	}
	switch dump {
	case "graph", dumpNodes:
		return usageError("--stream %q with --dump %s: the graph is the whole log's, not one stream's; --stream restricts the counts and --dump tasks or evidence", stream, dump)
	case "tasks":
		if _, ok := tasks.IDOfStream(stream); !ok {
			return usageError("--stream %q with --dump tasks: want a task stream, e.g. task:TASK-001", stream)
		}
	case "evidence":
		if _, ok := evidence.SessionOfStream(stream); !ok {
			return usageError("--stream %q with --dump evidence: want an evidence stream, e.g. evidence:S1", stream)
		}
	}
	return nil
}
