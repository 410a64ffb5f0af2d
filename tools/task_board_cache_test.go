package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cos-dev/cos/query"
	"github.com/cos-dev/cos/state"
)

// boardCoordWant is what one board row says of coordination.
type boardCoordWant struct {
	Overlaps []string
	Changes  int
}

// boardCoordUncached computes every active task's overlap ids and change
// count in v one task at a time (query.Overlaps, query.Notices), sharing
// nothing with the board's cache.
func boardCoordUncached(ctx context.Context, v state.View) map[string]boardCoordWant {
	out := map[string]boardCoordWant{}
	for _, t := range v.Board.Active() {
		var w boardCoordWant
		for _, o := range query.Overlaps(ctx, v.Graph, v.Board, t.ID) {
			w.Overlaps = append(w.Overlaps, o.TaskID)
		}
		_, w.Changes, _ = query.Notices(ctx, v.Graph, v.Board, t.ID, 0)
		out[t.ID] = w
	}
	return out
}

// boardCoordRows decodes the rows of a cos_task_board answer, by id.
func boardCoordRows(t *testing.T, e envOf) map[string]boardCoordWant {
	t.Helper()
	out := map[string]boardCoordWant{}
	for _, r := range e.Data["rows"].([]any) {
		row := r.(map[string]any)
		var w boardCoordWant
		if ids, ok := row["overlaps"].([]any); ok {
			for _, id := range ids {
				w.Overlaps = append(w.Overlaps, id.(string))
			}
		}
		if c, ok := row["changes"].(float64); ok {
			w.Changes = int(c)
		}
		out[row["task_id"].(string)] = w
	}
	return out
}

// sortedIDs sorts the overlap ids of each want (query.Overlaps lists them
// closest first, a row by id).
func sortedIDs(m map[string]boardCoordWant) map[string]boardCoordWant {
	for id, w := range m {
		if len(w.Overlaps) == 0 {
			w.Overlaps = nil
		}
		ids := slices.Clone(w.Overlaps)
		slices.Sort(ids)
		w.Overlaps = ids
		m[id] = w
	}
	return m
}

