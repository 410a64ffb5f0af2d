package testutil

import (
	"strings"
	"testing"
	"time"
)

func TestFakeLog_StampsLikeTheLog(t *testing.T) {
	var l FakeLog
	a := l.AppendValue(t, l.Allocate("task:TASK-"), "task.created", map[string]string{"title": "x"})
	b := l.Append(t, "evidence:s", "evidence.output_recorded", []byte(`{"role":"planner"}`))
	c := l.AppendValue(t, a.Stream, "task.updated", struct{}{})
	if a.Stream != "task:TASK-001" || l.Allocate("task:TASK-") != "task:TASK-002" || l.Allocate("other-") != "other-001" {
		t.Fatalf("allocation: %s", a.Stream)
	}
	for i, ev := range []struct {
		seq, rev uint64
		id, prev string
	}{{1, 1, "ev0001", strings.Repeat("0", 64)}, {2, 1, "ev0002", a.Hash}, {3, 2, "ev0003", b.Hash}} {
		got := l.Events[i]
		if got.Seq != ev.seq || got.Revision != ev.rev || got.ID != ev.id || got.PrevHash != ev.prev || len(got.Hash) != 64 {
			t.Errorf("event %d = %+v", i, got)
		}
		if !got.Time.Equal(BaseTime.Add(time.Duration(ev.seq) * time.Second)) {
			t.Errorf("event %d time %s", i, got.Time)
		}
	}
	if l.Seq != 3 || len(l.Events) != 3 || c.Seq != 3 || string(b.Data) != `{"role":"planner"}` || string(a.Data) != `{"title":"x"}` {
		t.Fatalf("log = %+v", l)
	}
}
