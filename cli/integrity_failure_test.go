package cli

import (
	"fmt"
	"testing"
)

// A failure read past a damaged record says so too: "no task TASK-005" may
// only mean the task is after the damage.
func TestIntegrity_FailureAnswersCarryTheDamage(t *testing.T) {
	dir := t.TempDir()
	fiveTasks(t, dir)
	flipMarker(t, dir, "MARKC")
	e := callEnv(t, dir, "cos_task_get", `{"task_id":"TASK-005"}`)
	if e.OK || e.Error.Code != "E_NOT_FOUND" {
		t.Fatalf("cos_task_get of a task after the damage = %+v, want E_NOT_FOUND", e)
	}
	want := map[string]any{"ok": false, "first_bad_seq": 3.0, "events_after": 2.0}
	if got := fmt.Sprint(e.Error.Details["integrity"]); got != fmt.Sprint(want) {
		t.Fatalf("details.integrity = %s, want %v (details %v)", got, want, e.Error.Details)
	}
}
