package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/cos-dev/cos/state"
)

// openLog opens the state folder's event log; for writing it creates the
// folder first, for reading a missing folder is an empty log.
func (a *app) openLog(ctx context.Context, readOnly bool) (state.Log, error) {
	if !readOnly {
		if err := os.MkdirAll(a.stateDir, 0o755); err != nil {
			return nil, &exitError{code: ExitError, err: fmt.Errorf("E_STORAGE: create state folder: %w", err)}
		}
	}
	o := state.LogOptions{ReadOnly: readOnly, Store: a.store}
	if st, err := state.ParseStore(a.stateDir, a.store); err == nil && st.IsNATS() {
		// Warnings of the open (a stream of one replica nobody said was
		// intended) go to stderr.
		o.Logger = a.stderrLogger(slog.LevelWarn)
	}
	l, err := state.OpenLog(ctx, a.stateDir, o)
	if err != nil {
		return nil, failure(err)
	}
	return l, nil
}
