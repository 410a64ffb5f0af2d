package cli

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cos-dev/cos/state"
	"github.com/spf13/cobra"
)

func (a *app) restoreCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "restore SRC",
		Short: "Put the log file SRC (from cos backup or cos verify --salvage) in place as the state folder's log",
		Long: "Replace the state folder's event log with SRC, a log written by `cos backup` or `cos verify --salvage`. " +
			"SRC must verify, and no cos process may be using the state folder: otherwise nothing changes and the " +
			"processes to stop are named. The log that was in place is kept beside it as events.db.replaced-<UTC time>; " +
			"snapshots and search indexes, derived from it, are deleted and rebuilt on the next start.",
		Example: "  cos verify --salvage /tmp/salvaged.db && cos restore /tmp/salvaged.db",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.restorable(); err != nil {
				return err
			}
			rep, err := state.RestoreLog(cmd.Context(), a.stateDir, args[0])
			var busy *state.BusyError
			switch {
			case errors.As(err, &busy):
				return &exitError{code: ExitError, err: fmt.Errorf("E_UNAVAILABLE: nothing restored: %w", err)}
			case errors.Is(err, state.ErrRestoreSource):
				return &exitError{code: ExitError, err: fmt.Errorf("E_ARGUMENT: nothing restored: %w", err)}
			case err != nil:
				return failure(err)
			}
			if asJSON {
				return json.NewEncoder(a.io.Out).Encode(rep)
			}
			msg := fmt.Sprintf("restored %s from %s (head %d)", events(rep.Events), args[0], rep.Head.Seq)
			if rep.Replaced != "" {
				msg += "; the previous log is kept as " + rep.Replaced
			}
			if rep.SeenSeq > rep.Head.Seq {
				msg += fmt.Sprintf("; this state folder had seen its log up to seq %d: what was written after seq %d is not in the restored log",
					rep.SeenSeq, rep.Head.Seq)
			}
			_, err = fmt.Fprintln(a.io.Out, msg)
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}
