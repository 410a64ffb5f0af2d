package mcp

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/state"
)

// TestResources_TaskNotifiedOfAChangeUnderIt: a re-index that changes a
// symbol in a claimed task's footprint notifies cos://task/{id}, though no
// event of the task's own stream was appended; a task without a footprint
// is not notified.
func TestResources_TaskNotifiedOfAChangeUnderIt(t *testing.T) {
	root, st := wireRepo(t)
	liveCosCall(t, st, "cos_task_create", `{"title":"greet better","touches":["util/greet.go"]}`)
	liveCosCall(t, st, "cos_task_claim", `{"task_id":"TASK-001","assignee":"agent-1"}`)
	liveCosCall(t, st, "cos_task_create", `{"title":"no code"}`)
	c := liveStart(t, st, root, "--nats", "off")
	const task, other = "cos://task/TASK-001", "cos://task/TASK-002"
	for _, uri := range []string{task, other} {
		var empty struct{}
		c.result(c.request("resources/subscribe", map[string]any{"uri": uri}), &empty)
	}

	greet := filepath.Join(root, "util", "greet.go")
	body, err := os.ReadFile(greet)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(greet, bytes.Replace(body, []byte(`{ fmt.Println("hello", name) }`), []byte("{\n\tfmt.Println(\"hi\", name)\n}"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	if out, err := exec.Command(cosBin, "index", "--state-dir", st, root).CombinedOutput(); err != nil {
		t.Fatalf("cos index: %v\n%s", err, out)
	}
	if _, ok := c.waitNote(since, "notifications/resources/updated", task, 5*time.Second); !ok {
		t.Fatalf("no notifications/resources/updated for %s after a change under it; stderr:\n%s", task, c.stderr())
	}
	time.Sleep(300 * time.Millisecond)
	if ns := c.notesSince(since, "notifications/resources/updated", other); len(ns) > 0 {
		t.Errorf("%s (no footprint) was notified of a change under another task", other)
	}
}

// TestResourceChanges_FootprintStreamChangesTaskAndBoard: an event of a
// task's footprint stream changes that task and the board.
func TestResourceChanges_FootprintStreamChangesTaskAndBoard(t *testing.T) {
	ch := changesOf(state.Changes{Events: []eventlog.Event{{Seq: 7, Stream: "footprint:TASK-003", Type: "task.footprint_derived"}}})
	for _, c := range []struct {
		ref  ResourceRef
		want bool
	}{
		{ResourceRef{Kind: ResourceTask, ID: "TASK-003"}, true},
		{ResourceRef{Kind: ResourceBoard}, true},
		{ResourceRef{Kind: ResourceTask, ID: "TASK-004"}, false},
	} {
		if got := ch.Touches(c.ref); got != c.want {
			t.Errorf("Touches(%+v) = %v, want %v", c.ref, got, c.want)
		}
	}
	if !ch.mayNotice || ch.firstSeq != 7 {
		t.Errorf("mayNotice %v, firstSeq %d: want true, 7", ch.mayNotice, ch.firstSeq)
	}
}
