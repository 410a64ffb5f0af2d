package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/cos-dev/cos/eventlog/store"
	"github.com/cos-dev/cos/state"
	"github.com/spf13/cobra"
)

// logInitReport is what cos log init prints with --json.
type logInitReport struct {
	// Store is the log's address; Created is false when it existed.
	Store   string `json:"store"`
	Created bool   `json:"created"`
	HeadSeq uint64 `json:"head_seq"`
	// Replicas is the stream's replica count (absent for a log file);
	// Warning the durability warning of a stream of one replica nobody
	// said was intended.
	Replicas int    `json:"replicas,omitempty"`
	Warning  string `json:"warning,omitempty"`
}

// logInitCommand is `cos log init`: the explicit step that creates a NATS
// store's stream. No other command creates one (natslog.ErrNoStream), so a
// stream that was deleted, or a cluster rebuilt with empty disks, is never
// silently replaced by an empty log that hands out TASK-001 again.
func (a *app) logInitCommand() *cobra.Command {
	var asJSON, single bool
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create the event log (a NATS store's stream) when it does not exist yet",
		Long: "Create the event log where --store (or COS_STORE) says, once, before any other cos command uses it. " +
			"With a NATS store this creates the JetStream stream (3 replicas when the address lists 3 servers or more); " +
			"no other command creates a stream, so a deleted stream or a cluster rebuilt with empty disks is refused " +
			"rather than replaced by an empty log. A log that exists is left as it is and its head is printed. " +
			"A log file (the default store) is created by any command that writes, as before.\n\n" +
			"Durability: with 3 replicas an acknowledged event is on a majority of three servers and survives the loss of one; " +
			"with 1 it is on one server's disk only, and with nats-server's default lazy fsync a crash of that machine can lose " +
			"the last two minutes of acknowledged events. Every cos warns (stderr, cos_health's log.warning) about a stream of " +
			"one replica until --single-replica says it is intended: on a new stream it creates one replica, on an existing " +
			"one-replica stream it records the intent in the stream.",
		Example: "  cos --store nats://n1:4222,nats://n2:4222,nats://n3:4222/COS log init\n  cos --store nats://localhost:4222/COS log init --single-replica",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			st, err := state.ParseStore(a.stateDir, a.store)
			if err != nil {
				return usageError("--store %q: %v", a.store, err)
			}
			rep := logInitReport{Store: st.String()}
			if !st.IsNATS() {
				_, serr := os.Stat(st.Path)
				rep.Created = errors.Is(serr, fs.ErrNotExist)
			}
			if single && !st.IsNATS() {
				return usageError("--single-replica: the store %s is a log file, not a NATS stream", st)
			}
			// The warning of an existing one-replica stream is printed below
			// (or made moot by --single-replica), not logged at open.
			lo := state.LogOptions{Store: a.store, SingleReplica: single}
			l, err := state.OpenLog(ctx, a.stateDir, lo)
			if errors.Is(err, store.ErrNoStream) {
				rep.Created = true
				lo.CreateStream = true
				l, err = state.OpenLog(ctx, a.stateDir, lo)
			}
			if err != nil {
				return failure(err)
			}
			defer func() { _ = l.Close(context.Background()) }()
			if single && !rep.Created {
				ir, ok := l.(interface{ IntendSingleReplica(context.Context) error })
				if !ok {
					return failure(fmt.Errorf("the log %s cannot record a single replica", rep.Store))
				}
				if err := ir.IntendSingleReplica(ctx); err != nil {
					return &exitError{code: ExitError, err: fmt.Errorf("E_ARGUMENT: --single-replica: %v", err)}
				}
			}
			if d, ok := store.DurabilityOf(l); ok {
				rep.Replicas, rep.Warning = d.Replicas, d.Warning
			}
			h, err := l.Head(ctx)
			if err != nil {
				return failure(err)
			}
			rep.HeadSeq = h.Seq
			if asJSON {
				return json.NewEncoder(a.io.Out).Encode(rep)
			}
			if rep.Warning != "" {
				fmt.Fprintf(a.io.Err, "cos: warning: %s\n", rep.Warning)
			}
			replicas := ""
			if rep.Replicas > 0 {
				replicas = fmt.Sprintf(" (%d replicas)", rep.Replicas)
				if rep.Replicas == 1 {
					replicas = " (1 replica)"
				}
			}
			if rep.Created {
				_, err = fmt.Fprintf(a.io.Out, "created the empty log %s%s\n", rep.Store, replicas)
			} else if single {
				_, err = fmt.Fprintf(a.io.Out, "the log %s%s exists and holds %s; its one replica is recorded as intended\n", rep.Store, replicas, events(rep.HeadSeq))
			} else {
				_, err = fmt.Fprintf(a.io.Out, "the log %s%s exists and holds %s; nothing changed\n", rep.Store, replicas, events(rep.HeadSeq))
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"store", "created", "head_seq", "replicas", "warning"} as JSON`)
	cmd.Flags().BoolVar(&single, "single-replica", false, "one replica is intended (a single server, a log you can afford to lose): create the stream with one replica, or record that in an existing one, so that no cos warns about it")
	return cmd
}
