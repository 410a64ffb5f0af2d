package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/cos-dev/cos/eventlog/store"
	"github.com/spf13/cobra"
)

func (a *app) backupCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "backup DEST",
		Short: "Copy the state folder's event log to DEST, consistently, while servers keep running",
		Long: "Write a consistent copy of the event log (events.db) to DEST, a new file, or into DEST as " +
			"events-<UTC time, ms>.db when DEST is a folder. The copy is the log at one commit: writers wait while it is " +
			"taken and lose nothing. Everything else in the state folder is rebuilt from the log. Put a copy back with " +
			"`cos restore`.",
		Example: "  cos backup /backups/cos-events.db",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := a.logFile("backup")
			if err != nil {
				return err
			}
			if _, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) {
				return &exitError{code: ExitError, err: fmt.Errorf("E_NOT_FOUND: no event log at %s: nothing has been written with this state folder yet (check --state-dir and --store)", path)}
			}
			dest, h, err := store.Backup(cmd.Context(), path, args[0])
			if err != nil {
				if errors.Is(err, store.ErrDestExists) {
					return &exitError{code: ExitError, err: fmt.Errorf("E_ARGUMENT: %s already exists; cos backup never overwrites a file, name a new one", dest)}
				}
				return failure(err)
			}
			if asJSON {
				return json.NewEncoder(a.io.Out).Encode(map[string]any{"dest": dest, "head": h})
			}
			_, err = fmt.Fprintf(a.io.Out, "backed up %s to %s (head %s)\n", events(h.Seq), dest, h.Hash)
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {dest, head} as JSON")
	return cmd
}
