package cli

import (
	"context"
	"log/slog"

	"github.com/cos-dev/cos/state"
)

// openLog opens the state folder's event log (state.OpenLog): for writing
// it creates the folder first (and removes it again when the first open
// fails); for reading, a missing folder is E_NOT_FOUND and a folder
// without a log an empty log.
func (a *app) openLog(ctx context.Context, readOnly bool) (state.Log, error) {
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
