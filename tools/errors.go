package tools

import (
	"errors"
	"io/fs"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/tools/envelope"
)

// LogError maps an error of the event log to the envelope error an agent
// sees (seed 002 "Exact operational codes"), with the details it needs to
// recover: the current revision and hash for STALE_REVISION, the field for
// E_ARGUMENT, the first bad seq for E_INTEGRITY. Errors that are not the
// log's go through envelope.AsError. The cause is kept for the forensic log.
func LogError(err error) *envelope.Error {
	var (
		stale  *eventlog.StaleRevisionError
		reuse  *eventlog.RequestReuseError
		inv    *eventlog.InvalidEventError
		integ  *eventlog.IntegrityError
		stor   *eventlog.StorageError
		envErr *envelope.Error
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &envErr):
		return envelope.AsError(err)
	case errors.As(err, &stale):
		d := map[string]any{
			"stream":           stale.Stream,
			"current_revision": stale.Current,
			"current_hash":     stale.CurrentHash,
		}
		if stale.Expected.IsSet() {
			d["expected_revision"] = stale.Expected.Revision()
		}
		if stale.ExpectedHash != "" {
			d["expected_hash"] = stale.ExpectedHash
		}
		return envelope.Wrap(err, envelope.CodeStaleRevision, "%s; reread and rebase your change, then send it with a new request_id", stale.Error()).WithDetails(d)
	case errors.As(err, &reuse):
		return envelope.Wrap(err, envelope.CodeRequestReuse, "%s; use a new request_id for a new intent", reuse.Error()).
			WithDetails(map[string]any{"request_id": reuse.RequestID, "original_seq": reuse.Original.FirstSeq})
	case errors.Is(err, eventlog.ErrRequestID):
		return envelope.Wrap(err, envelope.CodeRequestID, "%s", err.Error())
	case errors.As(err, &inv):
		return envelope.Wrap(err, envelope.CodeArgument, "%s", inv.Error()).WithDetails(map[string]any{"field": inv.Field})
	case errors.As(err, &integ):
		return envelope.Wrap(err, envelope.CodeIntegrity, "%s; writes are refused until the log is repaired, reads still work (run `cos verify`)", integ.Error()).
			WithDetails(map[string]any{"seq": integ.Seq})
	case errors.Is(err, eventlog.ErrCommitUnknown):
		return envelope.Wrap(err, envelope.CodeCommitUnknown, "%s", err.Error())
	case errors.Is(err, eventlog.ErrReadOnly):
		return envelope.Wrap(err, envelope.CodeReadOnly, "the event log is open read-only; reads still work")
	case errors.Is(err, eventlog.ErrClosed):
		return envelope.Wrap(err, envelope.CodeUnavailable, "the event log is closed (the server is shutting down)")
	case errors.Is(err, eventlog.ErrFormat):
		return envelope.Wrap(err, envelope.CodeStorage, "%s", err.Error())
	case errors.As(err, &stor):
		return envelope.Wrap(err, envelope.CodeStorage, "storage failed: %s %s: %v", stor.Op, stor.Path, rootCause(stor.Err))
	}
	var open *OpenError
	if errors.As(err, &open) {
		// Opening the state folder is an operator's matter: say exactly what
		// is wrong with it.
		code := envelope.CodeStorage
		if errors.Is(err, ErrOptions) {
			code = envelope.CodeArgument
		}
		if errors.Is(err, bus.ErrUnavailable) || errors.Is(err, bus.ErrInvalidOptions) {
			code = envelope.CodeUnavailable
		}
		return envelope.Wrap(err, code, "%s", open.Error())
	}
	return envelope.AsError(err)
}

// rootCause returns the innermost error of a chain of single wraps, or the
// *fs.PathError's own error (permission denied, not a directory…).
func rootCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}
