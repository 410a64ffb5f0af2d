package tasks

import (
	"fmt"
	"slices"
)

// WouldCycle reports whether giving task id the dependency list dependsOn
// would close a cycle in the depends_on graph, and returns the shortest such
// cycle as a path of ids whose first and last elements are id:
// [TASK-001, TASK-002, TASK-001]. A self-dependency is [id, id]. An empty id
// (a task not created yet) can close no cycle: nothing depends on it.
// Unknown ids in dependsOn are skipped here (CheckRelations reports them).
func (b *Board) WouldCycle(id string, dependsOn []string) ([]string, bool) {
	if id == "" {
		return nil, false
	}
	if slices.Contains(dependsOn, id) {
		return []string{id, id}, true
	}
	// Breadth-first from the new dependencies along existing depends_on
	// edges; reaching id closes the cycle.
	prev := map[string]string{}
	var queue []string
	for _, d := range dependsOn {
		if _, seen := prev[d]; !seen {
			prev[d] = id
			queue = append(queue, d)
		}
	}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		e, ok := b.tasks[cur]
		if !ok {
			continue
		}
		for _, next := range e.Task.DependsOn {
			if next == id {
				path := []string{id}
				for n := cur; n != id; n = prev[n] {
					path = append(path, n)
				}
				// path is id, cur, …, first dep (reversed walk); flip all
				// but the head and close the loop.
				slices.Reverse(path[1:])
				return append(path, id), true
			}
			if _, seen := prev[next]; !seen {
				prev[next] = cur
				queue = append(queue, next)
			}
		}
	}
	return nil, false
}

// parentCycle reports whether making parent the parent of id closes a cycle
// in the parent chain, returning it as [id, parent, …, id].
func (b *Board) parentCycle(id, parent string) ([]string, bool) {
	if id == "" || parent == "" {
		return nil, false
	}
	path := []string{id}
	seen := map[string]bool{id: true}
	for cur := parent; cur != ""; {
		path = append(path, cur)
		if cur == id {
			return path, true
		}
		if seen[cur] {
			return nil, false // an older cycle that does not pass through id
		}
		seen[cur] = true
		e, ok := b.tasks[cur]
		if !ok {
			return nil, false
		}
		cur = e.Task.Parent
	}
	return nil, false
}

// CheckRelations is what a tool calls before appending a create (id "") or
// an update of id that sets depends_on and/or parent (pass nil / "" for the
// one not being set): every named task must exist (*NotFoundError, errors.Is
// ErrNotFound) and no cycle may close (*CycleError, errors.Is ErrCycle).
//
// Two concurrent updates can each pass this check and together close a
// cycle. The check is therefore decided inside the write: an update
// appends its dependency change to RelationsStream expecting the revision
// (Revisions) read together with this check, so of two such updates exactly
// one commits (see the package doc).
func (b *Board) CheckRelations(id string, dependsOn []string, parent string) error {
	for _, d := range dependsOn {
		if d == id {
			continue
		}
		if _, ok := b.tasks[d]; !ok {
			return &NotFoundError{Field: "depends_on", TaskID: d}
		}
	}
	if cycle, ok := b.WouldCycle(id, dependsOn); ok {
		return &CycleError{Relation: "depends_on", Cycle: cycle}
	}
	if parent != "" {
		if parent == id {
			return &CycleError{Relation: "parent", Cycle: []string{id, id}}
		}
		if _, ok := b.tasks[parent]; !ok {
			return &NotFoundError{Field: "parent", TaskID: parent}
		}
		if cycle, ok := b.parentCycle(id, parent); ok {
			return &CycleError{Relation: "parent", Cycle: cycle}
		}
	}
	return nil
}

// ClaimOutcome is what ClaimCheck decided.
type ClaimOutcome int

const (
	// ClaimFree: nobody holds the task; append task.claimed expecting the
	// revision of the task's own stream (Revisions).
	ClaimFree ClaimOutcome = iota + 1
	// ClaimHeld: the assignee already holds it; answer the current state
	// and append nothing (claiming what you hold is idempotent).
	ClaimHeld
)

// ClaimCheck decides a claim of task id by assignee against the current
// board. It returns the task (Revisions, read in the same view, gives the
// CAS base for the append) and ClaimFree or ClaimHeld; a task held by someone else is a
// *ClaimedError (errors.Is ErrClaimed) naming the holder, and an unknown
// task a *NotFoundError. See the package doc for the whole claim protocol.
func (b *Board) ClaimCheck(id, assignee string) (Task, ClaimOutcome, error) {
	if err := ValidateAssignee(assignee); err != nil {
		return Task{}, 0, err
	}
	// A new holder's name may not hold a bidi character either (the
	// reducer's ValidateAssignee stays as it was: claims already written
	// replay).
	if i, r, bad := HiddenNameRune(assignee); bad {
		return Task{}, 0, asError([]*FieldError{{Field: "assignee", Got: clip(mustJSON(assignee)),
			Legal:   fmt.Sprintf("1–%d characters, no control or bidi characters or surrounding spaces", MaxAssigneeLen),
			Hint:    fmt.Sprintf("character %d is U+%04X, which can make one name read as another; remove it", i+1, r),
			Example: `{"task_id": "TASK-001", "assignee": "agent-7"}`}})
	}
	e, ok := b.tasks[id]
	if !ok {
		return Task{}, 0, &NotFoundError{Field: "task_id", TaskID: id}
	}
	switch e.Task.Assignee {
	case "":
		return e.Task.clone(), ClaimFree, nil
	case assignee:
		return e.Task.clone(), ClaimHeld, nil
	}
	return e.Task.clone(), 0, &ClaimedError{TaskID: id, Holder: e.Task.Assignee, Revision: e.Task.Revision, Hash: e.Task.Hash}
}