// TestBoardCoord_CachedEqualsUncached: the board's coordination, kept per
// log position, answers what computing it afresh answers — at one seq read
// twice, after a write (a new seq), and at a past seq (`at`) — and the
// cache keeps at most boardCoordKept positions.
func TestBoardCoord_CachedEqualsUncached(t *testing.T) {
	ctx := context.Background()
	s, root := coordServer(t)
	createTask(t, s, `{"title":"Login","touches":["a.go"]}`)
	okEnv(t, call(t, s, "cos_task_claim", `{"task_id":"TASK-001","assignee":"agent-1"}`), "claim")
	createTask(t, s, `{"title":"Helper","touches":["b.go"]}`)
	createTask(t, s, `{"title":"Apart","touches":["c.go"]}`)
	createTask(t, s, `{"title":"Login again","touches":["a.go"]}`)
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package demo\n\n// Login logs in.\nfunc Login() int {\n\treturn Helper() + 2\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	idxReport(t, s, `{}`)

	check := func(what string, e envOf, v state.View) map[string]boardCoordWant {
		t.Helper()
		got, want := sortedIDs(boardCoordRows(t, e)), sortedIDs(boardCoordUncached(ctx, v))
		if strings.Contains(what, "overlapping") {
			for id, w := range want {
				if len(w.Overlaps) == 0 {
					delete(want, id)
				}
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: board rows %+v, computed afresh %+v", what, got, want)
		}
		return got
	}
	live := func(what, args string) map[string]boardCoordWant {
		t.Helper()
		e := okEnv(t, call(t, s, "cos_task_board", args), what)
		var got map[string]boardCoordWant
		if err := s.st.Read(ctx, func(v state.View) {
			if uint64(e.Data["walk_log_seq"].(float64)) != v.Pos.Seq {
				t.Fatalf("%s: answered at seq %v, the view is at %d", what, e.Data["walk_log_seq"], v.Pos.Seq)
			}
			got = check(what, e, v)
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	first := live("board", `{}`)
	if w := first["TASK-002"]; len(w.Overlaps) == 0 || first["TASK-001"].Changes == 0 {
		t.Fatalf("the fixture has no overlap or no change: %+v", first)
	}
	if again := live("board again", `{}`); !reflect.DeepEqual(again, first) {
		t.Fatalf("the second read at one seq answers %+v, the first %+v", again, first)
	}
	var seq1 uint64
	if err := s.st.Read(ctx, func(v state.View) { seq1 = v.Pos.Seq }); err != nil {
		t.Fatal(err)
	}

	// A write: a new seq, so a new key; TASK-005 overlaps TASK-002.
	createTask(t, s, `{"title":"Helper again","touches":["b.go"]}`)
	after := live("board after a write", `{}`)
	if !reflect.DeepEqual(after["TASK-002"].Overlaps, append(first["TASK-002"].Overlaps, "TASK-005")) {
		t.Fatalf("after the write TASK-002 overlaps %v (before %v), want TASK-005 added", after["TASK-002"].Overlaps, first["TASK-002"].Overlaps)
	}
	live("overlapping after a write", `{"overlapping":true}`)
	// cos_task_get's overlaps come from the same kept coordination.
	got := overlapsIn(t, coordOf(t, okEnv(t, call(t, s, "cos_task_get", `{"task_id":"TASK-002"}`), "get")).Overlaps)
	if err := s.st.Read(ctx, func(v state.View) {
		want := query.Overlaps(ctx, v.Graph, v.Board, "TASK-002")
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("cos_task_get overlaps %+v, computed afresh %+v", got, want)
		}
	}); err != nil {
		t.Fatal(err)
	}

	// The past seq: what the board answered then, and what computing it
	// afresh at that seq answers.
	e := okEnv(t, call(t, s, "cos_task_board", fmt.Sprintf(`{"at":%d}`, seq1)), "board at")
	past, err := s.st.Past(ctx, seq1)
	if err != nil {
		t.Fatal(err)
	}
	defer past.Release()
	if err := past.State().Read(ctx, func(v state.View) {
		if got := check("board at", e, v); !reflect.DeepEqual(got, first) {
			t.Fatalf("board at %d answers %+v, the live board then %+v", seq1, got, first)
		}
	}); err != nil {
		t.Fatal(err)
	}
	s.r.boardCoords.mu.Lock()
	kept := len(s.r.boardCoords.keys)
	s.r.boardCoords.mu.Unlock()
	if kept == 0 || kept > boardCoordKept {
		t.Fatalf("the cache keeps %d positions, want 1…%d", kept, boardCoordKept)
	}
}

// TestBoardCoord_ConcurrentColumns: the six column reads of a page load,
// at once at one seq, answer what one read at a time answers (run with
// -race: they share one cache entry).
func TestBoardCoord_ConcurrentColumns(t *testing.T) {
	s, _ := coordServer(t)
	statuses := []string{"todo", "in_progress", "blocked", "review", "done", "cancelled"}
	for i, f := range []string{"a.go", "b.go", "c.go", "a.go", "b.go", "c.go", "a.go", "b.go"} {
		createTask(t, s, fmt.Sprintf(`{"title":"t%d","touches":[%q],"status":%q}`, i, f, statuses[i%4]))
	}
	// A new seq: nothing is kept for it yet.
	createTask(t, s, `{"title":"seed","touches":["no/such.go"],"status":"done"}`)
	got := make([]string, len(statuses))
	var wg sync.WaitGroup
	for i, st := range statuses {
		wg.Go(func() {
			e := s.Call(context.Background(), "cos_task_board", json.RawMessage(fmt.Sprintf(`{"status":[%q]}`, st)))
			got[i] = string(e.JSON())
		})
	}
	wg.Wait()
	for i, st := range statuses {
		var a, b envOf
		if err := json.Unmarshal([]byte(got[i]), &a); err != nil {
			t.Fatal(err)
		}
		b = call(t, s, "cos_task_board", fmt.Sprintf(`{"status":[%q]}`, st))
		if !a.OK || !reflect.DeepEqual(a.Data, b.Data) {
			t.Fatalf("%s: concurrent read %s, alone %+v", st, got[i], b.Data)
		}
	}
}
