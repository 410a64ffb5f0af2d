package cli

import (
	"context"

	"github.com/cos-dev/cos/state"
)

// openLog opens the state folder's event log (state.OpenLog): for writing
// it creates the folder first (and removes it again when the first open
// fails); for reading, a missing folder is E_NOT_FOUND and a folder
// without a log an empty log.
func (a *app) openLog(ctx context.Context, readOnly bool) (state.Log, error) {
	l, err := state.OpenLog(ctx, a.stateDir, state.LogOptions{ReadOnly: readOnly, Store: a.store})
	if err != nil {
		return nil, failure(err)
	}
	return l, nil
}
