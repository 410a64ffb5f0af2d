package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/projections/evidence"
	"github.com/cos-dev/cos/projections/metrics"
	"github.com/cos-dev/cos/projections/tasks"
	"github.com/cos-dev/cos/search"
	"github.com/cos-dev/cos/state"
)

// logError maps an error of the event log, or of opening the state folder,
// to the envelope error (see ToEnvelopeError); any other error goes through
// envelope.AsError.
func logError(err error) *envelope.Error {
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
		return envelope.Wrap(err, envelope.CodeIntegrity, "%s; %s", integ.Error(), integrityRecovery(integ.Seq)).
			WithDetails(map[string]any{"seq": integ.Seq})
	case errors.Is(err, eventlog.ErrCommitUnknown):
		return CommitUnknownError(err, RequestIDUnknown)
	case errors.Is(err, eventlog.ErrReadOnly):
		return envelope.Wrap(err, envelope.CodeReadOnly, "the event log is open read-only; reads still work")
	case errors.Is(err, eventlog.ErrClosed):
		return envelope.Wrap(err, envelope.CodeUnavailable, "the event log is closed (the server is shutting down)")
	case errors.Is(err, eventlog.ErrFormat):
		return envelope.Wrap(err, envelope.CodeStorage, "%s", err.Error())
	case errors.As(err, &stor) && errors.Is(err, syscall.ENOSPC):
		return envelope.Wrap(err, envelope.CodeStorage, "storage failed: %s %s: the disk is full (no space left on device); free space on it, then run the request again", stor.Op, stor.Path).
			WithDetails(map[string]any{"disk_full": true, "path": stor.Path})
	case errors.As(err, &stor):
		return envelope.Wrap(err, envelope.CodeStorage, "storage failed: %s %s: %v", stor.Op, stor.Path, rootCause(stor.Err))
	}
	var open *state.OpenError
	if errors.As(err, &open) {
		// Opening the state folder is an operator's matter: say exactly what
		// is wrong with it.
		code := envelope.CodeStorage
		if errors.Is(err, state.ErrOptions) {
			code = envelope.CodeArgument
		}
		if open.Unavailable() {
			code = envelope.CodeUnavailable
		}
		return envelope.Wrap(err, code, "%s", open.Error())
	}
	if errors.Is(err, indexing.ErrOptions) {
		return envelope.Wrap(err, envelope.CodeArgument, "%s", err.Error())
	}
	return envelope.AsError(err)
}

// RequestIDState says whether the failed write carried a request id, for
// CommitUnknownError's advice.
type RequestIDState int

const (
	// RequestIDUnknown: the caller cannot tell (the advice covers both).
	RequestIDUnknown RequestIDState = iota
	// RequestIDSent: the write had a request id; resending it is safe.
	RequestIDSent
	// RequestIDNone: the write had none; a blind resend may write twice.
	RequestIDNone
)

// CommitUnknownError is COMMIT_UNKNOWN for err (eventlog.ErrCommitUnknown):
// what failed — a full disk is named as such — and the resend advice that
// fits the request: the same request_id only when it had one.
func CommitUnknownError(err error, rid RequestIDState) *envelope.Error {
	what := fmt.Sprintf("whether the write reached the disk is unknown (%v)", rootCause(err))
	details := map[string]any{}
	var stor *eventlog.StorageError
	if errors.As(err, &stor) {
		what = fmt.Sprintf("whether the write reached %s is unknown (%v)", stor.Path, rootCause(stor.Err))
		details["path"] = stor.Path
	}
	if errors.Is(err, syscall.ENOSPC) {
		what = "the disk is full (no space left on device)"
		if stor != nil {
			what = fmt.Sprintf("the disk holding %s is full (no space left on device)", stor.Path)
		}
		what += "; free space on it, then"
		details["disk_full"] = true
	} else {
		what += "; once storage works again,"
	}
	var advice string
	switch rid {
	case RequestIDSent:
		advice = "resend the identical request with the same request_id: it cannot be written twice"
	case RequestIDNone:
		advice = "read the state to see whether the write happened before sending it again: it carried no request_id, so a resend could write it twice (a request_id makes resends safe)"
	default:
		advice = "resend it with the same request_id if it had one (it cannot be written twice); without one, read the state first to see whether the write happened"
	}
	return envelope.Wrap(err, envelope.CodeCommitUnknown, "%s %s", what, advice).WithDetails(details)
}

