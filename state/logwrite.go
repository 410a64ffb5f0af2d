package state

import (
	"context"
	"log/slog"

	"github.com/cos-dev/cos/eventlog"
)

// CheckLogWritable is the check a write straight to the log (`cos log
// append`, which opens the log with OpenLog and no projections) makes before
// it appends, the same two a State makes: the state folder dir, whose log
// is addr (OpenLog's Store), must not have seen more of the log than l holds
// (LogSeenFile), and l's hash chain must verify from its first event to its
// head. It returns the E_INTEGRITY error a State's Append would, nil when
// both hold. The chain walk reads the whole log (about 3 CPU-s for a million
// events on bbolt).
func CheckLogWritable(ctx context.Context, dir, addr string, l Log, logger *slog.Logger) error {
	if err := CheckLogSeen(ctx, dir, addr, l, logger); err != nil {
		return err
	}
	verify := l.Verify
	if h, ok := l.(hashVerifier); ok {
		verify = h.VerifyHashes
	}
	if _, err := verify(ctx); err != nil {
		if _, ok := l.(natsStore); ok {
			return natsIntegrity(err)
		}
		return err
	}
	return nil
}

// CheckLogSeen returns the E_INTEGRITY error a State reports when l, the
// log of the state folder dir opened at addr (OpenLog's Store), holds less
// than the folder has seen of it (LogSeenFile: it ends before the seen seq,
// or holds another event there); nil when it holds that, when the folder
// has seen nothing, or when l's head cannot be read now. A log that passes
// its own chain walk can still fail this: an older backup or a rebuilt
// stream verifies by itself.
func CheckLogSeen(ctx context.Context, dir, addr string, l Log, logger *slog.Logger) error {
	st, err := ParseStore(dir, addr)
	if err != nil {
		return err
	}
	if mark := readSeen(seenFile(dir), logger); mark.Seq > 0 {
		if lost := compareSeen(ctx, l, st.String(), seenFile(dir), mark); lost != nil {
			return lost.err
		}
	}
	return nil
}

// MarkLogSeen records in the state folder dir that its log (addr) holds
// head, after a write straight to the log, when that is newer than what
// LogSeenFile holds. A failure is logged: the mark is a check, not state.
func MarkLogSeen(dir, addr string, head eventlog.Head, logger *slog.Logger) {
	st, err := ParseStore(dir, addr)
	if err != nil || head.Seq == 0 {
		return
	}
	if mark := readSeen(seenFile(dir), logger); mark.Seq >= head.Seq {
		return
	}
	if err := writeSeen(seenFile(dir), st.String(), head); err != nil {
		logger.Warn("could not record the log position this state folder has seen", "file", seenFile(dir), "err", err)
	}
}
