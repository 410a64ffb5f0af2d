package indexing

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/gitfiles"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/state"
)

// DefaultSnapshotMinBytes is the least event data (bytes) past the newest
// snapshot for which a run takes a snapshot at its end when
// RunOptions.SnapshotMinBytes is 0: 1 MiB, about what a cold start replays
// in a tenth of a second. Past it the default scales with the snapshot's
// size (state.State.SnapshotDue).
const DefaultSnapshotMinBytes = state.MinSnapshotReplayBytes

// finishTimeout bounds the append of graph.index_finished when the run's
// own context has ended (a cancelled run still records how it ended).
const finishTimeout = 5 * time.Second

// runLog is one run's record in the log: its root, the git state it
// began from, and the seq of its graph.index_started once its first batch
// is appended (0 before).
type runLog struct {
	// root is the root's folder, name its name ("" the primary root).
	root, name string
	// git is closed once commit and dirty are known.
	git    chan struct{}
	commit string
	dirty  bool
	// targeted is how many paths a targeted run looks at (-1: none), 0 for
	// a run over the whole tree.
	targeted   int
	startedSeq uint64
	// keeping is set when a run cancelled while Go packages were checked
	// emits the files it finished (extract.Options.Keeping): their
	// batches are appended although ctx has ended.
	keeping bool
	// last is the last run the log recorded before this one, nil if none.
	last *projections.IndexRun
	// replayAtStart is the event data past the newest snapshot when the
	// run began (state.State.ReplayBytes), to which its appends add.
	replayAtStart int64
}

// startRequest is the request appending the run's graph.index_started.
func (r *runLog) startRequest(client string) (eventlog.AppendRequest, error) {
	<-r.git
	data, err := json.Marshal(graph.IndexStarted{Root: r.root, Name: r.name, Commit: r.commit, Dirty: r.dirty, Targeted: max(r.targeted, 0)})
	if err != nil {
		return eventlog.AppendRequest{}, err
	}
	return eventlog.AppendRequest{Stream: graph.Stream, Client: client,
		Events: []eventlog.Payload{{Type: graph.TypeIndexStarted, Data: data}}}, nil
}

// worthRecording reports whether a run that appended no file event must
// still be recorded: it ended cleanly and the log would otherwise name
// another base for the graph — another root, commit or dirty state, or a
// last run that did not finish (this one proves the graph whole again).
// A targeted run that changed nothing proves nothing about the tree.
func (r *runLog) worthRecording(runErr error) bool {
	if runErr != nil || r.targeted != 0 {
		return false
	}
	<-r.git
	l := r.last
	return l == nil || l.Root != r.root || l.Commit != r.commit || l.Dirty != r.dirty ||
		l.Finished.Seq == 0 || l.Error != ""
}

// gitState returns the commit HEAD names in the work tree holding root and
// whether the files under root differ from it; "" and false outside git,
// without git on PATH, or in a repository with no commit yet. A git
// failure is logged, not returned: the index does not depend on it.
func (x *Indexer) gitState(ctx context.Context, root string) (commit string, dirty bool) {
	commit, err := gitfiles.Head(ctx, root)
	if err != nil || commit == "" {
		if err != nil && !errors.Is(err, gitfiles.ErrNotWorkTree) && !errors.Is(err, gitfiles.ErrNoGit) && ctx.Err() == nil {
			x.logger.Warn("git commit of the indexed folder unknown", "err", err)
		}
		return "", false
	}
	dirty, err = gitfiles.Dirty(ctx, root)
	if err != nil && ctx.Err() == nil {
		x.logger.Warn("git status of the indexed folder unknown; recorded as dirty", "err", err)
		dirty = true
	}
	return commit, dirty
}

// finishRun appends graph.index_finished for a run that appended anything,
// with why it stopped when runErr is set. A failure to append it is logged:
// the run's batches are committed, and the log then shows a run that did
// not finish, which is what a reader must assume.
func (x *Indexer) finishRun(ctx context.Context, rep *Report, run *runLog, runErr error) {
	var reqs []eventlog.AppendRequest
	if run.startedSeq == 0 {
		if !run.worthRecording(runErr) {
			return
		}
		// Nothing changed, but the graph is now known to be the tree at
		// this commit: record the run, both events in one transaction.
		req, err := run.startRequest(x.st.Client())
		if err != nil {
			x.logger.Warn("index run not recorded", "err", err)
			return
		}
		reqs = append(reqs, req)
	}
	p := graph.IndexFinished{Root: run.root, Name: run.name, StartedSeq: run.startedSeq, FilesSeen: rep.FilesSeen,
		FilesChanged: rep.FilesChanged + rep.FilesReextracted, FilesRemoved: rep.FilesRemoved, Events: rep.Events}
	switch {
	case runErr != nil && errors.Is(runErr, context.Canceled):
		p.Error = graph.IndexCancelled
	case runErr != nil:
		p.Error = runErr.Error()
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
	defer cancel()
	if len(reqs) > 0 {
		// The started seq is not known before the append: it is the seq
		// the first request gets, the head + 1 under the log's lock. Append
		// the start alone first, then the end naming it.
		recs, err := x.st.Append(actx, reqs...)
		if err != nil {
			x.logger.Warn("index run not recorded", "err", err)
			return
		}
		run.startedSeq = recs[0].FirstSeq
		p.StartedSeq = run.startedSeq
		rep.FirstSeq = recs[0].FirstSeq
		rep.LastSeq = max(rep.LastSeq, recs[0].LastSeq)
	}
	data, err := json.Marshal(p)
	if err != nil {
		x.logger.Warn("index run end not recorded", "err", err)
		return
	}
	recs, err := x.st.Append(actx, eventlog.AppendRequest{Stream: graph.Stream, Client: x.st.Client(),
		Events: []eventlog.Payload{{Type: graph.TypeIndexFinished, Data: data}}})
	if err != nil {
		x.logger.Warn("index run end not recorded; health will show the run as not finished", "err", err)
		return
	}
	rep.LastSeq = max(rep.LastSeq, recs[0].LastSeq)
}

// snapshotRun brings the projections up to the run's last event and
// writes a snapshot when what a cold start would replay past the newest
// snapshot — the replay when the run began plus what it appended, or what
// the projections applied since, whichever is more — is due
// (state.State.SnapshotDue with minBytes: 0 scales with the snapshot's
// size, from DefaultSnapshotMinBytes; positive is that many bytes;
// negative never), so that the next start does not replay what the run
// appended, and a run that changes a few files of a large tree does not
// rewrite the whole snapshot. A run that appended nothing takes none. A
// failure is reported in rep, not returned: the index is committed.
func (x *Indexer) snapshotRun(ctx context.Context, rep *Report, run *runLog, minBytes int64) {
	if rep.Events == 0 || !x.st.SnapshotDue(max(run.replayAtStart+rep.Bytes, x.st.ReplayBytes()), minBytes) {
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
