package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections/tasks"
	"github.com/cos-dev/cos/query"
)

// claimAttempts bounds how often cos_task_claim rereads the task after its
// append lost a revision race (package tasks "Claims", step 4). A loser
// normally needs one reread to see the winner; other writes to the task can
// move the revision again.
const claimAttempts = 5

// updateAttempts bounds how often cos_task_update rereads and checks again
// after its append lost a revision race: to another writer of the task, or,
// for a dependency change, to any other dependency change on the board
// (they all share tasks.RelationsStream).
const updateAttempts = 32

// boardFitShare is the share of the envelope budget a board page's rows may
// fill; the page is shortened (never trimmed by the envelope, which would
// make the next cursor skip the cut rows) until they fit.
const boardFitShare = 0.75

// taskAnswer is what every task write answers: the task read back after the
// write, and whether the write was a replay of an earlier request_id.
type taskAnswer struct {
	Task tasks.Task `json:"task"`
	// Seq is the log position of the write (0 when nothing was appended:
	// an idempotent claim).
	Seq      uint64 `json:"seq"`
	Replayed bool   `json:"replayed"`
	// Overlaps are the other active tasks whose code meets this one's, in
	// the same view as Task ([] when none).
	Overlaps []query.Overlap `json:"overlaps"`
	// OverlapCount counts the overlaps when there are any; Overlaps lists
	// the closest of them.
	OverlapCount int `json:"overlap_count,omitempty"`
}

// boardRow is one task of a board page: everything but the description
// and the signals, which cos_task_get returns.
type boardRow struct {
	ID        string   `json:"task_id"`
	Title     string   `json:"title"`
	Priority  string   `json:"priority"`
	Status    string   `json:"status"`
	Assignee  string   `json:"assignee,omitempty"`
	Labels    []string `json:"labels"`
	DependsOn []string `json:"depends_on"`
	Parent    string   `json:"parent,omitempty"`
	Revision  uint64   `json:"revision"`
	Hash      string   `json:"hash"`
	// Overlaps are the ids of the active tasks this one overlaps; Changes
	// counts the changes under it (cos_task_get lists them).
	Overlaps []string `json:"overlaps,omitempty"`
	Changes  int      `json:"changes,omitempty"`
}

func rowOf(t tasks.Task) boardRow {
	return boardRow{ID: t.ID, Title: t.Title, Priority: t.Priority, Status: t.Status, Assignee: t.Assignee,
		Labels: t.Labels, DependsOn: t.DependsOn, Parent: t.Parent, Revision: t.Revision, Hash: t.Hash}
}

