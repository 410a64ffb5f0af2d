package tools

import (
	"testing"
)

// TestHistory_AtZeroIsTheEmptyLog asks cos_history for the state before
// the first event (at: 0, or a time before it): no event is listed, as
// every other read tool answers the empty state there.
func TestHistory_AtZeroIsTheEmptyLog(t *testing.T) {
	s := openHistoryServer(t, t.TempDir())
	defer func() { _ = s.Close() }()
	okEnv(t, call(t, s, "cos_task_create", `{"title": "first"}`), "create")
	okEnv(t, call(t, s, "cos_task_create", `{"title": "second"}`), "create")
	for _, args := range []string{
		`{"at": 0}`,
		`{"at": "0"}`,
		`{"at": "1970-01-01T00:00:00Z"}`,
		`{"stream": "tasks", "at": 0}`,
	} {
		rows, next := historyOf(t, s, args)
		if len(rows) != 0 || next != "" {
			t.Errorf("cos_history %s: %d events (next_cursor %q), want none: the log was empty at seq 0", args, len(rows), next)
		}
	}
	if rows, _ := historyOf(t, s, `{"at": 1}`); len(rows) != 1 || rows[0].Seq != 1 {
		t.Errorf("cos_history at 1: %+v, want seq 1 alone", rows)
	}
}
