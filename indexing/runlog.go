package indexing

import (
	"context"
	"encoding/json"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
)

// DefaultSnapshotMinBytes is how much event data (bytes) a run appends
// before a snapshot is taken at its end (RunOptions.SnapshotMinBytes): 1 MiB,
// about what a cold start replays in a tenth of a second.
const DefaultSnapshotMinBytes = 1 << 20

// finishTimeout bounds the append of graph.index_finished when the run's
// own context has ended (a cancelled run still records how it ended).
const finishTimeout = 5 * time.Second

// runLog is one run's record in the log: its root, and the seq of its
// graph.index_started once its first batch is appended (0 before).
type runLog struct {
	root       string
	startedSeq uint64
}

// finishRun appends graph.index_finished for a run that appended anything,
// with why it stopped when runErr is set. A failure to append it is logged:
// the run's batches are committed, and the log then shows a run that did
// not finish, which is what a reader must assume.
func (x *Indexer) finishRun(ctx context.Context, rep *Report, run *runLog, runErr error) {
	if run.startedSeq == 0 {
		return
	}
	p := graph.IndexFinished{Root: run.root, StartedSeq: run.startedSeq,
		FilesChanged: rep.FilesChanged + rep.FilesReextracted, FilesRemoved: rep.FilesRemoved, Events: rep.Events}
	if runErr != nil {
		p.Error = runErr.Error()
	}
	data, err := json.Marshal(p)
	if err != nil {
		x.logger.Warn("index run end not recorded", "err", err)
		return
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
	defer cancel()
	recs, err := x.st.Append(actx, eventlog.AppendRequest{Stream: graph.Stream, Client: x.st.Client(),
		Events: []eventlog.Payload{{Type: graph.TypeIndexFinished, Data: data}}})
	if err != nil {
		x.logger.Warn("index run end not recorded; health will show the run as not finished", "err", err)
		return
	}
	rep.LastSeq = max(rep.LastSeq, recs[0].LastSeq)
}

// snapshotRun brings the projections up to the run's last event and
// writes a snapshot when the run appended at least minBytes (0: the
// default; negative: never), so that the next start does not replay what
// the run appended. A failure is reported in rep, not returned: the index
// is committed.
func (x *Indexer) snapshotRun(ctx context.Context, rep *Report, minBytes int64) {
	if minBytes == 0 {
		minBytes = DefaultSnapshotMinBytes
	}
	if minBytes < 0 || rep.Events == 0 || rep.Bytes < minBytes {
		return
	}
	start := time.Now()
	defer func() { rep.SnapshotSeconds = time.Since(start).Seconds() }()
	if err := x.st.WaitFor(ctx, rep.LastSeq); err != nil {
		rep.SnapshotError = err.Error()
		return
	}
	pos, err := x.st.Snapshot(ctx) // records a failure for health too
	if err != nil {
		rep.SnapshotError = err.Error()
		x.logger.Warn("snapshot after index failed; the next start replays the log", "err", err)
		return
	}
	rep.SnapshotSeq = pos.Seq
}
