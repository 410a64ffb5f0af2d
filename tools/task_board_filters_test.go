package tools

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// boardIDs lists a board answer's task ids and its total.
func boardIDs(t *testing.T, e envOf) ([]string, int) {
	t.Helper()
	var ids []string
	for _, r := range e.Data["rows"].([]any) {
		ids = append(ids, r.(map[string]any)["task_id"].(string))
	}
	return ids, int(e.Data["total"].(float64))
}

// filterBoard is a board of seven tasks in four statuses with labels
// sharing prefixes and words in titles and descriptions.
func filterBoard(t *testing.T) *testServer {
	t.Helper()
	s := openServer(t, "")
	for _, args := range []string{
		`{"title":"Fix LOGIN redirect","labels":["area/auth"]}`,                                         // 1 todo
		`{"title":"Login page copy","status":"review","labels":["area/ui"]}`,                            // 2 review
		`{"title":"Cache warmup","description":"after login the cache is cold","labels":["perf"]}`,      // 3 todo
		`{"title":"Docs","status":"done","labels":["docs","area"]}`,                                     // 4 done
		`{"title":"Release notes","status":"blocked","labels":["areas"]}`,                               // 5 blocked
		`{"title":"Retry login redirect","status":"review","description":"Redirect twice","labels":[]}`, // 6 review
		`{"title":"Unrelated","labels":["Area/auth"]}`,                                                  // 7 todo
	} {
		createTask(t, s, args)
	}
	return s
}

func TestTaskBoard_MultiStatus(t *testing.T) {
	s := filterBoard(t)
	for _, c := range []struct {
		args  string
		want  []string
		total int
	}{
		{`{"status":["todo","review"]}`, []string{"TASK-001", "TASK-002", "TASK-003", "TASK-006", "TASK-007"}, 5},
		{`{"status":"review"}`, []string{"TASK-002", "TASK-006"}, 2}, // one bare string still works
		{`{"status":["blocked"]}`, []string{"TASK-005"}, 1},
		{`{"status":[]}`, []string{"TASK-001", "TASK-002", "TASK-003", "TASK-004", "TASK-005", "TASK-006", "TASK-007"}, 7},
	} {
		got, total := boardIDs(t, okEnv(t, call(t, s, "cos_task_board", c.args), c.args))
		if !slices.Equal(got, c.want) || total != c.total {
			t.Errorf("%s: rows %v total %d, want %v total %d", c.args, got, total, c.want, c.total)
		}
	}
}

func TestTaskBoard_LabelPrefix(t *testing.T) {
	s := filterBoard(t)
	for _, c := range []struct {
		label string
		want  []string
	}{
		{"area/*", []string{"TASK-001", "TASK-002"}},
		{"area*", []string{"TASK-001", "TASK-002", "TASK-004", "TASK-005"}},
		{"area", []string{"TASK-004"}}, // without * the label is exact
		{"Area/*", []string{"TASK-007"}},
		{"nothing*", nil},
	} {
		args := fmt.Sprintf(`{"label":%q}`, c.label)
		got, total := boardIDs(t, okEnv(t, call(t, s, "cos_task_board", args), args))
		if !slices.Equal(got, c.want) || total != len(c.want) {
			t.Errorf("label %q: rows %v total %d, want %v", c.label, got, total, c.want)
		}
	}
}

func TestTaskBoard_QueryCaseInsensitive(t *testing.T) {
	s := filterBoard(t)
	for _, c := range []struct {
		args string
		want []string
	}{
		{`{"query":"login"}`, []string{"TASK-001", "TASK-002", "TASK-003", "TASK-006"}}, // title or description
		{`{"query":"REDIRECT login"}`, []string{"TASK-001", "TASK-006"}},                // every word
		{`{"query":"twice"}`, []string{"TASK-006"}},                                     // description only
		{`{"query":"task-004"}`, []string{"TASK-004"}},                                  // the id
		{`{"query":"login","status":["review"]}`, []string{"TASK-002", "TASK-006"}},
		{`{"query":"login","label":"area/*"}`, []string{"TASK-001", "TASK-002"}},
		{`{"query":"zebra"}`, nil},
	} {
		got, total := boardIDs(t, okEnv(t, call(t, s, "cos_task_board", c.args), c.args))
		if !slices.Equal(got, c.want) || total != len(c.want) {
			t.Errorf("%s: rows %v total %d, want %v", c.args, got, total, c.want)
		}
	}
}

