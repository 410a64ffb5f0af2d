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
// Dependency changes live in one shared stream, RelationsStream
// ("board:relations"):
//
//	task.relations_updated  RelationsUpdated{task_id, patch: Patch}   the patch sets depends_on or parent
//
// A task's Revision is its own stream's revision plus the number of its
// task.relations_updated events, and its Hash the hash of the last event of
// either kind; Board.Revisions gives the two stream revisions apart. A log
// without RelationsStream events (every log written before it existed,
// whose updates carried depends_on and parent in task.updated) folds to the
// same board and state hash as before.
//
// # Writing
//
// cos_task_create: ParseCreate → Board.CheckRelations("", deps, parent) →
// append. A create closes no cycle (nothing depends on a new task yet).
//
// cos_task_update: ParsePatch, then in one view: the task exists, its
// Revision and Hash match base_revision and expected_hash, a claimed task's
// status is changed by its holder (or with force), and, for a patch with
// Patch.ChangesRelations, CheckRelations(id, …). It appends at the revision
// read in that view: the task's stream for most patches, RelationsStream
// (task.relations_updated) for a dependency change. The log's revision
// check decides every race inside the write: two dependency changes that
// would together close a cycle both expect the same RelationsStream
// revision, so exactly one commits; the loser rereads and now sees the
// cycle. A dependency change checks the task's other conditions (base
// revision, hash, claim) against the same view but not inside the write,
// since one request appends to one stream: an event of the task's own
// stream committed in between is not seen by it. Every write then answers
// with Board.Get read back after the tailer applied the receipt's seq.
//
// # Claims
//
// Of N concurrent claimers exactly one wins because the log serialises
// appends and checks the revision inside the write transaction. The tool:
//
//  1. reads the task: Board.ClaimCheck(id, assignee) → (task, outcome, err);
//  2. ClaimHeld: the caller already holds it — answer the task, append
//     nothing (idempotent); *ClaimedError: answer E_CLAIMED naming the
//     holder;
//  3. ClaimFree: append task.claimed expecting the revision of the task's
//     own stream (Board.Revisions; task.Revision also counts its
//     dependency changes);
//  4. on STALE_REVISION: catch the tailer up and go to 1 (the winner's
//     claim is now visible, so the loser gets conflict naming the holder,
//     or ClaimHeld when its own earlier attempt had committed). Bound the
//     retries (a few) since other updates can also move the revision.
//
// The reducer records whatever task.claimed it is given; arbitration is
// the log's CAS, never the reducer's. While a task is claimed, a release by
// anyone else and an update that changes its status from anyone else
// (unless it says force) are *ClaimedError too.
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
