package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/internal/pagecursor"
	"github.com/cos-dev/cos/projections/history"
	"github.com/cos-dev/cos/projections/tasks"
	"github.com/cos-dev/cos/state"
)

// Paging of cos_history.
const (
	historyLimitDefault = 50
	historyLimitMax     = 500
)

// historySelectors are the arguments that pick what cos_history follows,
// with the selector kind each stands for.
var historySelectors = []struct{ arg, kind string }{
	{"stream", history.ByStream}, {"task_id", history.ByTask}, {"uid", history.ByUID}, {"path", history.ByPath},
}

// historyActor is the actor of one history event.
type historyActor struct {
	PID           int    `json:"pid"`
	Host          string `json:"host"`
	Client        string `json:"client,omitempty"`
	ClientVersion string `json:"client_version,omitempty"`
	Session       string `json:"session,omitempty"`
}

// historyEvent is one row of a cos_history answer.
type historyEvent struct {
	Seq       uint64       `json:"seq"`
	Time      time.Time    `json:"time"`
	Type      string       `json:"type"`
	Stream    string       `json:"stream"`
	Actor     historyActor `json:"actor"`
	RequestID string       `json:"request_id,omitempty"`
	Summary   string       `json:"summary"`
}

func historyTool() *Tool {
	return &Tool{
		Name:  "cos_history",
		Title: "History of a task, node, file or stream",
		Description: "Who changed what, newest first: the events touching one task_id, uid, path or stream (none: " +
			"the whole log); since/until a seq or RFC 3339 time. Paged.",
		Module: "", Layer: envelope.LayerAudit, ReadOnly: true, Idempotent: true, OwnViews: true,
		Example: `{"task_id": "TASK-001", "limit": 20}`,
		Data:    Fields{"events": typ([]historyEvent{}), "next_cursor": "string", "limit": "integer"},
		Params: []Param{
			{Name: "task_id", Type: TString, NonEmpty: true, MaxLen: 64, Minted: true, Description: `"TASK-007"`},
			{Name: "uid", Type: TString, NonEmpty: true, MaxLen: 2048},
			{Name: "path", Type: TString, NonEmpty: true, MaxLen: 4096},
			{Name: "stream", Type: TString, NonEmpty: true, MaxLen: eventlog.MaxStreamLen},
			{Name: "since", Type: TJSON, JSONTypes: []string{"integer", "string"}},
			{Name: "until", Type: TJSON, JSONTypes: []string{"integer", "string"}},
			{Name: "types", Type: TStringList, NonEmpty: true, MaxLen: 32},
			{Name: "actor", Type: TString, NonEmpty: true, MaxLen: 256},
			{Name: "limit", Type: TInt, Min: f64(1), Max: f64(historyLimitMax), Default: historyLimitDefault},
			{Name: "cursor", Type: TString, MaxLen: pagecursor.MaxLen, Minted: true},
		},
		Handler: historyHandler,
	}
}

// historyQuery is the parsed arguments of cos_history.
type historyQuery struct {
	q history.Query
	// digest is the query's identity inside its cursors.
	digest [8]byte
	// what names the selector in messages ("TASK-001", "the log").
	what string
}

