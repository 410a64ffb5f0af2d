package tasks

import (
	"fmt"
	"slices"

	"github.com/cos-dev/cos/eventlog"
)

// This file decides, against the current board, whether an update or a
// release may be appended and at which revision (the claim's decision is
// ClaimCheck). The caller appends at that revision; a lost race is the
// log's STALE_REVISION, after which it reads the board again and decides
// again. See the package doc for the whole protocol.

// UpdateCheck is a task update as CheckUpdate decides it.
type UpdateCheck struct {
	// ID is the task updated, Patch the change.
	ID    string
	Patch Patch
	// Actor is the caller's assignee name ("" when not given), Force its
	// override of another's claim.
	Actor string
	Force bool
	// BaseRevision (0: none) and ExpectedHash ("": none) are the caller's
	// CAS condition on the task.
	BaseRevision uint64
	ExpectedHash string
}

// CheckUpdate returns the revision to append u at — of the task's stream,
// or of RelationsStream for a dependency change — or why the update is
// refused: *NotFoundError, *eventlog.StaleRevisionError (the task moved
// past the base revision or hash), *ClaimedError (a change of the status
// or the touches of a task someone else holds, without Force),
// *CycleError.
func (b *Board) CheckUpdate(u UpdateCheck) (uint64, error) {
	t, ok := b.Get(u.ID)
	if !ok {
		return 0, &NotFoundError{Field: "task_id", TaskID: u.ID}
	}
	if (u.BaseRevision != 0 && t.Revision != u.BaseRevision) || (u.ExpectedHash != "" && t.Hash != u.ExpectedHash) {
		stale := &eventlog.StaleRevisionError{Stream: StreamOf(u.ID), ExpectedHash: u.ExpectedHash, Current: t.Revision, CurrentHash: t.Hash}
		if u.BaseRevision != 0 {
			stale.Expected = eventlog.AtRevision(u.BaseRevision)
		}
		return 0, stale
	}
	// A name with a control, bidi or invisible character is taken only as
	// the holder's own (a task held under such a name from an older event
	// can still be updated and released by its holder).
	if u.Actor != "" && u.Actor != t.Assignee {
		if i, r, bad := HiddenNameRune(u.Actor); bad {
			return 0, asError([]*FieldError{{Field: "assignee", Got: clip(mustJSON(u.Actor)),
				Legal: fmt.Sprintf("1–%d characters, no control, bidi or invisible characters or surrounding spaces", MaxAssigneeLen),
				Hint:  fmt.Sprintf("character %d is U+%04X, which can make one name read as another; remove it", i+1, r)}})
		}
	}
	if p := u.Patch; t.Assignee != "" && t.Assignee != u.Actor && !u.Force &&
		((p.Status != nil && *p.Status != t.Status) || (p.Touches != nil && !slices.Equal(*p.Touches, t.Touches))) {
		return 0, &ClaimedError{TaskID: u.ID, Holder: t.Assignee, Revision: t.Revision, Hash: t.Hash}
	}
	taskRev, relRev, _ := b.Revisions(u.ID)
	if !u.Patch.ChangesRelations() {
		return taskRev, nil
	}
	var deps []string
	if u.Patch.DependsOn != nil {
		deps = *u.Patch.DependsOn
	}
	parent := ""
	if u.Patch.Parent != nil {
		parent = *u.Patch.Parent
	}
	return relRev, b.CheckRelations(u.ID, deps, parent)
}

// ReleaseOutcome is what a release of a task may do, when ReleaseCheck
// allows it.
type ReleaseOutcome int

const (
	// ReleaseHeld: the assignee holds the task; append task.released at
	// the revision of the task's own stream (Revisions).
	ReleaseHeld ReleaseOutcome = iota + 1
	// ReleaseUnclaimed: nobody holds it; answer the current state and
	// append nothing.
	ReleaseUnclaimed
)

// ReleaseCheck decides a release of task id by assignee against the
// current board. It returns the task and the outcome; a task held by
// someone else is a *ClaimedError naming the holder, an unknown task a
// *NotFoundError.
func (b *Board) ReleaseCheck(id, assignee string) (Task, ReleaseOutcome, error) {
	t, ok := b.Get(id)
	switch {
	case !ok:
		return t, 0, &NotFoundError{Field: "task_id", TaskID: id}
	case t.Assignee == "":
		return t, ReleaseUnclaimed, nil // nothing to release
	case t.Assignee != assignee:
		return t, 0, &ClaimedError{TaskID: id, Holder: t.Assignee, Revision: t.Revision, Hash: t.Hash}
	}
	return t, ReleaseHeld, nil
}
