package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/store"
)

// LogSeenFile records, in the state folder, the newest log position the
// folder has seen — {"store", "seq", "hash"}, JSON — so that a later
// process refuses a log that holds less, whatever address it is opened by
// (checkSeen). It is written when a process has opened the state, after
// each of its writes (Append, `cos log append`) and when it closes, and only
// when the seq moved; RestoreLog removes it with the rest of what derives from the
// replaced log. Deleting it by hand accepts the log as it is now.
const LogSeenFile = "log-seen.json"

// logSeen is the content of LogSeenFile.
type logSeen struct {
	// Store is the log's address (Store.String()) when the mark was
	// written: for people reading the file; the check does not compare it.
	Store string `json:"store"`
	Seq   uint64 `json:"seq"`
	Hash  string `json:"hash"`
}

// seenMark is the state's side of LogSeenFile: the last mark written and,
// when the log holds less than it, the loss.
type seenMark struct {
	// mu serialises writes of the file; last is the seq written or read.
	mu   sync.Mutex
	last uint64
	// lost is set once the log was found to hold less than the mark; it is
	// never cleared while the process runs.
	lost atomic.Pointer[lostLog]
}

// lostLog is a log that holds less than the state folder has seen.
type lostLog struct {
	integrity Integrity
	err       error
}

func (s *State) seenPath() string { return seenFile(s.opts.Dir) }

// seenFile is LogSeenFile in the state folder dir.
func seenFile(dir string) string { return filepath.Join(dir, LogSeenFile) }

// checkSeen compares the log with the newest position the state folder
// saw of it (LogSeenFile): a log whose head is before that seq, or whose
// event at that seq has another hash, was deleted, replaced or rebuilt
// empty. That is recorded (Integrity, writes refused with lostErr) and
// logged; otherwise the mark moves to the log's head. Called by Open once
// the projections have caught up.
//
// The mark is compared whatever address the log is opened by now: the
// state folder's projections came from the log it saw, so a different
// spelling of the same server, a moved or copied folder or another --store
// must hold that log too (a copy made with `cos migrate` does).
func (s *State) checkSeen(ctx context.Context) {
	mark := readSeen(s.seenPath(), s.logger)
	if mark.Seq > 0 {
		s.seen.last = mark.Seq
		if lost := compareSeen(ctx, s.log, s.logLocation, s.seenPath(), mark); lost != nil {
			s.seen.lost.Store(lost)
			s.logger.Error("the event log does not hold what this state folder has seen (it ends earlier, or holds another event at the seen seq); writes are refused", "err", lost.err)
			return
		}
	}
	s.saveSeen(ctx)
}

// readSeen reads LogSeenFile at path: the zero mark when there is none. An
// unreadable or damaged file is logged and read as none (it is written
// without fsync, so a power cut can leave it empty).
func readSeen(path string, logger *slog.Logger) logSeen {
	var mark logSeen
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		logger.Warn("could not read the state folder's record of the log it has seen", "file", path, "err", err)
	default:
		if err := json.Unmarshal(b, &mark); err != nil {
			logger.Warn("the state folder's record of the log it has seen is unreadable; writing it again", "file", path, "err", err)
			mark = logSeen{}
		}
	}
	return mark
}

// seenHeadTimeout bounds the read of the log head for LogSeenFile.
const seenHeadTimeout = 5 * time.Second

// compareSeen returns the loss when l (named location in messages) does
// not hold mark (read from the file at path), nil when it does or cannot be
// read now (the reads report that themselves).
func compareSeen(ctx context.Context, l Log, location, path string, mark logSeen) *lostLog {
	head, err := l.Head(ctx)
	if err != nil {
		return nil
	}
	var problem string
	first := head.Seq + 1
	if head.Seq < mark.Seq {
		problem = fmt.Sprintf("the log %s ends at seq %d, and this state folder has seen it up to seq %d", location, head.Seq, mark.Seq)
	} else {
		hash := head.Hash // the common case: nothing written since
		if head.Seq != mark.Seq {
			err := l.Read(ctx, mark.Seq, func(ev eventlog.Event) error {
				hash = ev.Hash
				return eventlog.ErrStop
			})
			if err != nil {
				return nil
			}
		}
		if hash == mark.Hash {
			return nil
		}
		first = mark.Seq
		problem = fmt.Sprintf("the log %s holds another event at seq %d than this state folder has seen there (hash %s, seen %s)",
			location, mark.Seq, short(hash), short(mark.Hash))
	}
	ie := &eventlog.IntegrityError{Seq: first, Reason: problem}
	return &lostLog{
		integrity: Integrity{FirstBadSeq: first, SeenSeq: mark.Seq, Problem: problem},
		err: envelope.Wrap(ie, envelope.CodeIntegrity, "%s. "+
			"Writes are refused so that nothing is written into the wrong log (new tasks would take the names of lost ones). "+
			"Put the log back (a copy of it: `cos migrate` from a file or another stream, `cos restore BACKUP` for a log file); "+
			"or, if starting over from this log is intended, delete %s", problem, path).
			WithDetails(map[string]any{"seen_seq": mark.Seq, "head_seq": head.Seq}),
	}
}

