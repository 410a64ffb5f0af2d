package tasks

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
)

// boardScript is the event sequence of the golden test: creates with every
// field, updates of each kind, a claim, a release, a re-claim.
func boardScript(t testing.TB, l *testutil.FakeLog) {
	sig, err := ParseSignals(json.RawMessage(SignalsExample))
	if err != nil {
		t.Fatal(err)
	}
	create(t, l, Created{Title: "Design the board", Priority: PriorityHigh, Labels: []string{"board"}})
	create(t, l, Created{Title: "Write the reducer", Description: "pure, deterministic", Labels: []string{"board", "go"},
		DependsOn: []string{"TASK-001"}, Parent: "TASK-001", Signals: &sig})
	create(t, l, Created{Title: "Cursor paging", Status: StatusBlocked, DependsOn: []string{"TASK-002"}})
	l.AppendValue(t, "task:TASK-002", TypeClaimed, Claimed{Assignee: "agent-a"})
	l.AppendValue(t, "task:TASK-002", TypeUpdated, Updated{Patch: Patch{Status: ptr(StatusInProgress), Labels: &[]string{"go"}}})
	l.AppendValue(t, "task:TASK-001", TypeUpdated, Updated{Patch: Patch{Status: ptr(StatusDone), Title: ptr("Design the board (v2)")}})
	l.AppendValue(t, "task:TASK-002", TypeReleased, Released{Assignee: "agent-a"})
	l.AppendValue(t, "task:TASK-002", TypeClaimed, Claimed{Assignee: "agent-b"})
	l.AppendValue(t, "task:TASK-002", TypeUpdated, Updated{Patch: Patch{ClearSignals: true, Parent: ptr("")}})
	l.AppendValue(t, "task:TASK-003", TypeUpdated, Updated{Patch: Patch{DependsOn: &[]string{}, Priority: ptr(PriorityCritical)}})
	// Not the board's: ignored.
	l.AppendValue(t, "metrics", "metric.recorded", map[string]any{"name": "x", "value": 1})
}

func TestBoard_Golden(t *testing.T) {
	l := new(testutil.FakeLog)
	boardScript(t, l)
	b := NewBoard()
	for _, ev := range l.Events {
		apply(t, b, ev)
	}
	got, err := json.MarshalIndent(b.All(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "board.golden.json", append(got, '\n'))
}

func TestBoard_Apply_Invalid(t *testing.T) {
	l := new(testutil.FakeLog)
	b := NewBoard()
	apply(t, b, create(t, l, Created{Title: "one"}))
	bad := []struct {
		name   string
		stream string
		typ    string
		data   any
	}{
		{"second create", "task:TASK-001", TypeCreated, Created{Title: "again", Priority: "medium", Status: "todo"}},
		{"update of unknown task", "task:TASK-009", TypeUpdated, Updated{Patch: Patch{Title: ptr("x")}}},
		{"bad status", "task:TASK-001", TypeUpdated, Updated{Patch: Patch{Status: ptr("open")}}},
		{"release by non-holder", "task:TASK-001", TypeReleased, Released{Assignee: "nobody"}},
		{"claim without assignee", "task:TASK-001", TypeClaimed, Claimed{}},
		{"malformed stream", "task:nope", TypeUpdated, Updated{}},
		{"blank title", "task:TASK-001", TypeUpdated, Updated{Patch: Patch{Title: ptr(" ")}}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := b.Get("TASK-001")
			ev := l.AppendValue(t, tc.stream, tc.typ, tc.data)
			if err := b.Apply(ev); err == nil {
				t.Fatal("Apply accepted an invalid event")
			}
			after, _ := b.Get("TASK-001")
			if after.Title != before.Title || after.Status != before.Status || after.Assignee != before.Assignee {
				t.Errorf("content changed: %+v → %+v", before, after)
			}
			if ev.Stream == "task:TASK-001" && (after.Revision != ev.Revision || after.Hash != ev.Hash) {
				t.Errorf("revision/hash = %d/%s, want the log's %d/%s", after.Revision, after.Hash, ev.Revision, ev.Hash)
			}
		})
	}
	if _, ok := b.Get("TASK-009"); ok {
		t.Error("an update created TASK-009")
	}
}

func TestBoard_Snapshot_RoundTrip(t *testing.T) {
	l := new(testutil.FakeLog)
	boardScript(t, l)
	for k := 0; k <= len(l.Events); k++ {
		whole := NewBoard()
		for _, ev := range l.Events {
			apply(t, whole, ev)
		}
		head := NewBoard()
		for _, ev := range l.Events[:k] {
			apply(t, head, ev)
		}
		snap, err := head.MarshalSnapshot()
		if err != nil {
			t.Fatal(err)
		}
		restored := NewBoard()
		if err := restored.UnmarshalSnapshot(snap); err != nil {
			t.Fatal(err)
		}
		if restored.StateHash() != head.StateHash() {
			t.Fatalf("k=%d: restored hash differs from the snapshotted board's", k)
		}
		for _, ev := range l.Events[k:] {
			apply(t, restored, ev)
		}
		if restored.StateHash() != whole.StateHash() {
			t.Fatalf("k=%d: snapshot + tail differs from applying all", k)
		}
	}
}

func TestBoard_UnmarshalSnapshot_Corrupt(t *testing.T) {
	for _, data := range []string{`{`, `{"version": 99, "tasks": []}`, `{"version": 1, "tasks": [null]}`, `{"version": 1, "tasks": [{"task": {"task_id": "x"}}]}`} {
		if err := NewBoard().UnmarshalSnapshot([]byte(data)); err == nil {
			t.Errorf("UnmarshalSnapshot(%s) accepted a corrupt snapshot", data)
		}
	}
}

func TestBoard_StateHash_DiffersOnChange(t *testing.T) {
	l := new(testutil.FakeLog)
	b := NewBoard()
	apply(t, b, create(t, l, Created{Title: "one"}))
	h1 := b.StateHash()
	apply(t, b, l.AppendValue(t, "task:TASK-001", TypeUpdated, Updated{Patch: Patch{Title: ptr("two")}}))
	if b.StateHash() == h1 {
		t.Error("state hash did not change with the state")
	}
}

func TestBoard_Get_ReturnsCopy(t *testing.T) {
	l := new(testutil.FakeLog)
	b := NewBoard()
	apply(t, b, create(t, l, Created{Title: "one", Labels: []string{"a"}}))
	got, _ := b.Get("TASK-001")
	got.Labels[0] = "mutated"
	again, _ := b.Get("TASK-001")
	if again.Labels[0] != "a" {
		t.Error("Get shares its slices with the board")
	}
	if !errors.Is(b.CheckRelations("", []string{"TASK-404"}, ""), ErrNotFound) {
		t.Error("unknown dependency not reported")
	}
}