func parseHistory(c *Call) (historyQuery, error) {
	t := c.Tool
	var hq historyQuery
	var given []string
	for _, s := range historySelectors {
		if c.Args.Has(s.arg) {
			given = append(given, s.arg)
			hq.q.Kind, hq.q.Key = s.kind, strings.TrimSpace(c.Args.Str(s.arg))
		}
	}
	if len(given) > 1 {
		return hq, argError(t, strings.Join(given, " and "), "both", "at most one of task_id, uid, path, stream (none lists the whole log)")
	}
	switch hq.q.Kind {
	case history.ByTask:
		if !tasks.ValidID(hq.q.Key) {
			return hq, argError(t, "task_id", strconv.Quote(hq.q.Key), `a task id: "TASK-" and at least three digits ("TASK-007")`)
		}
	case history.ByPath:
		hq.q.Key = strings.TrimPrefix(strings.ReplaceAll(hq.q.Key, `\`, "/"), "./")
	}
	hq.what = "the log"
	if hq.q.Kind != history.ByLog {
		hq.what = hq.q.Kind + " " + hq.q.Key
	}
	var err error
	var since, until string
	if since, err = historyBound(t, c.Args.Raw("since"), "since", &hq.q.Since, &hq.q.SinceTime); err != nil {
		return hq, err
	}
	if until, err = historyBound(t, c.Args.Raw("until"), "until", &hq.q.Until, &hq.q.UntilTime); err != nil {
		return hq, err
	}
	if (hq.q.Since != 0 && hq.q.Until != 0 && hq.q.Since > hq.q.Until) ||
		(!hq.q.SinceTime.IsZero() && !hq.q.UntilTime.IsZero() && hq.q.SinceTime.After(hq.q.UntilTime)) {
		return hq, argError(t, "since", since, "a bound at or before until ("+until+")")
	}
	types := slices.Clone(c.Args.Strings("types"))
	for _, ty := range types {
		if _, ok := eventlog.ParseTypePattern(ty); !ok {
			return hq, argError(t, "types", strconv.Quote(ty), eventlog.TypePatternLegal)
		}
	}
	slices.Sort(types)
	hq.q.Types = types
	if actor := strings.TrimSpace(c.Args.Str("actor")); actor != "" {
		hq.q.Actor = actorMatcher(actor)
	}
	hq.q.Limit = c.Args.Int("limit", historyLimitDefault)
	hq.digest = pagecursor.Digest("cos_history", hq.q.Kind, hq.q.Key, since, until, strings.Join(types, ","), c.Args.Str("actor"))
	return hq, nil
}

// historyBound parses since or until: a seq ≥ 1 (a JSON integer, or a
// string of digits) or an RFC 3339 time. It returns the canonical text
// (for the cursor's digest).
func historyBound(t *Tool, raw json.RawMessage, field string, seq *uint64, tm *time.Time) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	expected := `a seq (an integer ≥ 1, e.g. 1200) or an RFC 3339 time ("2026-05-01T12:00:00Z")`
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var n json.Number
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.UseNumber()
		if dec.Decode(&n) != nil {
			return "", argError(t, field, describe(raw), expected)
		}
		s = n.String()
	}
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseUint(s, 10, 64); err == nil {
		if n == 0 {
			return "", argError(t, field, s, expected)
		}
		*seq = n
		return "seq:" + s, nil
	}
	if v, err := time.Parse(time.RFC3339Nano, s); err == nil {
		*tm = v.UTC()
		return "time:" + v.UTC().Format(time.RFC3339Nano), nil
	}
	return "", argError(t, field, strconv.Quote(clip(s, 60)), expected)
}

// actorMatcher accepts an actor whose client name, session, host, pid or
// host:pid equals want.
func actorMatcher(want string) func(eventlog.Actor) bool {
	return func(a eventlog.Actor) bool {
		c := state.ParseCaller(a.Client)
		pid := strconv.Itoa(a.PID)
		return want == c.Name || (c.Session != "" && want == c.Session) || want == a.Host || want == pid || want == a.Host+":"+pid
	}
}

func historyHandler(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	var tm envelope.ToolMeta
	hq, err := parseHistory(c)
	if err != nil {
		return nil, tm, err
	}
	if err := c.st.Read(ctx, func(v state.View) { c.V = v }); err != nil {
		return nil, tm, err
	}
	pos := c.V.Pos.Seq
	idx, err := c.runner.history.Index(ctx, pos)
	if err != nil {
		return nil, tm, err
	}
	walkSeq := pos
	q := hq.q
	q.Upto = pos
	if cursor := c.Args.Str("cursor"); cursor != "" {
		cur, err := decodeCursor(cursor)
		if err != nil {
			return nil, tm, err
		}
		stale := staleCursor
		if cur.Query != hq.digest {
			return nil, tm, stale("it belongs to another question: another task_id, uid, path, stream, since, until, types or actor")
		}
		if cur.Seq > pos {
			return nil, tm, stale(fmt.Sprintf("it is from log seq %d, this view is at %d", cur.Seq, pos))
		}
		// The log up to the cursor's seq never changes: events committed
		// since (meta.events_since_walk) are left out of the walk.
		walkSeq = cur.Seq
		q.Upto, q.Before = cur.Seq, cur.After
	}
	if pos == 0 {
		// The empty log (at: 0, or a time before the first event): Upto
		// 0 would mean everything applied, so bound the walk below seq 1.
		q.Before = 1
	}
	page := idx.Query(q)
	rows := make([]historyEvent, len(page.Items))
	for i, it := range page.Items {
		cl := state.ParseCaller(it.Actor.Client)
		rows[i] = historyEvent{Seq: it.Seq, Time: it.Time, Type: it.Type, Stream: it.Stream, RequestID: it.RequestID, Summary: it.Summary,
			Actor: historyActor{PID: it.Actor.PID, Host: it.Actor.Host, Client: cl.Name, ClientVersion: cl.Version, Session: cl.Session}}
	}
	limit := q.Limit
	more := page.More
	for len(rows) > 1 {
		total, fit := rowsFit(c, rows)
		if fit {
			break
		}
		size := min(len(rows)-1, max(1, int(float64(len(rows))*boardBudget(c)*boardFitShare/float64(total))))
		rows, more, limit = rows[:size], true, size
		c.cutPage()
	}
	next := ""
	if more && len(rows) > 0 {
		next = pagecursor.Cursor{Seq: walkSeq, Query: hq.digest, After: rows[len(rows)-1].Seq}.Encode()
	}
	if len(rows) == 0 && c.Args.Str("cursor") == "" && !idx.Known(q.Kind, q.Key) {
		c.Warn(fmt.Sprintf("no event touched %s up to log seq %d", hq.what, pos))
	}
	return map[string]any{"events": rows, "next_cursor": next, "limit": limit}, tm, nil
}