func taskTools() []*Tool {
	taskID := Param{Name: "task_id", Type: TString, Required: true, MaxLen: 32, Minted: true}
	return []*Tool{
		{
			Name:        "cos_task_create",
			Title:       "Create a task",
			Description: "Create a task (TASK-NNN); depends_on and parent must exist, no cycles.",
			Data:        taskWriteData(),
			Module:      "tasks", Layer: envelope.LayerTasks, Idempotent: false,
			Example: tasks.CreateExample,
			Params: []Param{
				{Name: "title", Type: TString, Required: true, Description: "1–200 characters"},
				{Name: "description", Type: TString},
				{Name: "priority", Type: TString, Enum: tasks.Priorities, Default: tasks.DefaultPriority},
				{Name: "status", Type: TString, Enum: tasks.Statuses, Default: tasks.DefaultStatus},
				{Name: "labels", Type: TStringList},
				{Name: "signals", Type: TJSON, JSONTypes: []string{"object", "string"}, Description: "as cos_analyze_task takes them"},
				{Name: "depends_on", Type: TStringList},
				{Name: "parent", Type: TString},
				touchesParam,
				requestIDParam,
			},
			Handler: taskCreateTool,
		},
		{
			Name:        "cos_task_get",
			Title:       "Get a task",
			Description: "A task with its revision, hash and coordination.",
			Data:        Fields{"task": typ(tasks.Task{}), "coordination": typ(coordAnswer{})},
			Module:      "tasks", Layer: envelope.LayerTasks, ReadOnly: true, Idempotent: true,
			Example: `{"task_id": "TASK-001"}`,
			Params:  []Param{taskID},
			Handler: taskGetTool,
		},
		{
			Name:        "cos_task_update",
			Title:       "Update a task",
			Description: "Patch a task; base_revision makes it a compare-and-set (STALE_REVISION).",
			Data:        taskWriteData(),
			Module:      "tasks", Layer: envelope.LayerTasks, Idempotent: false,
			Example: `{"task_id": "TASK-001", "patch": ` + tasks.PatchExample + `, "base_revision": 3, "request_id": "upd-42"}`,
			Params: []Param{
				taskID,
				{Name: "patch", Type: TObject, Required: true, Description: tasks.PatchExample},
				{Name: "base_revision", Type: TInt, Min: f64(1)},
				{Name: "expected_hash", Type: TString, MaxLen: 64, Minted: true},
				{Name: "assignee", Type: TString, MaxLen: tasks.MaxAssigneeLen, Description: "your claim name"},
				{Name: "force", Type: TBool, Description: "override a claim"},
				requestIDParam,
			},
			Handler: withClaimedCode(taskUpdateTool),
		},
		{
			Name:        "cos_task_claim",
			Title:       "Claim a task",
			Description: "Claim a task; of concurrent claims one wins, the rest get a conflict.",
			Data:        taskWriteData(),
			Module:      "tasks", Layer: envelope.LayerTasks, Idempotent: true,
			Example: `{"task_id": "TASK-001", "assignee": "agent-7"}`,
			Params: []Param{
				taskID,
				{Name: "assignee", Type: TString, Required: true, Description: "1–128 characters"},
				touchesParam,
				requestIDParam,
			},
			Handler: withClaimedCode(taskClaimTool),
		},
		{
			Name:        "cos_task_release",
			Title:       "Release a task",
			Description: "Give a claimed task back; only its holder can.",
			Data:        taskWriteData(),
			Module:      "tasks", Layer: envelope.LayerTasks, Idempotent: true,
			Example: `{"task_id": "TASK-001", "assignee": "agent-7"}`,
			Params: []Param{
				taskID,
				{Name: "assignee", Type: TString, Required: true},
				requestIDParam,
			},
			Handler: withClaimedCode(taskReleaseTool),
		},
		{
			Name:        "cos_task_board",
			Title:       "Task board",
			Description: "Tasks in id order, filtered. Paged.",
			Data:        Fields{"rows": typ([]boardRow{}), "total": "integer", "limit": "integer", "next_cursor": "string", "walk_log_seq": "integer"},
			Module:      "tasks", Layer: envelope.LayerTasks, ReadOnly: true, Idempotent: true,
			Example: `{"status": ["todo", "review"], "query": "login", "limit": 50}`,
			Params: []Param{
				{Name: "status", Type: TStringList, Enum: tasks.Statuses, OrOne: true},
				{Name: "assignee", Type: TString},
				{Name: "label", Type: TString, Description: "x* for a prefix"},
				{Name: "query", Type: TString, NonEmpty: true, Description: "words in id/title/description"},
				{Name: "overlapping", Type: TBool},
				{Name: "cursor", Type: TString, MaxLen: 1024, Minted: true},
				{Name: "limit", Type: TInt, Min: f64(tasks.MinLimit), Max: f64(tasks.MaxLimit), Default: tasks.DefaultLimit},
			},
			Handler: taskBoardTool,
		},
	}
}

// createFields rebuilds the task-field object ParseCreate takes from the
// validated arguments (request_id is the tool's, not the task's).
func createFields(c *Call) (json.RawMessage, error) {
	obj := map[string]any{}
	for _, name := range []string{"title", "description", "priority", "status", "parent"} {
		if c.Args.Has(name) {
			obj[name] = c.Args.Str(name)
		}
	}
	for _, name := range []string{"labels", "depends_on", "touches"} {
		if c.Args.Has(name) {
			obj[name] = c.Args.Strings(name)
		}
	}
	if c.Args.Has("signals") {
		obj["signals"] = c.Args.Raw("signals")
	}
	return json.Marshal(obj)
}

func taskCreateTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	var tm envelope.ToolMeta
	rid, err := requestIDOfCall(c)
	if err != nil {
		return nil, tm, err
	}
	raw, err := createFields(c)
	if err != nil {
		return nil, tm, err
	}
	cr, err := tasks.ParseCreate(raw)
	if err != nil {
		return nil, tm, err
	}
	var checkErr error
	if err := freshView(ctx, c, func() { checkErr = c.V.Board.CheckRelations("", cr.DependsOn, cr.Parent) }); err != nil {
		return nil, tm, err
	}
	if checkErr != nil {
		return nil, tm, checkErr
	}
	p, err := tasks.CreatedPayload(cr)
	if err != nil {
		return nil, tm, err
	}
	recs, err := c.Append(ctx, eventlog.AppendRequest{StreamPrefix: tasks.StreamPrefix, Expect: eventlog.NoStream(),
		Events: []eventlog.Payload{p}, RequestID: rid})
	if err != nil {
		return nil, tm, err
	}
	id, ok := tasks.IDOfStream(recs[0].Stream)
	if !ok {
		return nil, tm, fmt.Errorf("task create: the log allocated %q, not a task stream", recs[0].Stream)
	}
	return readBackTask(ctx, c, id, recs[0])
}

// readBackTask answers a task write with the task as the projections hold
// it once they include the receipt.
func readBackTask(ctx context.Context, c *Call, id string, r eventlog.Receipt) (any, envelope.ToolMeta, error) {
	var (
		t        tasks.Task
		ok       bool
		overlaps []query.Overlap
		count    int
	)
	if err := c.ReadBack(ctx, r.LastSeq, func() {
		if t, ok = c.V.Board.Get(id); ok {
			overlaps, count = overlapsOf(ctx, c, id)
		}
	}); err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	if !ok {
		return nil, envelope.ToolMeta{}, fmt.Errorf("task %s: committed at seq %d but not on the board", id, r.LastSeq)
	}
	return taskAnswer{Task: t, Seq: r.LastSeq, Replayed: r.Replayed, Overlaps: overlaps, OverlapCount: count}, envelope.ToolMeta{}, nil
}

// taskIDArg validates the task_id argument.
func taskIDArg(c *Call) (string, error) {
	id := c.Args.Str("task_id")
	return id, tasks.ValidateTaskID("task_id", id)
}

func taskGetTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	id, err := taskIDArg(c)
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	t, ok := c.V.Board.Get(id)
	if !ok {
		return nil, envelope.ToolMeta{}, &tasks.NotFoundError{Field: "task_id", TaskID: id}
	}
	return map[string]any{"task": t, "coordination": coordinationOf(ctx, c, t)}, envelope.ToolMeta{}, nil
}