// integrityRecovery is what an E_INTEGRITY message tells the operator
// after naming the damage at seq: that writes are refused, what reads
// still see, and the way back (salvage into a new file, then restore it).
// Nothing is repaired in place.
func integrityRecovery(seq uint64) string {
	reads := "reads still work"
	if seq > 0 {
		reads = fmt.Sprintf("reads answer from the state before seq %d", seq)
	}
	return "writes are refused and " + reads + ". To recover, `cos verify --salvage NEW_FILE` writes every event that " +
		"still verifies to a new log and lists the seqs lost; stop the cos processes using this state folder, then " +
		"`cos restore NEW_FILE` puts it in place (the damaged log is kept beside it)"
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

// ToEnvelopeError is the one mapping from an error to the envelope error an
// agent sees, with the details it needs to recover:
//
//   - an *envelope.Error as is;
//   - the errors of the tasks, evidence and metrics projections (domainError);
//   - the resolver's E_AMBIGUOUS and E_NOT_FOUND with their candidates;
//   - the log's errors (logError): STALE_REVISION with the current revision
//     and hash, E_REQUEST_REUSE, E_INTEGRITY with the first bad seq, …;
//   - a state folder that cannot be opened (E_STORAGE, E_ARGUMENT,
//     E_UNAVAILABLE);
//   - anything else E_INTERNAL, its cause kept for the forensic log only.
//
// It returns nil for a nil error.
func ToEnvelopeError(err error) *envelope.Error {
	if err == nil {
		return nil
	}
	var envErr *envelope.Error
	if errors.As(err, &envErr) {
		return envelope.AsError(err)
	}
	if de := domainError(err); de != nil {
		return de
	}
	var (
		amb *search.AmbiguousError
		nf  *search.NotFoundError
	)
	switch {
	case errors.Is(err, state.ErrPastBusy):
		return envelope.Wrap(err, envelope.CodeUnavailable,
			"too many calls are reading the state at different points in time (at) right now; retry when some finish, or use a point in time other calls use")
	case errors.Is(err, state.ErrPastClosed):
		return envelope.Wrap(err, envelope.CodeUnavailable, "the server is shutting down; no point-in-time view can be opened")
	case errors.As(err, &amb):
		return envelope.Wrap(err, envelope.CodeAmbiguous,
			"%q matches %d nodes and none clearly wins; pass one of the candidate uids", amb.Query, len(amb.Candidates)).
			WithDetails(map[string]any{"query": amb.Query, "candidates": amb.Candidates})
	case errors.As(err, &nf):
		msg := fmt.Sprintf("no node matches %q", nf.Query)
		if nf.Strict {
			msg += " exactly (writes never resolve fuzzily: pass a uid or a repo-relative path)"
		}
		if len(nf.Suggestions) > 0 {
			uids := make([]string, len(nf.Suggestions))
			for i, c := range nf.Suggestions {
				uids[i] = c.UID
			}
			msg += "; did you mean " + strings.Join(uids, ", ") + "?"
		}
		sugg := nf.Suggestions
		if sugg == nil {
			sugg = []search.Candidate{}
		}
		return envelope.Wrap(err, envelope.CodeNotFound, "%s", msg).
			WithDetails(map[string]any{"query": nf.Query, "suggestions": sugg})
	}
	return logError(err)
}

// domainError maps the errors of projections/tasks, evidence and
// projections/metrics to envelope errors, or returns nil for any other
// error:
//
//	*tasks.ArgumentError, *metrics.ArgumentError  E_ARGUMENT (field, got, legal, example)
//	*tasks.CycleError                             E_ARGUMENT naming the cycle
//	*tasks.CursorError                            E_CURSOR
//	*tasks.StaleCursorError                       STALE_CURSOR
//	*tasks.NotFoundError, metrics.ErrNotFound,
//	evidence.ErrNotFound                          E_NOT_FOUND
//	*tasks.ClaimedError                           E_CLAIMED (category conflict) naming the holder
//	evidence session, role, kind, output errors   E_ARGUMENT
func domainError(err error) *envelope.Error {
	var (
		envErr  *envelope.Error
		targ    *tasks.ArgumentError
		tfield  *tasks.FieldError
		marg    *metrics.ArgumentError
		cycle   *tasks.CycleError
		curs    *tasks.CursorError
		stale   *tasks.StaleCursorError
		tnf     *tasks.NotFoundError
		claimed *tasks.ClaimedError
		outErr  *evidence.OutputError
	)
	switch {
	case errors.As(err, &envErr):
		return nil // already an envelope error
	case errors.As(err, &targ):
		fields := make([]string, len(targ.Fields))
		example := ""
		for i, f := range targ.Fields {
			fields[i] = f.Field
			if example == "" {
				example = f.Example
			}
		}
		d := map[string]any{"fields": targ.Fields}
		if len(fields) > 0 {
			d["field"] = fields[0]
			d["got"] = targ.Fields[0].Got
			d["expected"] = targ.Fields[0].Legal
		}
		if example != "" {
			d["example"] = json.RawMessage(example)
		}
		return envelope.Wrap(err, envelope.CodeArgument, "%s", err.Error()).WithDetails(d)
	case errors.As(err, &tfield):
		d := map[string]any{"field": tfield.Field, "got": tfield.Got, "expected": tfield.Legal}
		if tfield.Example != "" {
			d["example"] = json.RawMessage(tfield.Example)
		}
		return envelope.Wrap(err, envelope.CodeArgument, "%s", err.Error()).WithDetails(d)
	case errors.As(err, &marg):
		d := map[string]any{"field": marg.Field, "got": marg.Got, "expected": marg.Legal}
		if marg.Example != "" {
			d["example"] = json.RawMessage(marg.Example)
		}
		return envelope.Wrap(err, envelope.CodeArgument, "%s", err.Error()).WithDetails(d)
	case errors.As(err, &cycle):
		example := cycleExample(cycle)
		return envelope.Wrap(err, envelope.CodeArgument,
			"%s: the change would close a dependency cycle %s; leave out one of these links; example: %s",
			cycle.Relation, strings.Join(cycle.Cycle, " → "), example).
			WithDetails(map[string]any{"field": cycle.Relation, "cycle": cycle.Cycle, "example": json.RawMessage(example)})
	case errors.As(err, &curs):
		return envelope.Wrap(err, envelope.CodeCursor,
			"Invalid board cursor (%s); list again without cursor to get a fresh one", curs.Reason).
			WithDetails(map[string]any{"field": "cursor", "reason": curs.Reason})
	case errors.As(err, &stale):
		d := map[string]any{"reason": stale.Reason}
		if stale.TaskID != "" {
			d["task_id"] = stale.TaskID
		}
		return envelope.Wrap(err, envelope.CodeStaleCursor,
			"This cursor no longer describes the board (%s); list again without cursor", stale.Reason).WithDetails(d)
	case errors.As(err, &tnf):
		return envelope.Wrap(err, envelope.CodeNotFound, "%s; list the board with cos_task_board", err.Error()).
			WithDetails(map[string]any{"field": tnf.Field, "task_id": tnf.TaskID})
	case errors.As(err, &claimed):
		return envelope.Wrap(err, envelope.CodeClaimed,
			"%s is claimed by %q; only the holder can work it (ask them to release it, or pick another task)",
			claimed.TaskID, claimed.Holder).
			WithDetails(map[string]any{"task_id": claimed.TaskID, "holder": claimed.Holder,
				"current_revision": claimed.Revision, "current_hash": claimed.Hash})
	case errors.As(err, &outErr):
		d := map[string]any{"kind": outErr.Kind, "output_class": outErr.Class, "problems": outErr.Problems, "field": "output"}
		if outErr.Role != "" {
			d["role"] = outErr.Role
		}
		if json.Valid([]byte(outErr.Example)) {
			d["example"] = json.RawMessage(outErr.Example)
		}
		return envelope.Wrap(err, envelope.CodeArgument, "%s", err.Error()).WithDetails(d)
	case errors.Is(err, evidence.ErrInvalidSession):
		return envelope.Wrap(err, envelope.CodeArgument,
			"session_id: %s; expected 1–%d characters of A–Z a–z 0–9 . _ - not starting with \".\"; example: %s",
			err.Error(), evidence.MaxSessionLen, recordExample).
			WithDetails(map[string]any{"field": "session_id", "example": json.RawMessage(recordExample)})
	case errors.Is(err, evidence.ErrUnknownRole), errors.Is(err, evidence.ErrUnknownKind):
		field := "role"
		if errors.Is(err, evidence.ErrUnknownKind) {
			field = "kind"
		}
		return envelope.Wrap(err, envelope.CodeArgument, "%s: %s; example: %s", field, err.Error(), recordExample).
			WithDetails(map[string]any{"field": field, "example": json.RawMessage(recordExample)})
	case errors.Is(err, evidence.ErrNotFound):
		return envelope.Wrap(err, envelope.CodeNotFound, "%s; record an output with cos_supervise_record_output first", err.Error())
	case errors.Is(err, metrics.ErrNotFound):
		return envelope.Wrap(err, envelope.CodeNotFound, "%s; record a point with cos_metric_record first", err.Error())
	}
	return nil
}

// joinQuoted renders a list of legal values: "a", "b", "c".
func joinQuoted(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

// cycleExample is a corrected update for a refused cycle: the task of the
// cycle's first element without the link that closed it.
func cycleExample(e *tasks.CycleError) string {
	id := "TASK-001"
	if len(e.Cycle) > 0 {
		id = e.Cycle[0]
	}
	patch := `{"depends_on": []}`
	if e.Relation == "parent" {
		patch = `{"parent": ""}`
	}
	return fmt.Sprintf(`{"task_id": %q, "patch": %s}`, id, patch)
}
