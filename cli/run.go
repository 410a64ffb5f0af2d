package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cos-dev/cos/state"
	"github.com/cos-dev/cos/worktree"
	"github.com/spf13/cobra"
)

// Exit codes of Run.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
)

// Version is the build version reported by `cos --version` and cos_health;
// set with -ldflags "-X github.com/cos-dev/cos/cli.Version=…".
var Version = "dev"

// IO is where a command reads and writes.
type IO struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	// err is printed on stderr as "cos: <err>"; nil when the command has
	// already said everything (cos call prints the failure envelope).
	err error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

// usageError marks a wrong command line (exit 2).
func usageError(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// app holds what every subcommand shares.
type app struct {
	io       IO
	stateDir string
	// store is --store, else $COS_STORE: where the event log lives
	// (state.ParseStore); "" is the file in the state folder.
	store string
	// worktree is set when cos serve or cos call runs in a linked git
	// worktree with no state folder given: the state folder is then the
	// main worktree's, and the worktree is served over it (worktree.go).
	worktree *worktree.Info
	// writesSoon is set by cos index: the state is opened to write at
	// once (state.Options.WritesSoon).
	writesSoon bool
}

// Run runs the cos command line with args (without the program name) and
// returns the process exit code.
func Run(ctx context.Context, args []string, stdio IO) int {
	a := &app{io: stdio}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdio.In)
	root.SetOut(stdio.Out)
	root.SetErr(stdio.Err)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stdio.Err, "cos:", ee.err)
		}
		return ee.code
	}
	// cobra's own errors (unknown flag, wrong args) are usage errors.
	fmt.Fprintln(stdio.Err, "cos:", err)
	return ExitUsage
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "cos",
		Short:         "cos is a knowledge server for coding agents: code graph, task board, evidence, over MCP",
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := a.resolveStateDir(cmd); err != nil {
				return err
			}
			return a.resolveStore()
		},
	}
	root.PersistentFlags().StringVar(&a.stateDir, "state-dir", "", "state folder (default $COS_STATE_DIR, else ./.cos)")
	root.PersistentFlags().StringVar(&a.store, "store", "", "where the event log lives: nats://HOST:PORT[,nats://HOST:PORT…][/STREAM] for a JetStream stream several machines share, or a bbolt file (default $COS_STORE, else events.db in the state folder)")
	root.AddCommand(a.logCommand(), a.verifyCommand(), a.serveCommand(), a.callCommand(), a.changesCommand(), a.moduleCommand(), a.replayCommand(), a.indexCommand(), a.watchCommand())
	root.AddCommand(a.backupCommand(), a.restoreCommand(), a.migrateCommand())
	root.AddCommand(a.hubCommand())
	return root
}

// resolveStateDir applies --state-dir, else $COS_STATE_DIR, else ./.cos
// — in a linked git worktree the main worktree's .cos (for cos serve and
// cos call in worktree mode; cos index is refused there) — and makes it
// absolute.
func (a *app) resolveStateDir(cmd *cobra.Command) error {
	dir := a.stateDir
	if dir == "" {
		dir = os.Getenv("COS_STATE_DIR")
	}
	if dir == "" && cmd.Name() == "index" {
		if err := refuseIndexInWorktree(cmd.Context()); err != nil {
			return err
		}
	}
	if dir == "" {
		// In a linked worktree every command reads and writes the main
		// tree's state; serve and call also lay the worktree over it.
		wt, ok, err := detectWorktree(cmd.Context())
		if err != nil && servesWorktree(cmd) {
			return &exitError{code: ExitError, err: err}
		}
		if ok {
			dir = filepath.Join(wt.Main, ".cos")
			if servesWorktree(cmd) {
				a.worktree = &wt
			}
		}
	}
	if dir == "" {
		dir = ".cos"
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return usageError("state folder %q: %v", dir, err)
	}
	a.stateDir = abs
	return nil
}

// resolveStore applies --store, else $COS_STORE, and checks the address
// (a usage error naming the accepted forms).
func (a *app) resolveStore() error {
	if a.store == "" {
		a.store = os.Getenv(StoreEnv)
	}
	if _, err := state.ParseStore(a.stateDir, a.store); err != nil {
		return usageError("--store %q: %v", a.store, err)
	}
	return nil
}

// StoreEnv is the environment variable read when --store is not given.
const StoreEnv = "COS_STORE"
