package state

import (
	"os"
	"path/filepath"

	"github.com/cos-dev/cos/eventlog/natslog"
	"github.com/cos-dev/cos/eventlog/store"
)

// LogCheckpointPrefix starts the name of the file where a NATS store's
// handle keeps what it read of the stream (natslog.Options.Checkpoint):
// log-checkpoint-<STREAM>.bin in the state folder, one per stream name.
const LogCheckpointPrefix = "log-checkpoint-"

// logCheckpoint returns the checkpoint file of the NATS store st in the
// state folder dir, "" for a file store or a folder that does not exist
// (a read-only open never creates it).
func logCheckpoint(dir string, st store.Address) string {
	if !st.IsNATS() || dir == "" {
		return ""
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	name := st.Stream
	if name == "" {
		name = natslog.DefaultStream
	}
	return filepath.Join(dir, LogCheckpointPrefix+name+".bin")
}
