package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/state"
)

// openLog opens the state folder's event log; for writing it creates the
// folder first, for reading a missing folder is an empty log.
func (a *app) openLog(readOnly bool) (*eventlog.Log, error) {
	if !readOnly {
		if err := os.MkdirAll(a.stateDir, 0o755); err != nil {
			return nil, &exitError{code: ExitError, err: fmt.Errorf("E_STORAGE: create state folder: %w", err)}
		}
	}
	l, err := eventlog.Open(filepath.Join(a.stateDir, state.LogFile), eventlog.Options{ReadOnly: readOnly})
	if err != nil {
		return nil, failure(err)
	}
	return l, nil
}
