package tools

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections/evidence"
	"github.com/cos-dev/cos/projections/tasks"
	"github.com/cos-dev/cos/query"
)

// recordExample is the corrected example of cos_supervise_record_output.
const recordExample = `{"session_id": "sess-42", "role": "planner", "output": {"summary": "split the parser", "steps": ["extract lexer", "add tests"]}}`

// recordAnswer is what cos_supervise_record_output answers: where the
// record landed and the bundle's state after it.
type recordAnswer struct {
	SessionID string `json:"session_id"`
	Kind      string `json:"kind"`
	Role      string `json:"role,omitempty"`
	// Seq is the log position of the record.
	Seq      uint64 `json:"seq"`
	Replayed bool   `json:"replayed"`
	// Revision and Hash are the bundle's (its stream's) after the record.
	Revision uint64 `json:"revision"`
	Hash     string `json:"hash"`
	// Count is the number of records in the bundle; RoleCount those in
	// this record's slot or accumulator.
	Count     int `json:"count"`
	SlotCount int `json:"slot_count"`
	// ExportPath is the bundle's JSON export (docs/storage.md,
	// agent/evidence_bundle_<session>.json); empty when the export failed
	// (meta.warnings says why).
	ExportPath string `json:"export_path"`
	// Task is the record's code reference when task_id was given.
	Task *evidence.TaskRef `json:"task,omitempty"`
}

func evidenceTools() []*Tool {
	session := Param{Name: "session_id", Type: TString, Required: true, Description: "1–128 characters of A–Z a–z 0–9 . _ -"}
	return []*Tool{
		{
			Name:        "cos_supervise_record_output",
			Title:       "Record agent output",
			Description: "Add to a session's evidence. kind output: role and its output: planner {summary, steps}, researcher {question, findings}, implementer {summary, files}, tester {passed, failed}, reviewer {verdict, findings}; backtrack {reason}, discovery {summary}, degraded_formula {formula, reason}. task_id: cites the task's code now.",
			Data:        fieldsOf(recordAnswer{}),
			Module:      "evidence", Layer: envelope.LayerAudit, Idempotent: false,
			Example: recordExample,
			Params: []Param{
				session,
				{Name: "role", Type: TString, MaxLen: 128},
				{Name: "output", Type: TJSON, JSONTypes: []string{"object", "string"}, Required: true},
				{Name: "kind", Type: TString, Enum: evidence.Kinds, Default: evidence.KindOutput},
				{Name: "task_id", Type: TString, MaxLen: 32, Minted: true},
				requestIDParam,
			},
			Handler: recordOutputTool,
		},
		{
			Name:        "cos_evidence_bundle",
			Title:       "Evidence bundle",
			Description: "A session's evidence: role outputs, backtracks, discoveries, degraded formulas.",
			Data:        Fields{"bundle": typ(evidence.Bundle{}), "count": "integer", "export_path": "string"},
			Module:      "evidence", Layer: envelope.LayerAudit, ReadOnly: true, Idempotent: true,
			Example: `{"session_id": "sess-42"}`,
			Params:  []Param{session},
			Handler: evidenceBundleTool,
		},
	}
}

func recordOutputTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	var tm envelope.ToolMeta
	rid, err := requestIDOfCall(c)
	if err != nil {
		return nil, tm, err
	}
	session, kind, role := c.Args.Str("session_id"), c.Args.StrOr("kind", evidence.KindOutput), c.Args.Str("role")
	var ref *evidence.TaskRef
	if id := c.Args.Str("task_id"); id != "" {
		if ref, err = taskRefOf(ctx, c, id, evidence.Stream(session), rid); err != nil {
			return nil, tm, err
		}
	}
	stream, p, err := c.st.Roles().PrepareFor(session, kind, role, c.Args.Raw("output"), ref)
	if err != nil {
		return nil, tm, err
	}
	recs, err := c.Append(ctx, eventlog.AppendRequest{Stream: stream, Events: []eventlog.Payload{p}, RequestID: rid})
	if err != nil {
		return nil, tm, err
	}
	r := recs[0]
	var (
		b    evidence.Bundle
		gerr error
	)
	if err := c.ReadBack(ctx, r.LastSeq, func() { b, gerr = c.V.Bundles.Get(session) }); err != nil || gerr != nil {
		// Committed: the receipt, with a warning, never an error.
		tm.Warnings = append(tm.Warnings, committedReadBackWarning(r.LastSeq, errors.Join(err, gerr)))
		return recordAnswer{SessionID: session, Kind: kind, Role: role, Seq: r.LastSeq, Replayed: r.Replayed, Task: ref}, tm, nil
	}
	b = b.WithSlots(c.st.Roles().RoleIDs())
	// The record is committed: a failed export is a warning, never an
	// error, or a resend without request_id would record it twice.
	path, err := evidence.Export(ctx, evidence.ExportDir(c.st.Dir(), os.Getenv), b)
	if err != nil {
		c.st.Logger().Warn("evidence bundle export failed after the record committed", "session", session, "seq", r.LastSeq, "err", err)
		tm.Warnings = append(tm.Warnings, fmt.Sprintf("the record is committed at seq %d, but the bundle export failed: %v", r.LastSeq, err))
		path = ""
	}
	ans := recordAnswer{SessionID: session, Kind: kind, Role: role, Seq: r.LastSeq, Replayed: r.Replayed,
		Revision: b.Revision, Hash: b.Hash, Count: b.Count(), ExportPath: path, Task: ref}
	switch kind {
	case evidence.KindOutput:
		ans.SlotCount = len(b.Roles[role])
	case evidence.KindBacktrack:
		ans.SlotCount = len(b.Backtracks)
	case evidence.KindDiscovery:
		ans.SlotCount = len(b.Discoveries)
	case evidence.KindDegradedFormula:
		ans.SlotCount = len(b.DegradedFormulas)
	}
	return ans, tm, nil
}

