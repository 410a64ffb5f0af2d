package worktree_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/tools"
)

// A worktree server's overlay changes the graph without a new log seq:
// the board's overlaps follow it (nothing kept from before the sync is
// answered after it).
func TestService_BoardFollowsTheOverlay(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	wst, svc := f.service(t)
	r := tools.New(wst, nil, tools.Options{Worktree: svc})
	call := func(tool, args string) map[string]any {
		t.Helper()
		env := r.Call(ctx, tool, json.RawMessage(args), envelope.Options{})
		if !env.OK() {
			t.Fatalf("%s %s: %s", tool, args, env.JSON())
		}
		return env.Data()
	}
	overlaps := func() string {
		t.Helper()
		rows, _ := json.Marshal(call("cos_task_board", `{}`)["rows"])
		var got []struct {
			ID       string   `json:"task_id"`
			Overlaps []string `json:"overlaps"`
		}
		if err := json.Unmarshal(rows, &got); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(got)
	}
	call("cos_task_create", fmt.Sprintf(`{"title":"B","touches":[%q]}`, uidOf(t, wst, "B")))
	call("cos_task_create", fmt.Sprintf(`{"title":"C","touches":[%q]}`, uidOf(t, wst, "C")))
	before := overlaps()
	if err := svc.Sync(ctx); err != nil { // the worktree's C calls B
		t.Fatal(err)
	}
	after := overlaps()
	if want := "[{TASK-001 [TASK-002]} {TASK-002 [TASK-001]}]"; before == after || after != want {
		t.Fatalf("board overlaps before the sync %s, after %s; want %s after", before, after, want)
	}
}
