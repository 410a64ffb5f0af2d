package tools

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections/evidence"
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
}

func evidenceTools() []*Tool {
	session := Param{Name: "session_id", Type: TString, Required: true, Description: "1–128 characters of A–Z a–z 0–9 . _ -"}
	return []*Tool{
		{
			Name:        "cos_supervise_record_output",
			Title:       "Record agent output",
			Description: "Add to a session's evidence. kind output: role and its output (planner: plan, researcher: findings, implementer: change, tester: test_report, reviewer: review); backtrack {reason}, discovery {summary}, degraded_formula {formula, reason}.",
			Data:        fieldsOf(recordAnswer{}),
			Module:      "evidence", Layer: envelope.LayerAudit, Idempotent: false,
			Example: recordExample,
			Params: []Param{
				session,
				{Name: "role", Type: TString, MaxLen: 128},
				{Name: "output", Type: TJSON, JSONTypes: []string{"object", "string"}, Required: true},
				{Name: "kind", Type: TString, Enum: evidence.Kinds, Default: evidence.KindOutput},
				requestIDParam,
			},
			Handler: recordOutputTool,
		},
		{
			Name:        "cos_evidence_bundle",
			Title:       "Evidence bundle",
			Description: "A session's evidence: role outputs, backtracks, discoveries, degraded formulas.",
			Data:        Fields{"bundle": "object", "count": "integer", "export_path": "string"},
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
	stream, p, err := c.st.Roles().Prepare(session, kind, role, c.Args.Raw("output"))
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
		return recordAnswer{SessionID: session, Kind: kind, Role: role, Seq: r.LastSeq, Replayed: r.Replayed}, tm, nil
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
		Revision: b.Revision, Hash: b.Hash, Count: b.Count(), ExportPath: path}
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