// taskUpdateTool checks the patch against a fresh view — the task exists,
// base_revision and expected_hash match it, a claimed task's status is
// changed by its holder or with force, a dependency change closes no cycle
// — and appends it at the revision read with those checks: the task's own
// stream for most patches, tasks.RelationsStream for a patch that sets
// depends_on or parent. The log's revision check then decides every race
// inside the write: a lost one rereads and checks again (at most
// updateAttempts times), so a claim or a dependency change committed in
// between is seen.
func taskUpdateTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	var tm envelope.ToolMeta
	id, err := taskIDArg(c)
	if err != nil {
		return nil, tm, err
	}
	rid, err := requestIDOfCall(c)
	if err != nil {
		return nil, tm, err
	}
	patch, err := tasks.ParsePatch(c.Args.Raw("patch"))
	if err != nil {
		return nil, tm, err
	}
	u := tasks.UpdateCheck{ID: id, Patch: patch, Actor: c.Args.Str("assignee"), Force: c.Args.Bool("force", false),
		ExpectedHash: c.Args.Str("expected_hash")}
	if c.Args.Has("assignee") {
		if err := tasks.ValidateAssignee(u.Actor); err != nil {
			return nil, tm, err
		}
	}
	if u.ExpectedHash != "" && !isHexHash(u.ExpectedHash) {
		return nil, tm, &eventlog.InvalidEventError{Field: "expected_hash", Reason: fmt.Sprintf("%q is not 64 lowercase hex digits", u.ExpectedHash)}
	}
	if c.Args.Has("base_revision") {
		u.BaseRevision = uint64(c.Args.Int("base_revision", 0))
	}
	req := eventlog.AppendRequest{Stream: tasks.StreamOf(id), RequestID: rid}
	var p eventlog.Payload
	if patch.ChangesRelations() {
		req.Stream = tasks.RelationsStream
		p, err = tasks.RelationsUpdatedPayload(id, patch)
	} else {
		p, err = tasks.UpdatedPayload(patch)
	}
	if err != nil {
		return nil, tm, err
	}
	req.Events = []eventlog.Payload{p}
	if recs, ok, err := resendByReceipt(ctx, c, req); err != nil || ok {
		if err != nil {
			return nil, tm, err
		}
		return readBackTask(ctx, c, id, recs[0])
	}
	var lastStale error
	for attempt := range updateAttempts {
		var (
			expect   uint64
			checkErr error
		)
		if err := freshView(ctx, c, func() { expect, checkErr = c.V.Board.CheckUpdate(u) }); err != nil {
			return nil, tm, err
		}
		var cycle *tasks.CycleError
		if attempt > 0 && errors.As(checkErr, &cycle) {
			return nil, tm, cycleConflict(id, cycle)
		}
		if checkErr != nil {
			return nil, tm, checkErr
		}
		req.Expect = eventlog.AtRevision(expect)
		recs, err := c.Append(ctx, req)
		switch {
		case errors.Is(err, eventlog.ErrStaleRevision):
			lastStale = err
			continue
		case errors.Is(err, eventlog.ErrRequestReuse):
			// The same request id may have committed in between, read at
			// another revision: answer its receipt when the intent is ours.
			if recs, ok, rerr := resendByReceipt(ctx, c, req); rerr == nil && ok {
				return readBackTask(ctx, c, id, recs[0])
			}
			return nil, tm, err
		case err != nil:
			return nil, tm, err
		}
		return readBackTask(ctx, c, id, recs[0])
	}
	return nil, tm, lastStale
}

// resendByReceipt answers a resend of a request id that already committed:
// it appends req again at the revision the receipt says it was appended
// at, so that the log answers the original receipt for the same intent (or
// E_REQUEST_REUSE for another). ok is false when the id has no receipt.
func resendByReceipt(ctx context.Context, c *Call, req eventlog.AppendRequest) ([]eventlog.Receipt, bool, error) {
	if req.RequestID == "" {
		return nil, false, nil
	}
	rec, ok, err := c.st.LookupReceipt(ctx, req.RequestID)
	if err != nil || !ok {
		return nil, false, err
	}
	req.Expect = eventlog.AtRevision(rec.Revision - min(rec.Revision, uint64(len(req.Events))))
	recs, err := c.Append(ctx, req)
	return recs, err == nil, err
}

// cycleConflict is the answer of a dependency change that passed its cycle
// check, lost the race to another dependency change, and would now close a
// cycle with it: a conflict (not a mistake in the request) naming the cycle.
func cycleConflict(id string, e *tasks.CycleError) error {
	example := cycleExample(e)
	return envelope.Wrap(e, envelope.CodeStaleRevision,
		"%s of %s: another update changed the dependencies first, and together with it this change would close "+
			"the cycle %s; reread the tasks and leave out one of these links",
		e.Relation, id, strings.Join(e.Cycle, " → ")).
		WithDetails(map[string]any{"field": e.Relation, "task_id": id, "cycle": e.Cycle, "stream": tasks.RelationsStream,
			"example": json.RawMessage(example)})
}

