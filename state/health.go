package state

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/eventlog/store"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// Health is what cos_health reports about the state folder's machinery.
type Health struct {
	// Started is when this process opened the state.
	Started time.Time
	// Dir is the absolute state folder; ReadOnly says it is a
	// point-in-time view.
	Dir      string
	ReadOnly bool
	Log      LogHealth
	// SnapshotSeq is the seq of the newest snapshot on disk (0: none).
	SnapshotSeq uint64
	// Search is the search index's slot and checkpoint; nil on a
	// point-in-time view.
	Search *SearchHealth
	Bus    BusHealth
	// LastIndex is the last index run the log records; nil when it
	// records none.
	LastIndex *IndexHealth
	// Position is the view's position checked against the log's record
	// at its seq: Verified is false when the projections were built from
	// an event that is not the log's (package projections, VerifyPosition).
	Position projections.PositionCheck
	// Integrity is whether the log read cleanly up to its head (the
	// view's Integrity).
	Integrity Integrity
	// Writable is false when writes are refused: the state folder cannot
	// be written, or Integrity is not OK (the log is damaged or holds less
	// than the folder has seen). Reads work either way.
	Writable bool
	// SnapshotFailure is the last snapshot attempt, when it failed (nil
	// when it succeeded or none was made).
	SnapshotFailure *SnapshotFailure
}

// LogHealth is the log part of Health.
type LogHealth struct {
	HeadSeq  uint64 `json:"head_seq"`
	HeadHash string `json:"head_hash,omitempty"`
	// Path is where the log lives (a file path for the bbolt log).
	Path string `json:"path"`
	// Error, when set, is why the head could not be read (a damaged last
	// record, a stream that was deleted or holds less than was seen, the
	// servers not answering): HeadSeq and HeadHash are then the
	// projections' position. Health answers either way.
	Error string `json:"error,omitempty"`
	// Replicas is a NATS store's stream replica count (absent for a log
	// file): 1 keeps an acknowledged event on one server's disk only, 3 on
	// a majority of three servers (store.Durability says what each
	// survives).
	Replicas int `json:"replicas,omitempty"`
	// Warning, when set, says the stream has one replica and nobody said
	// that is intended (`cos log init --single-replica`), what that risks
	// and what to do.
	Warning string `json:"warning,omitempty"`
}

// SearchHealth is the search index part of Health.
type SearchHealth struct {
	Slot int `json:"slot"`
	// Checkpoint is the seq stored with the index on disk: a restart
	// re-reads the events after it. Events that change no node may leave
	// it behind (up to 10,000 of them) without any lag in what a search
	// finds.
	Checkpoint uint64 `json:"checkpoint"`
	// Lag is how many events of the view the index does not reflect yet.
	Lag uint64 `json:"lag"`
}

// BusHealth is the bus part of Health: its state and the cos processes seen
// on it (mode "off" and none without a bus).
type BusHealth struct {
	bus.State
	Processes []bus.Peer `json:"processes"`
}

// Health reports the log head and the machinery around the projections;
// call it inside the view (it reads the view's position for the search
// lag). It answers whatever is wrong with the log — that is what it is
// for: a head that cannot be read is LogHealth.Error, and Integrity says
// what the reads found. The error result is always nil; it is kept for
// callers that check it.
func (v View) Health(ctx context.Context) (Health, error) {
	s := v.s
	logh := LogHealth{Path: s.logLocation}
	if d, ok := store.DurabilityOf(s.log); ok {
		logh.Replicas, logh.Warning = d.Replicas, d.Warning
	}
	if head, err := s.log.Head(ctx); err != nil {
		logh.HeadSeq, logh.HeadHash, logh.Error = v.Pos.Seq, v.Pos.Hash, err.Error()
	} else {
		logh.HeadSeq, logh.HeadHash = head.Seq, head.Hash
	}
	h := Health{
		Started:     s.started,
		Dir:         s.opts.Dir,
		ReadOnly:    s.ReadOnly(),
		Log:         logh,
		SnapshotSeq: newestSnapshot(filepath.Join(s.opts.Dir, projections.SnapshotDirName)),
		Integrity:   v.Integrity,
		Writable:    s.Writable() && v.Integrity.OK,
	}
	h.SnapshotFailure = s.SnapshotFailure()
	if run, ok := v.Graph.LastIndex(); ok {
		h.LastIndex = &IndexHealth{IndexRun: run, State: indexRunState(run, filepath.Join(s.opts.Dir, IndexLockFile))}
	}
	h.Position = s.tailer.VerifyPosition(ctx, v.Pos)
	if s.index != nil {
		// What is staged counts: a search would write it first.
		if err := s.index.Flush(); err != nil {
			s.logger.Warn("search index update failed; fuzzy lookups may miss recent nodes", "err", err)
		}
		h.Search = &SearchHealth{Slot: s.index.Slot(), Checkpoint: s.index.Checkpoint(), Lag: sub(v.Pos.Seq, s.searchReflects())}
	}
	if s.bus != nil {
		h.Bus = BusHealth{State: s.bus.State(), Processes: s.bus.Peers()}
	} else {
		h.Bus = BusHealth{State: bus.State{Mode: bus.ModeOff}, Processes: []bus.Peer{}}
	}
	return h, nil
}

// Index run states (IndexHealth.State).
const (
	// IndexFinished: the run indexed the whole tree.
	IndexFinished = "finished"
	// IndexFailed: the run stopped on an error (IndexRun.Error); what it
	// appended before stays.
	IndexFailed = "failed"
	// IndexCancelled: the run was cancelled by its caller (an interrupt, an
	// MCP client's cancel); what it appended stays and the next index
	// resumes after it.
	IndexCancelled = "cancelled"
	// IndexRunning: the run recorded no end and an index holds the
	// state folder's index lock now.
	IndexRunning = "running"
	// IndexInterrupted: the run recorded no end and no index is running:
	// its process was killed, and the graph holds part of the tree until
	// the next index.
	IndexInterrupted = "interrupted"
)

// IndexHealth is the last index run and what became of it.
type IndexHealth struct {
	projections.IndexRun
	// State is IndexFinished, IndexFailed, IndexCancelled, IndexRunning or
	// IndexInterrupted.
	State string `json:"state"`
}

// indexRunState tells a finished, failed, running or interrupted run
// apart; a run with no end is running while some process holds the index
// lock file (lockPath).
func indexRunState(run projections.IndexRun, lockPath string) string {
	switch {
	case run.Finished.Seq != 0 && run.Error == "":
		return IndexFinished
	case run.Finished.Seq != 0 && run.Error == graph.IndexCancelled:
		return IndexCancelled
	case run.Finished.Seq != 0:
		return IndexFailed
	}
	if _, err := os.Stat(lockPath); err != nil {
		return IndexInterrupted
	}
	l := flock.New(lockPath)
	locked, err := l.TryRLock()
	if err != nil {
		return IndexInterrupted
	}
	if !locked {
		return IndexRunning
	}
	_ = l.Unlock()
	return IndexInterrupted
}

func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

// newestSnapshot returns the seq of the newest snapshot file in dir
// (projections names them snap-<seq, 20 digits>.bin), or 0 when none.
func newestSnapshot(dir string) uint64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var best uint64
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "snap-") || !strings.HasSuffix(name, ".bin") {
			continue
		}
		if n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(name, "snap-"), ".bin"), 10, 64); err == nil && n > best {
			best = n
		}
	}
	return best
}
