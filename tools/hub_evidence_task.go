package tools

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/internal/pagecursor"
	"github.com/cos-dev/cos/projections/evidence"
	"github.com/cos-dev/cos/projections/tasks"
)

// Bounds of cos_evidence_task pages, in records.
const (
	taskEvidenceLimitDefault = 50
	taskEvidenceLimitMax     = 500
)

// taskEvidenceRow is one evidence record made for a task (a record whose
// task reference names it): where it sits and what it says.
type taskEvidenceRow struct {
	SessionID string `json:"session_id"`
	// Slot is the record's place in its bundle: a role ("planner"…) or
	// "backtracks", "discoveries", "degraded_formulas".
	Slot   string           `json:"slot"`
	Seq    uint64           `json:"seq"`
	Time   time.Time        `json:"time"`
	Output json.RawMessage  `json:"output"`
	Task   evidence.TaskRef `json:"task"`
}

// taskEvidenceAnswer is what cos_evidence_task answers.
type taskEvidenceAnswer struct {
	TaskID  string            `json:"task_id"`
	Records []taskEvidenceRow `json:"records"`
	// Total is the number of records naming the task in the state read.
	Total int `json:"total"`
	// Sessions is the number of sessions those records are in.
	Sessions   int    `json:"sessions"`
	NextCursor string `json:"next_cursor"`
}

// evidenceTaskTool is the Hub's list of the evidence a task has: every
// record, in every session, made for it (cos_supervise_record_output with
// its task_id).
func evidenceTaskTool() *Tool {
	return &Tool{
		Name:        "cos_evidence_task",
		Title:       "Evidence of a task",
		Description: "The evidence records made for a task, in every session, newest first. Paged.",
		Data:        fieldsOf(taskEvidenceAnswer{}),
		Module:      "evidence", Layer: envelope.LayerAudit, ReadOnly: true, Idempotent: true, HubOnly: true,
		Example: `{"task_id": "TASK-001"}`,
		Params: []Param{
			{Name: "task_id", Type: TString, Required: true, MaxLen: 32, Minted: true},
			{Name: "cursor", Type: TString, MaxLen: pagecursor.MaxLen, Minted: true},
			{Name: "limit", Type: TInt, Min: f64(1), Max: f64(taskEvidenceLimitMax), Default: taskEvidenceLimitDefault},
		},
		Handler: evidenceOfTaskTool,
	}
}

// evidenceOfTaskTool answers cos_evidence_task: the records whose task
// reference names task_id, newest (highest seq) first. The task must be
// on the board read (E_NOT_FOUND otherwise). A cursor holds the seq the
// last page ended at.
func evidenceOfTaskTool(_ context.Context, c *Call) (any, envelope.ToolMeta, error) {
	var tm envelope.ToolMeta
	id, err := taskIDArg(c)
	if err != nil {
		return nil, tm, err
	}
	if _, ok := c.V.Board.Get(id); !ok {
		return nil, tm, &tasks.NotFoundError{Field: "task_id", TaskID: id}
	}
	limit := c.Args.Int("limit", taskEvidenceLimitDefault)
	query := pagecursor.Digest("cos_evidence_task", id)
	after, err := cursorAfter(c, query) // 0: from the newest
	if err != nil {
		return nil, tm, err
	}
	var rows []taskEvidenceRow
	sessions := 0
	for _, sid := range c.V.Bundles.Sessions() {
		b, err := c.V.Bundles.Get(sid)
		if err != nil {
			return nil, tm, err
		}
		if _, ok := b.Tasks[id]; !ok {
			continue // no record of this session names the task
		}
		sessions++
		add := func(slot string, es []evidence.Entry) {
			for _, e := range es {
				if e.Task != nil && e.Task.TaskID == id {
					rows = append(rows, taskEvidenceRow{SessionID: sid, Slot: slot, Seq: e.Seq, Time: e.Time, Output: e.Output, Task: *e.Task})
				}
			}
		}
		for role, es := range b.Roles {
			add(role, es)
		}
		add("backtracks", b.Backtracks)
		add("discoveries", b.Discoveries)
		add("degraded_formulas", b.DegradedFormulas)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Seq > rows[j].Seq })
	from := 0
	if after > 0 {
		from = sort.Search(len(rows), func(i int) bool { return rows[i].Seq < after })
	}
	page := rows[from:]
	next := ""
	if len(page) > limit {
		page = page[:limit]
		next = pagecursor.Cursor{Seq: c.V.Pos.Seq, Query: query, After: page[limit-1].Seq}.Encode()
	}
	if page == nil {
		page = []taskEvidenceRow{}
	}
	return taskEvidenceAnswer{TaskID: id, Records: page, Total: len(rows), Sessions: sessions, NextCursor: next}, tm, nil
}