// The total of a filtered listing counts every match, not the page: the
// Hub's column headers show it ("50 of 229").
func TestTaskBoard_TotalsTrueAcrossPages(t *testing.T) {
	s := openServer(t, "")
	for i := range 30 {
		st := []string{"todo", "review", "done"}[i%3]
		createTask(t, s, fmt.Sprintf(`{"title":"task %d","status":%q}`, i, st))
	}
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		args := `{"status":["todo","done"],"query":"task","limit":7`
		if cursor != "" {
			args += fmt.Sprintf(`,"cursor":%q`, cursor)
		}
		e := okEnv(t, call(t, s, "cos_task_board", args+"}"), args)
		ids, total := boardIDs(t, e)
		if total != 20 {
			t.Fatalf("page %d: total %d, want 20", page, total)
		}
		for _, id := range ids {
			seen[id] = true
		}
		cursor, _ = e.Data["next_cursor"].(string)
		if cursor == "" {
			break
		}
	}
	if len(seen) != 20 {
		t.Fatalf("the walk listed %d tasks, want 20", len(seen))
	}
}

// A change after the walk's first page to a task the query matches makes
// the next page come from the walk's seq, as it was then.
func TestTaskBoard_QueryCursorReadsAtWalkSeq(t *testing.T) {
	s := openServer(t, "")
	for i := range 4 {
		createTask(t, s, fmt.Sprintf(`{"title":"alpha %d"}`, i))
	}
	first := okEnv(t, call(t, s, "cos_task_board", `{"query":"alpha","limit":2}`), "first page")
	cursor := first.Data["next_cursor"].(string)
	okEnv(t, call(t, s, "cos_task_update", `{"task_id":"TASK-004","patch":{"title":"beta"}}`), "rename")
	next := okEnv(t, call(t, s, "cos_task_board", fmt.Sprintf(`{"query":"alpha","limit":2,"cursor":%q}`, cursor)), "next page")
	ids, total := boardIDs(t, next)
	if !slices.Equal(ids, []string{"TASK-003", "TASK-004"}) || total != 4 {
		t.Fatalf("next page: %v total %d, want TASK-003, TASK-004 of 4 (the walk's seq)", ids, total)
	}
	// Another filter's cursor is refused.
	failEnv(t, call(t, s, "cos_task_board", fmt.Sprintf(`{"query":"other","limit":2,"cursor":%q}`, cursor)), "STALE_CURSOR", "other query")
}

func TestTaskBoard_BadFiltersRefused(t *testing.T) {
	s := filterBoard(t)
	for _, c := range []struct{ name, args, field string }{
		{"unknown status in list", `{"status":["todo","doing"]}`, "status"},
		{"unknown status", `{"status":"doing"}`, "status"},
		{"status twice", `{"status":["todo","todo"]}`, "status"},
		{"blank query", `{"query":"  "}`, "query"},
		{"long query", fmt.Sprintf(`{"query":%q}`, strings.Repeat("x", 201)), "query"},
		{"query not a string", `{"query":["login"]}`, "query"},
	} {
		e := failEnv(t, call(t, s, "cos_task_board", c.args), "E_ARGUMENT", c.name)
		if !strings.Contains(e.Error.Message, c.field) {
			t.Errorf("%s: message %q does not name %s", c.name, e.Error.Message, c.field)
		}
	}
}
