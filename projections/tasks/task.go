package tasks

import (
	"maps"
	"slices"
	"time"
)

// Task statuses.
const (
	StatusTodo       = "todo"
	StatusInProgress = "in_progress"
	StatusBlocked    = "blocked"
	StatusReview     = "review"
	StatusDone       = "done"
	StatusCancelled  = "cancelled"
)

// Task priorities.
const (
	PriorityLow      = "low"
	PriorityMedium   = "medium"
	PriorityHigh     = "high"
	PriorityCritical = "critical"
)

// Legal statuses and priorities, and the defaults of a create.
var (
	Statuses   = []string{StatusTodo, StatusInProgress, StatusBlocked, StatusReview, StatusDone, StatusCancelled}
	Priorities = []string{PriorityLow, PriorityMedium, PriorityHigh, PriorityCritical}
)

// Defaults of a create.
const (
	DefaultPriority = PriorityMedium
	DefaultStatus   = StatusTodo
)

// Task is one item of the board as the projection holds it. Revision and
// Hash are the entity identity for CAS (docs/errors.md): the stream revision
// (events in the task's stream) and the hash of its last event.
type Task struct {
	ID          string    `json:"task_id"`
	Title       string    `json:"title"`
	Description string    `json:"description,omitempty"`
	Priority    string    `json:"priority"`
	Status      string    `json:"status"`
	Assignee    string    `json:"assignee,omitempty"`
	Labels      []string  `json:"labels"`
	Signals     *Signals  `json:"signals,omitempty"`
	DependsOn   []string  `json:"depends_on"`
	Parent      string    `json:"parent,omitempty"`
	Revision    uint64    `json:"revision"`
	Hash        string    `json:"hash"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	// CreatedSeq and Seq are the log positions of the task's first and
	// last events; the board cursor rule (List) is stated in them.
	CreatedSeq uint64 `json:"created_seq"`
	Seq        uint64 `json:"seq"`
	// Touches is the footprint the agent gave (uids, paths or globs);
	// Footprint the one derived from the holder's work tree; ClaimedSeq
	// the log position of the claim the current holder made (0 while
	// unclaimed). All three are omitted while empty, so a board without
	// footprints encodes (and hashes) as it always did.
	Touches    []string   `json:"touches,omitempty"`
	Footprint  *Footprint `json:"footprint,omitempty"`
	ClaimedSeq uint64     `json:"claimed_seq,omitempty"`
}

// clone returns a deep copy, so that readers never share slices with the
// reducer.
func (t *Task) clone() Task {
	c := *t
	c.Labels = nonNil(slices.Clone(t.Labels))
	c.DependsOn = nonNil(slices.Clone(t.DependsOn))
	if t.Signals != nil {
		s := *t.Signals
		s.Domain = slices.Clone(t.Signals.Domain)
		c.Signals = &s
	}
	c.Touches = slices.Clone(t.Touches)
	if t.Footprint != nil {
		f := *t.Footprint
		f.Files = slices.Clone(f.Files)
		f.Symbols = slices.Clone(f.Symbols)
		f.Since = maps.Clone(f.Since)
		c.Footprint = &f
	}
	return c
}
