// Package tasks is the task-board projection and the domain rules of the
// task tools: event payloads, argument validation, TaskSignals (docs/uids.md),
// dependency cycles, claims and board cursors. It knows nothing of MCP.
//
// # Streams and events
//
// Each task is its own stream "task:TASK-NNN". A create is appended with
// AppendRequest{StreamPrefix: "task:TASK-", Expect: eventlog.NoStream()};
// the log allocates the id inside the write transaction. The task's
// revision is the stream revision and its hash the hash of the stream's
// last event, so CAS (base_revision / expected_hash, docs/errors.md) is the
// log's.
//
//	task.created   Created{title, description, priority, status, labels, signals, depends_on, parent}
//	task.updated   Updated{patch: Patch}   nil fields unchanged
//	task.claimed   Claimed{assignee}
//	task.released  Released{assignee}      the holder gives the task back
//
// # Writing
//
// cos_task_create: ParseCreate → Board.CheckRelations("", deps, parent) →
// append. cos_task_update: ParsePatch → CheckRelations(id, …) when
// depends_on or parent is set → append with AtRevision(base_revision) and
// ExpectedHash. Every write then answers with Board.Get read back after the
// tailer applied the receipt's seq.
//
// # Claims
//
// Of N concurrent claimers exactly one wins because the log serialises
// appends and checks the revision inside the write transaction. The tool:
//
//  1. reads the task: Board.ClaimCheck(id, assignee) → (task, outcome, err);
//  2. ClaimHeld: the caller already holds it — answer the task, append
//     nothing (idempotent); *ClaimedError: answer conflict naming the holder;
//  3. ClaimFree: append task.claimed with Expect AtRevision(task.Revision);
//  4. on STALE_REVISION: catch the tailer up and go to 1 (the winner's
//     claim is now visible, so the loser gets conflict naming the holder,
//     or ClaimHeld when its own earlier attempt had committed). Bound the
//     retries (a few) since other updates can also move the revision.
//
// The reducer records whatever task.claimed it is given; arbitration is
// the log's CAS, never the reducer's.
//
// # Board cursors
//
// List pages the board in id order with opaque, checksummed cursors bound
// to the filter and to the log position of the walk's first page; the
// stale rule is in List's doc. Malformed → ErrCursor (E_CURSOR); stale →
// ErrStaleCursor (STALE_CURSOR).
//
// # TaskSignals
//
// ParseSignals implements TaskSignals (docs/uids.md) with one helpful message
// per wrong form; AnalyzeTask adds the evidence roles the signals call for.
package tasks