// taskRefOf reads task id's code reference in a fresh view: the task must
// be on the board, and the reference's seq is the view's position. A
// resend of a request id that committed a record with a reference to the
// same task answers that record's reference, so that the resend carries
// the same intent and replays.
func taskRefOf(ctx context.Context, c *Call, id, stream, rid string) (*evidence.TaskRef, error) {
	if err := tasks.ValidateTaskID("task_id", id); err != nil {
		return nil, err
	}
	var seen *evidence.TaskRef
	if rid != "" {
		rec, ok, err := c.st.LookupReceipt(ctx, rid)
		if err != nil {
			return nil, err
		}
		if ok && rec.Stream == stream {
			if err := c.ReadBack(ctx, rec.LastSeq, func() { seen = recordedRef(c.V.Bundles, stream, rec.LastSeq) }); err != nil {
				return nil, err
			}
			if seen != nil && seen.TaskID == id {
				return seen, nil
			}
		}
	}
	var (
		ref   evidence.TaskRef
		found bool
	)
	if err := freshView(ctx, c, func() {
		var t tasks.Task
		if t, found = c.V.Board.Get(id); !found {
			return
		}
		var touched []string
		if t.Footprint == nil {
			touched = query.FootprintSymbols(c.V.Graph, t)
		}
		ref = taskRefFrom(t, c.V.Pos.Seq, touched)
	}); err != nil {
		return nil, err
	}
	if !found {
		return nil, &tasks.NotFoundError{Field: "task_id", TaskID: id}
	}
	return &ref, nil
}

// taskRefFrom takes the reference of task t read at seq: its derived
// footprint when it has one, else touched, the task's touches resolved on
// the graph (query.FootprintSymbols).
func taskRefFrom(t tasks.Task, seq uint64, touched []string) evidence.TaskRef {
	r := evidence.TaskRef{TaskID: t.ID, Seq: seq, Assignee: t.Assignee, From: evidence.FromTouches, Symbols: touched}
	if fp := t.Footprint; fp != nil {
		r.From, r.Worktree, r.Base, r.Head, r.Truncated = evidence.FromDerived, fp.Worktree, fp.Base, fp.Head, fp.Truncated
		r.Files, r.Symbols = fp.Files, fp.Symbols
	}
	r.Normalize()
	return r
}

// recordedRef returns the reference of the record at seq in the bundle of
// stream, nil when there is none.
func recordedRef(bs *evidence.Bundles, stream string, seq uint64) *evidence.TaskRef {
	session, ok := evidence.SessionOfStream(stream)
	if !ok {
		return nil
	}
	b, err := bs.Get(session)
	if err != nil {
		return nil
	}
	return b.TaskAt(seq)
}

func evidenceBundleTool(_ context.Context, c *Call) (any, envelope.ToolMeta, error) {
	session := c.Args.Str("session_id")
	if err := evidence.ValidateSession(session); err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	b, err := c.V.Bundles.Get(session)
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	b = b.WithSlots(c.st.Roles().RoleIDs())
	return map[string]any{"bundle": b, "count": b.Count(),
		"export_path": evidence.ExportPath(evidence.ExportDir(c.st.Dir(), os.Getenv), session)}, envelope.ToolMeta{}, nil
}
