package cli

import (
	"context"
	"fmt"
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
	l, err := state.OpenLog(ctx, a.stateDir, state.LogOptions{ReadOnly: readOnly, Store: a.store})
	if err != nil {
		return nil, failure(err)
	}
	return l, nil
}
