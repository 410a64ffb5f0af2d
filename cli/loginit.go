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
}

// logInitCommand is `cos log init`: the explicit step that creates a NATS
// store's stream. No other command creates one (natslog.ErrNoStream), so a
// stream that was deleted, or a cluster rebuilt with empty disks, is never
// silently replaced by an empty log that hands out TASK-001 again.
func (a *app) logInitCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create the event log (a NATS store's stream) when it does not exist yet",
		Long: "Create the event log where --store (or COS_STORE) says, once, before any other cos command uses it. " +
			"With a NATS store this creates the JetStream stream (3 replicas when the address lists 3 servers or more); " +
			"no other command creates a stream, so a deleted stream or a cluster rebuilt with empty disks is refused " +
			"rather than replaced by an empty log. A log that exists is left as it is and its head is printed. " +
			"A log file (the default store) is created by any command that writes, as before.",
		Example: "  cos --store nats://n1:4222,nats://n2:4222,nats://n3:4222/COS log init",
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
			l, err := state.OpenLog(ctx, a.stateDir, state.LogOptions{Store: a.store})
			if errors.Is(err, store.ErrNoStream) {
				rep.Created = true
				l, err = state.OpenLog(ctx, a.stateDir, state.LogOptions{Store: a.store, CreateStream: true})
			}
			if err != nil {
				return failure(err)
			}
			defer func() { _ = l.Close(context.Background()) }()
			h, err := l.Head(ctx)
			if err != nil {
				return failure(err)
			}
			rep.HeadSeq = h.Seq
			if asJSON {
				return json.NewEncoder(a.io.Out).Encode(rep)
			}
			if rep.Created {
				_, err = fmt.Fprintf(a.io.Out, "created the empty log %s\n", rep.Store)
			} else {
				_, err = fmt.Fprintf(a.io.Out, "the log %s exists and holds %s; nothing changed\n", rep.Store, events(rep.HeadSeq))
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"store", "created", "head_seq"} as JSON`)
	return cmd
}