// short returns the first 12 characters of a hash, for messages.
func short(h string) string { return h[:min(len(h), 12)] }

// saveSeen moves LogSeenFile to the log's head (what this process's own
// appends reached, which the projections may not have applied yet) when
// it is newer than the mark and the log was not found lost. A head that
// cannot be read (a log lost while running answers an
// *eventlog.IntegrityError) leaves the mark. Failures are logged: the
// mark is a check, not state.
func (s *State) saveSeen(ctx context.Context) {
	if !s.writable || s.tailer == nil || s.opts.At != nil || s.seen.lost.Load() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, seenHeadTimeout)
	defer cancel()
	pos, err := s.log.Head(ctx)
	if err != nil {
		return
	}
	s.markSeen(pos)
}

// markSeen moves LogSeenFile to pos when it is newer than the mark: Open
// and Close call it through saveSeen, Append after each commit, so that a
// process killed without closing leaves the mark at its last write.
func (s *State) markSeen(pos eventlog.Head) {
	s.seen.mu.Lock()
	defer s.seen.mu.Unlock()
	if pos.Seq == 0 || pos.Seq <= s.seen.last || s.seen.lost.Load() != nil {
		return
	}
	if err := writeSeen(s.seenPath(), s.logLocation, pos); err != nil {
		s.logger.Warn("could not record the log position this state folder has seen", "file", s.seenPath(), "err", err)
		return
	}
	s.seen.last = pos.Seq
}

// writeSeen writes LogSeenFile at path: pos of the log at location.
func writeSeen(path, location string, pos eventlog.Head) error {
	b, _ := json.Marshal(logSeen{Store: location, Seq: pos.Seq, Hash: pos.Hash})
	// Not fsynced: losing the newest mark to a power cut weakens the check
	// for a moment, and every write would otherwise pay a second sync.
	tmp := path + ".tmp"
	err := os.WriteFile(tmp, append(b, '\n'), 0o644)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// lostErr returns the E_INTEGRITY error of a log that holds less than the
// state folder has seen, nil otherwise.
func (s *State) lostErr() error {
	if l := s.seen.lost.Load(); l != nil {
		return l.err
	}
	return nil
}

// noteMissing records a log that is gone while this process runs (its
// NATS stream deleted: store.ErrNoStream) as lost — reads answer from the
// state as it was, with Integrity saying so, and writes are refused until
// the process is restarted on a log that holds what it saw — and reports
// whether err was that.
func (s *State) noteMissing(err error) bool {
	if !errors.Is(err, store.ErrNoStream) {
		return false
	}
	pos := s.tailer.Position()
	problem := fmt.Sprintf("the log %s no longer exists, and this state folder has seen it up to seq %d", s.logLocation, pos.Seq)
	ie := &eventlog.IntegrityError{Seq: 1, Reason: problem}
	s.seen.lost.CompareAndSwap(nil, &lostLog{
		integrity: Integrity{FirstBadSeq: 1, EventsAfter: 0, SeenSeq: pos.Seq, Problem: problem},
		err: envelope.Wrap(ie, envelope.CodeIntegrity, "%s: it was deleted, or its servers lost their data. Writes are refused so that "+
			"nothing starts an empty log in its place (new tasks would take the names of lost ones). Put the log back (a copy "+
			"of it: `cos migrate` from a file or another stream) and restart this server", problem).
			WithDetails(map[string]any{"seen_seq": pos.Seq}),
	})
	return true
}
