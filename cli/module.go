package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/cos-dev/cos/state"
	"github.com/spf13/cobra"
)

func (a *app) moduleCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "module",
		Short: "List, enable or disable the tool modules (graph, tasks, evidence, metrics)",
		Long: "A disabled module's tools answer E_MODULE_DISABLED. The state lives in " +
			state.ModulesFile + " in the state folder; running servers pick a change up on their next call.",
	}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "Print each module and whether it is enabled",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			ms, err := state.ListModules(a.stateDir)
			if err != nil {
				return &exitError{code: ExitError, err: fmt.Errorf("E_STORAGE: %w", err)}
			}
			if asJSON {
				return json.NewEncoder(a.io.Out).Encode(ms)
			}
			for _, m := range ms {
				state := "enabled"
				if !m.Enabled {
					state = "disabled"
				}
				fmt.Fprintf(a.io.Out, "%s\t%s\n", m.ID, state)
			}
			return nil
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	set := func(use string, enabled bool) *cobra.Command {
		return &cobra.Command{
			Use:   use + " MODULE",
			Short: use + " a module",
			Args:  cobra.ExactArgs(1),
			RunE: func(_ *cobra.Command, args []string) error {
				err := state.SetModule(a.stateDir, args[0], enabled)
				if errors.Is(err, state.ErrUnknownModule) {
					return usageError("%v", err)
				}
				if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
					return &exitError{code: ExitError, err: fmt.Errorf("E_READ_ONLY: the state folder %s cannot be written (a read-only mount or no write permission), so module %s stays as it is: %w", a.stateDir, args[0], err)}
				}
				if err != nil {
					return &exitError{code: ExitError, err: fmt.Errorf("E_STORAGE: %w", err)}
				}
				_, err = fmt.Fprintf(a.io.Out, "%s %sd\n", args[0], use)
				return err
			},
		}
	}
	cmd.AddCommand(list, set("enable", true), set("disable", false))
	return cmd
}