// isHexHash reports whether h is 64 lowercase hex digits (an event hash).
func isHexHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for _, r := range h {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

// withClaimedCode answers a *tasks.ClaimedError of a task tool — a claim,
// release or status change of a task someone else holds — with E_CLAIMED
// naming the holder.
func withClaimedCode(h Handler) Handler {
	return func(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
		data, tm, err := h(ctx, c)
		var ce *tasks.ClaimedError
		if errors.As(err, &ce) {
			err = envelope.Wrap(err, envelope.CodeClaimed,
				"%s is claimed by %q; only the holder may claim it, release it or change its status or touches (ask them to "+
					"release it or pick another task; an update may override the claim with \"force\": true)",
				ce.TaskID, ce.Holder).
				WithDetails(map[string]any{"task_id": ce.TaskID, "holder": ce.Holder,
					"current_revision": ce.Revision, "current_hash": ce.Hash})
		}
		return data, tm, err
	}
}

// holderArgs validates the task_id, assignee and request_id of a claim or a
// release.
func holderArgs(c *Call) (id, assignee, rid string, err error) {
	if id, err = taskIDArg(c); err != nil {
		return "", "", "", err
	}
	assignee = c.Args.Str("assignee")
	if err = tasks.ValidateAssignee(assignee); err != nil {
		return "", "", "", err
	}
	rid, err = requestIDOfCall(c)
	return id, assignee, rid, err
}

// taskClaimTool follows the claim protocol of package tasks: read the
// holder, append task.claimed at the revision read, and on a lost race
// reread (the winner is then visible and the loser answers conflict naming
// it).
func taskClaimTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	var tm envelope.ToolMeta
	id, assignee, rid, err := holderArgs(c)
	if err != nil {
		return nil, tm, err
	}
	touches, err := touchesArg(c)
	if err != nil {
		return nil, tm, err
	}
	if touches != nil && len(touches) == 0 {
		// A claim names the code it will touch or leaves it as it is; it
		// never clears it.
		return nil, tm, argError(c.Tool, "touches", "an empty list",
			`at least one uid, path or glob, or no touches to keep the task's (cos_task_update with patch.touches [] clears them)`)
	}
	claim, err := claimedPayload(assignee, touches)
	if err != nil {
		return nil, tm, err
	}
	retouch, err := tasks.UpdatedPayload(tasks.Patch{Touches: &touches})
	if err != nil {
		return nil, tm, err
	}
	var p eventlog.Payload
	return appendAtRevisionRead(ctx, c, id, rid, &p, func() (tasks.Task, bool, error) {
		t, outcome, err := c.V.Board.ClaimCheck(id, assignee)
		p = claim
		if outcome != tasks.ClaimHeld {
			return t, false, err
		}
		// The holder claiming again with other touches records them, as an
		// update: the claim (and the changes counted since) stays.
		p = retouch
		return t, touches == nil || slices.Equal(touches, t.Touches), err
	})
}

// taskReleaseTool appends task.released for the holder at the revision it
// read, rereading after a lost race like taskClaimTool.
func taskReleaseTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	var tm envelope.ToolMeta
	id, assignee, rid, err := holderArgs(c)
	if err != nil {
		return nil, tm, err
	}
	p, err := tasks.ReleasedPayload(assignee)
	if err != nil {
		return nil, tm, err
	}
	return appendAtRevisionRead(ctx, c, id, rid, &p, func() (tasks.Task, bool, error) {
		t, outcome, err := c.V.Board.ReleaseCheck(id, assignee)
		return t, outcome == tasks.ReleaseUnclaimed, err
	})
}

