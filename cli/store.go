package cli

import (
	"fmt"
	"strings"

	"github.com/cos-dev/cos/state"
)

// logFile returns the bbolt file the event log lives in, for the commands
// that work on a log file (backup); with a NATS store it
// returns their refusal, saying what to do instead.
func (a *app) logFile(command string) (string, error) {
	st, err := state.ParseStore(a.stateDir, a.store)
	if err != nil {
		return "", usageError("--store %q: %v", a.store, err)
	}
	if !st.IsNATS() {
		return st.Path, nil
	}
	stream := st.Stream
	if stream == "" {
		stream = "COS"
	}
	var advice string
	switch command {
	case "backup":
		advice = fmt.Sprintf("back the stream up with `nats stream backup %s DIR` (nats CLI), or copy it into a new log file with `cos migrate --to FILE`", stream)
	default:
		advice = "copy the stream into a log file with `cos migrate --to FILE`"
	}
	return "", &exitError{code: ExitError, err: fmt.Errorf("E_ARGUMENT: cos %s works on a log file, and the event log is the NATS JetStream stream %s (--store); nothing was done. Instead, %s", command, st, advice)}
}

// restorable refuses cos restore unless the log is the state folder's own
// file: restore replaces that file, never a stream or a file elsewhere.
func (a *app) restorable() error {
	st, err := state.ParseStore(a.stateDir, a.store)
	if err != nil {
		return usageError("--store %q: %v", a.store, err)
	}
	def, _ := state.ParseStore(a.stateDir, "")
	switch {
	case st.IsNATS():
		return &exitError{code: ExitError, err: fmt.Errorf("E_ARGUMENT: nothing restored: cos restore replaces the state folder's log file, and the event log is the NATS JetStream stream %s (--store). "+
			"To fill an empty stream from a log file, run `cos migrate --to %s` in a state folder holding that file", st, st)}
	case st.Path != def.Path:
		return &exitError{code: ExitError, err: fmt.Errorf("E_ARGUMENT: nothing restored: cos restore replaces %s, and --store names another log file, %s; "+
			"run it without --store, or stop every cos process using %s and copy the file there yourself", def.Path, st.Path, st.Path)}
	}
	return nil
}

// natsStore returns the NATS store --store names, or nil for a file store
// (or an address ParseStore refuses).
func (a *app) natsStore() *state.Store {
	st, err := state.ParseStore(a.stateDir, a.store)
	if err != nil || !st.IsNATS() {
		return nil
	}
	return &st
}

// natsTarget is st's servers with a stream name to fill in, for advice to
// copy a log into another stream of the same servers.
func natsTarget(st state.Store) string {
	return strings.SplitN(st.URLs, ",", 2)[0] + "/NEW_STREAM"
}
