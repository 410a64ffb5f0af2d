package tasks

import (
	"fmt"
	"strings"

	"github.com/cos-dev/cos/eventlog"
)

// A task's footprint is the code it touches. It has two parts:
//
//   - touches, given by the agent on create, on update (patch.touches) or
//     on claim: uids, repo-relative paths or globs. They are resolved
//     against the graph when read, so a symbol added to a touched file
//     joins the footprint.
//   - the derived footprint: the symbols the claiming agent's work tree
//     changed (its diff against its base, mapped onto symbols as
//     cos_graph_changes maps a diff), recorded by the server running in
//     that work tree as task.footprint_derived events of the task's
//     footprint stream. Each event replaces the previous derived footprint,
//     so history and time travel show how it grew.
//
// The footprint stream is apart from the task's own stream so that a
// derived footprint, recorded without the agent asking, never moves the
// revision the agent's compare-and-set updates are checked against.
const (
	// FootprintStreamPrefix starts the footprint stream of a task:
	// "footprint:TASK-007".
	FootprintStreamPrefix = "footprint:"
	// TypeFootprintDerived replaces a task's derived footprint; data is
	// FootprintDerived. It is an event of the task's footprint stream.
	TypeFootprintDerived = "task.footprint_derived"
)

// Limits of a footprint.
const (
	// MaxTouches is how many uids, paths or globs touches may hold.
	MaxTouches = 256
	// MaxTouchLen is the longest touches entry, in bytes.
	MaxTouchLen = 1024
	// MaxDerivedSymbols is how many symbols a derived footprint records;
	// a diff that changes more records the first ones in uid order and
	// sets Truncated.
	MaxDerivedSymbols = 2000
	// MaxDerivedFiles is how many files a derived footprint records.
	MaxDerivedFiles = 2000
)

// FootprintDerived is the payload of task.footprint_derived: what the
// holder's work tree changed, as of Head over Base.
type FootprintDerived struct {
	// Assignee is the holder the work tree belongs to.
	Assignee string `json:"assignee"`
	// Worktree names the work tree: its branch, or its folder's base name
	// when detached. Never a machine path.
	Worktree string `json:"worktree"`
	// Base is the commit the diff is taken against (the merge base of the
	// work tree with the indexed tree); Head the work tree's HEAD commit.
	Base string `json:"base,omitempty"`
	Head string `json:"head,omitempty"`
	// Files are the repo-relative paths the diff changes, sorted.
	Files []string `json:"files"`
	// Symbols are the uids of the symbols the diff adds, changes or
	// removes, sorted.
	Symbols []string `json:"symbols"`
	// Truncated is set when Files or Symbols were cut to their limits.
	Truncated bool `json:"truncated,omitempty"`
}

// Footprint is a task's derived footprint as the board holds it: the last
// task.footprint_derived and, per symbol, the seq of the event that first
// recorded it (so a change under another task can say when it appeared).
type Footprint struct {
	FootprintDerived
	// Seq is the log position of the last task.footprint_derived.
	Seq uint64 `json:"seq"`
	// Since maps each symbol of Symbols to the seq of the first event of
	// the current run of events that held it.
	Since map[string]uint64 `json:"since,omitempty"`
}

// FootprintStreamOf returns the footprint stream of a task id:
// "TASK-007" → "footprint:TASK-007".
func FootprintStreamOf(id string) string { return FootprintStreamPrefix + id }

// IDOfFootprintStream returns the task id of a footprint stream, and false
// when stream is not one.
func IDOfFootprintStream(stream string) (string, bool) {
	id, ok := strings.CutPrefix(stream, FootprintStreamPrefix)
	if !ok || !ValidID(id) {
		return "", false
	}
	return id, true
}

// FootprintDerivedPayload returns the task.footprint_derived event to
// append to FootprintStreamOf(id). It checks the limits and the assignee.
func FootprintDerivedPayload(fd FootprintDerived) (eventlog.Payload, error) {
	if err := ValidateAssignee(fd.Assignee); err != nil {
		return eventlog.Payload{}, err
	}
	if len(fd.Symbols) > MaxDerivedSymbols || len(fd.Files) > MaxDerivedFiles {
		return eventlog.Payload{}, fmt.Errorf("derived footprint: %d symbols and %d files, at most %d and %d",
			len(fd.Symbols), len(fd.Files), MaxDerivedSymbols, MaxDerivedFiles)
	}
	if fd.Files == nil {
		fd.Files = []string{}
	}
	if fd.Symbols == nil {
		fd.Symbols = []string{}
	}
	return payload(TypeFootprintDerived, fd)
}