// appendAtRevisionRead is the claim protocol of package tasks, shared by
// claim and release: read the task through check in a fresh view; unless
// check says there is nothing to write, append *p (which check may set)
// at the revision read; a
// lost race (STALE_REVISION) rereads, at most claimAttempts times, so the
// loser answers from the winner's state.
func appendAtRevisionRead(ctx context.Context, c *Call, id, rid string, p *eventlog.Payload,
	check func() (t tasks.Task, noop bool, err error)) (any, envelope.ToolMeta, error) {
	var lastStale error
	for range claimAttempts {
		var (
			t       tasks.Task
			noop    bool
			err     error
			taskRev uint64
			// overlaps are the answer of a noop, read with it.
			overlaps     []query.Overlap
			overlapCount int
		)
		if verr := freshView(ctx, c, func() {
			t, noop, err = check()
			// The task's own stream revision: t.Revision also counts its
			// dependency changes, which live in tasks.RelationsStream.
			taskRev, _, _ = c.V.Board.Revisions(id)
			if noop && err == nil {
				overlaps, overlapCount = overlapsOf(ctx, c, id)
			}
		}); verr != nil {
			return nil, envelope.ToolMeta{}, verr
		}
		if err != nil {
			return nil, envelope.ToolMeta{}, err
		}
		if noop {
			return taskAnswer{Task: t, Overlaps: overlaps, OverlapCount: overlapCount}, envelope.ToolMeta{}, nil
		}
		recs, err := c.Append(ctx, eventlog.AppendRequest{Stream: tasks.StreamOf(id), Events: []eventlog.Payload{*p},
			RequestID: rid, Expect: eventlog.AtRevision(taskRev)})
		if errors.Is(err, eventlog.ErrStaleRevision) {
			lastStale = err
			continue
		}
		if err != nil {
			return nil, envelope.ToolMeta{}, err
		}
		return readBackTask(ctx, c, id, recs[0])
	}
	return nil, envelope.ToolMeta{}, lastStale
}

func taskBoardTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	var tm envelope.ToolMeta
	f := tasks.Filter{Statuses: c.Args.Strings("status"), Assignee: c.Args.Str("assignee"), Label: c.Args.Str("label"),
		Query: c.Args.Str("query")}
	overlapping := c.Args.Bool("overlapping", false)
	cursor, err := boardCursorIn(c.Args.Str("cursor"), overlapping)
	if err != nil {
		return nil, tm, err
	}
	limit := c.Args.Int("limit", tasks.DefaultLimit)
	coord := boardCoordOf(ctx, c)
	for {
		page, rows, next, err := boardPage(c, f, cursor, limit, overlapping, coord)
		if err != nil {
			return nil, tm, err
		}
		// A page the envelope would trim would lose rows the next cursor
		// skips: shorten it instead.
		if size, fit := rowsFit(c, rows); !fit && limit > 1 && len(rows) > 1 {
			limit = max(1, int(float64(limit)*boardBudget(c)*boardFitShare/float64(size)))
			if limit >= len(rows) {
				limit = len(rows) - 1
			}
			c.cutPage()
			continue
		}
		return map[string]any{"rows": rows, "total": page.Total, "next_cursor": next, "limit": limit,
			"walk_log_seq": page.LogSeq}, tm, nil
	}
}

// boardBudget returns the call's envelope budget in characters.
func boardBudget(c *Call) float64 {
	if b := c.Budget.BudgetChars; b > 0 {
		return float64(b)
	}
	return envelope.DefaultBudgetChars
}

// rowsFit reports the size of rows (a list, as JSON) as the envelope counts
// it (max of bytes and tokens×4, a non-ASCII character being one token) and
// whether it fits in boardFitShare of the budget (always true without a
// budget). The board and the paged graph answers use it.
func rowsFit(c *Call, rows any) (int, bool) {
	if c.Budget.NoBudget {
		return 0, true
	}
	b, err := json.Marshal(rows)
	if err != nil {
		return 0, true
	}
	ascii, other := 0, 0
	for _, r := range string(b) {
		if r < utf8.RuneSelf {
			ascii++
		} else {
			other++
		}
	}
	size := max(len(b), ascii+4*other)
	return size, float64(size) <= boardBudget(c)*boardFitShare
}
