package evidence

import (
	"fmt"
	"slices"
)

// Where a TaskRef's symbols come from.
const (
	// FromDerived: the task's derived footprint (the diff of the holder's
	// work tree), with its work tree, base, head and files.
	FromDerived = "derived"
	// FromTouches: the task's touches resolved on the graph (it had no
	// derived footprint).
	FromTouches = "touches"
)

// TaskRef points a record at code: the task it was recorded for and the
// symbols that task's work touched, as read at Seq. Seq is the log
// position of the view the reference was taken in, so every read tool
// given "at": Seq (cos_task_get, cos_graph_impact, cos_graph_changes…)
// answers the task and its code as they were when the record was made.
type TaskRef struct {
	TaskID string `json:"task_id"`
	Seq    uint64 `json:"seq"`
	// Assignee is the task's holder at Seq (empty while unclaimed).
	Assignee string `json:"assignee,omitempty"`
	// From is FromDerived or FromTouches.
	From string `json:"from"`
	// Worktree, Base and Head are the derived footprint's.
	Worktree string `json:"worktree,omitempty"`
	Base     string `json:"base,omitempty"`
	Head     string `json:"head,omitempty"`
	// Files are the derived footprint's files (none for FromTouches);
	// Symbols the uids, sorted.
	Files   []string `json:"files"`
	Symbols []string `json:"symbols"`
	// Truncated is set when Files or Symbols were cut to their limits
	// (MaxRefFiles, MaxRefSymbols).
	Truncated bool `json:"truncated,omitempty"`
}

// Limits of a reference: those of a derived footprint (the board's
// tasks.MaxDerivedFiles and tasks.MaxDerivedSymbols), which touches
// resolved on the graph may exceed.
const (
	MaxRefFiles   = 2000
	MaxRefSymbols = 2000
	// MaxRefTaskID is the longest task id a reference may hold, in bytes.
	MaxRefTaskID = 64
)

// Normalize sorts and deduplicates Files and Symbols into fresh slices
// ([] when empty) and cuts them to MaxRefFiles and MaxRefSymbols, setting
// Truncated when it cut.
func (r *TaskRef) Normalize() {
	r.Files = capped(r.Files, MaxRefFiles, &r.Truncated)
	r.Symbols = capped(r.Symbols, MaxRefSymbols, &r.Truncated)
}

// capped returns a sorted, deduplicated copy of s cut to limit, setting
// *cut when it was cut.
func capped(s []string, limit int, cut *bool) []string {
	c := slices.Compact(slices.Sorted(slices.Values(s)))
	if len(c) > limit {
		c, *cut = c[:limit], true
	}
	if c == nil {
		c = []string{}
	}
	return c
}

// check is the reducer's structural check of a reference in the record at
// seq: a task id, a position before the record, a known source, lists
// within their limits.
func (r *TaskRef) check(seq uint64) error {
	switch {
	case r.TaskID == "" || len(r.TaskID) > MaxRefTaskID:
		return fmt.Errorf("task reference: bad task id %q", r.TaskID)
	case r.Seq == 0 || r.Seq >= seq:
		return fmt.Errorf("task reference: seq %d is not before the record", r.Seq)
	case r.From != FromDerived && r.From != FromTouches:
		return fmt.Errorf("task reference: from %q", r.From)
	case len(r.Files) > MaxRefFiles || len(r.Symbols) > MaxRefSymbols:
		return fmt.Errorf("task reference: %d files and %d symbols, at most %d and %d",
			len(r.Files), len(r.Symbols), MaxRefFiles, MaxRefSymbols)
	}
	return nil
}

func (r *TaskRef) clone() *TaskRef {
	if r == nil {
		return nil
	}
	c := *r
	c.Files, c.Symbols = slices.Clone(r.Files), slices.Clone(r.Symbols)
	return &c
}
