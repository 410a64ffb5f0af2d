package tasks

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/cos-dev/cos/eventlog"
)

// Streams. Each task is its own stream "task:TASK-NNN". A create is appended
// with AppendRequest{StreamPrefix: StreamPrefix, Expect: eventlog.NoStream()}
// and the log allocates the id inside the write transaction.
const (
	StreamPrefix = "task:TASK-"
	// IDPrefix is what every task id starts with.
	IDPrefix = "TASK-"
	// RelationsStream is the board's one shared stream of dependency
	// changes: every update that sets depends_on or parent is appended here
	// (as TypeRelationsUpdated), with the stream revision read together
	// with the cycle check as its expected revision, so that of two updates
	// that would together close a cycle exactly one commits.
	RelationsStream = "board:relations"
)

// Event types of a task stream.
const (
	// TypeCreated is the first event of a task stream; data is Created.
	TypeCreated = "task.created"
	// TypeUpdated applies a Patch; data is Updated.
	TypeUpdated = "task.updated"
	// TypeClaimed sets the assignee; data is Claimed.
	TypeClaimed = "task.claimed"
	// TypeReleased clears the assignee; data is Released.
	TypeReleased = "task.released"
	// TypeRelationsUpdated applies a Patch that sets depends_on or parent
	// (and any other fields of the same update) to one task; it is an
	// event of RelationsStream, data RelationsUpdated.
	TypeRelationsUpdated = "task.relations_updated"
)

// Created is the payload of task.created. The id is not in the payload: it
// is the stream name the log allocated.
type Created struct {
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	Priority    string   `json:"priority"`
	Status      string   `json:"status"`
	Labels      []string `json:"labels,omitempty"`
	Signals     *Signals `json:"signals,omitempty"`
	DependsOn   []string `json:"depends_on,omitempty"`
	Parent      string   `json:"parent,omitempty"`
	Touches     []string `json:"touches,omitempty"`
}

// Updated is the payload of task.updated.
type Updated struct {
	Patch Patch `json:"patch"`
}

// RelationsUpdated is the payload of task.relations_updated: the task it
// changes and the patch, which sets depends_on or parent.
type RelationsUpdated struct {
	TaskID string `json:"task_id"`
	Patch  Patch  `json:"patch"`
}

// Claimed is the payload of task.claimed.
type Claimed struct {
	Assignee string `json:"assignee"`
	// Touches, when not nil, replaces the task's given footprint.
	Touches []string `json:"touches,omitempty"`
}

// Released is the payload of task.released; Assignee is the holder that
// released the task.
type Released struct {
	Assignee string `json:"assignee"`
}

// Patch is a partial update: a nil field is left alone. An empty Parent
// clears the parent; ClearSignals removes the signals; empty Labels or
// DependsOn lists clear them. The assignee is not patchable: it changes
// through task.claimed and task.released only.
type Patch struct {
	Title        *string   `json:"title,omitempty"`
	Description  *string   `json:"description,omitempty"`
	Priority     *string   `json:"priority,omitempty"`
	Status       *string   `json:"status,omitempty"`
	Labels       *[]string `json:"labels,omitempty"`
	Signals      *Signals  `json:"signals,omitempty"`
	ClearSignals bool      `json:"clear_signals,omitempty"`
	DependsOn    *[]string `json:"depends_on,omitempty"`
	Parent       *string   `json:"parent,omitempty"`
	// Touches replaces the given footprint; an empty list clears it.
	Touches *[]string `json:"touches,omitempty"`
}

// isEmpty reports whether the patch changes nothing.
func (p Patch) isEmpty() bool {
	return p.Title == nil && p.Description == nil && p.Priority == nil && p.Status == nil &&
		p.Labels == nil && p.Signals == nil && !p.ClearSignals && p.DependsOn == nil && p.Parent == nil &&
		p.Touches == nil
}

// ChangesRelations reports whether the patch sets depends_on or parent:
// such a patch is appended to RelationsStream (RelationsUpdatedPayload).
func (p Patch) ChangesRelations() bool { return p.DependsOn != nil || p.Parent != nil }

// CreatedPayload returns the task.created event to append (with
// StreamPrefix and eventlog.NoStream()).
func CreatedPayload(c Created) (eventlog.Payload, error) { return payload(TypeCreated, c) }

// UpdatedPayload returns the task.updated event of a patch.
func UpdatedPayload(p Patch) (eventlog.Payload, error) {
	return payload(TypeUpdated, Updated{Patch: p})
}

// RelationsUpdatedPayload returns the task.relations_updated event of a
// patch of task id, to append to RelationsStream.
func RelationsUpdatedPayload(id string, p Patch) (eventlog.Payload, error) {
	return payload(TypeRelationsUpdated, RelationsUpdated{TaskID: id, Patch: p})
}

// ClaimedPayload returns the task.claimed event of assignee.
func ClaimedPayload(assignee string) (eventlog.Payload, error) {
	return payload(TypeClaimed, Claimed{Assignee: assignee})
}

// ReleasedPayload returns the task.released event of the holder assignee.
func ReleasedPayload(assignee string) (eventlog.Payload, error) {
	return payload(TypeReleased, Released{Assignee: assignee})
}

func payload(typ string, v any) (eventlog.Payload, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return eventlog.Payload{}, fmt.Errorf("encode %s: %w", typ, err)
	}
	return eventlog.Payload{Type: typ, Data: data}, nil
}

// StreamOf returns the stream of a task id: "TASK-007" → "task:TASK-007".
func StreamOf(id string) string { return "task:" + id }

// IDOfStream returns the task id of a task stream, and false when stream is
// not one.
func IDOfStream(stream string) (string, bool) {
	id, ok := strings.CutPrefix(stream, "task:")
	if !ok || !ValidID(id) {
		return "", false
	}
	return id, true
}

// ValidID reports whether id is "TASK-" followed by at least three digits.
func ValidID(id string) bool {
	_, ok := idNumber(id)
	return ok
}

// idNumber returns the number of a task id; it orders the board.
func idNumber(id string) (uint64, bool) {
	digits, ok := strings.CutPrefix(id, IDPrefix)
	if !ok || len(digits) < 3 || len(digits) > 19 {
		return 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

func decode(data json.RawMessage, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decode payload: %w", err)
	}
	return nil
}
