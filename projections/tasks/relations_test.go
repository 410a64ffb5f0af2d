package tasks

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
)

// chainBoard holds TASK-001 … TASK-n where TASK-k depends on TASK-(k-1).
func chainBoard(t testing.TB, n int) *Board {
	l := new(testutil.FakeLog)
	b := NewBoard()
	for k := 1; k <= n; k++ {
		var deps []string
		if k > 1 {
			deps = []string{fmt.Sprintf("TASK-%03d", k-1)}
		}
		apply(t, b, create(t, l, Created{Title: fmt.Sprintf("t%d", k), DependsOn: deps, Parent: firstOr(deps)}))
	}
	return b
}

func firstOr(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func TestBoard_WouldCycle(t *testing.T) {
	b := chainBoard(t, 6)
	cases := []struct {
		name      string
		id        string
		deps      []string
		wantCycle []string
	}{
		{"self", "TASK-003", []string{"TASK-003"}, []string{"TASK-003", "TASK-003"}},
		{"two-cycle", "TASK-001", []string{"TASK-002"}, []string{"TASK-001", "TASK-002", "TASK-001"}},
		{"long cycle", "TASK-001", []string{"TASK-006"}, []string{"TASK-001", "TASK-006", "TASK-005", "TASK-004", "TASK-003", "TASK-002", "TASK-001"}},
		{"shortest of two", "TASK-002", []string{"TASK-006", "TASK-003"}, []string{"TASK-002", "TASK-003", "TASK-002"}},
		{"forward edge is fine", "TASK-006", []string{"TASK-001", "TASK-004"}, nil},
		{"new task", "", []string{"TASK-001"}, nil},
		{"unknown dependency", "TASK-001", []string{"TASK-999"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cycle, ok := b.WouldCycle(tc.id, tc.deps)
			if ok != (tc.wantCycle != nil) || !slices.Equal(cycle, tc.wantCycle) {
				t.Errorf("WouldCycle(%s, %v) = %v, %v; want %v", tc.id, tc.deps, cycle, ok, tc.wantCycle)
			}
		})
	}
}

func TestBoard_CheckRelations(t *testing.T) {
	b := chainBoard(t, 4)
	cases := []struct {
		name   string
		id     string
		deps   []string
		parent string
		want   error
		field  string
	}{
		{"fine", "TASK-004", []string{"TASK-001"}, "TASK-001", nil, ""},
		{"create", "", []string{"TASK-004"}, "TASK-004", nil, ""},
		{"missing dependency", "TASK-004", []string{"TASK-050"}, "", ErrNotFound, "depends_on"},
		{"missing parent", "TASK-004", nil, "TASK-050", ErrNotFound, "parent"},
		{"dependency cycle", "TASK-001", []string{"TASK-004"}, "", ErrCycle, "depends_on"},
		{"self parent", "TASK-002", nil, "TASK-002", ErrCycle, "parent"},
		{"parent cycle", "TASK-001", nil, "TASK-004", ErrCycle, "parent"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := b.CheckRelations(tc.id, tc.deps, tc.parent)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			var nf *NotFoundError
			var ce *CycleError
			switch {
			case errors.As(err, &nf):
				if nf.Field != tc.field {
					t.Errorf("field = %s, want %s", nf.Field, tc.field)
				}
			case errors.As(err, &ce):
				if ce.Relation != tc.field || ce.Cycle[0] != tc.id || ce.Cycle[len(ce.Cycle)-1] != tc.id {
					t.Errorf("cycle error %+v", ce)
				}
			}
		})
	}
}

func TestBoard_ClaimCheck(t *testing.T) {
	l := new(testutil.FakeLog)
	b := NewBoard()
	apply(t, b, create(t, l, Created{Title: "one"}))
	task, out, err := b.ClaimCheck("TASK-001", "agent-a")
	if err != nil || out != ClaimFree || task.Revision != 1 {
		t.Fatalf("free: %v %v %+v", out, err, task)
	}
	apply(t, b, l.AppendValue(t, "task:TASK-001", TypeClaimed, Claimed{Assignee: "agent-a"}))
	if _, out, err := b.ClaimCheck("TASK-001", "agent-a"); err != nil || out != ClaimHeld {
		t.Errorf("held by self: %v %v", out, err)
	}
	_, _, err = b.ClaimCheck("TASK-001", "agent-b")
	var ce *ClaimedError
	if !errors.As(err, &ce) || ce.Holder != "agent-a" || ce.Revision != 2 || !errors.Is(err, ErrClaimed) {
		t.Errorf("held by other: %v", err)
	}
	if _, _, err := b.ClaimCheck("TASK-404", "agent-b"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown task: %v", err)
	}
	if _, _, err := b.ClaimCheck("TASK-001", ""); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("empty assignee: %v", err)
	}
}

// TestBoard_Apply_RelationsUpdated: a dependency change of RelationsStream
// lands on its task and moves the task's revision and hash like an event
// of the task's own stream; Revisions splits the two; an invalid one
// changes nothing but the identities; a snapshot keeps all of it.
func TestBoard_Apply_RelationsUpdated(t *testing.T) {
	l := new(testutil.FakeLog)
	b := NewBoard()
	apply(t, b, create(t, l, Created{Title: "a"}))
	apply(t, b, create(t, l, Created{Title: "b"}))
	if _, rel, _ := b.Revisions("TASK-002"); rel != 0 {
		t.Fatalf("relations revision of a board without dependency changes = %d", rel)
	}
	ev := l.AppendValue(t, RelationsStream, TypeRelationsUpdated,
		RelationsUpdated{TaskID: "TASK-002", Patch: Patch{DependsOn: &[]string{"TASK-001"}, Priority: ptr(PriorityHigh)}})
	apply(t, b, ev)
	got, _ := b.Get("TASK-002")
	if !slices.Equal(got.DependsOn, []string{"TASK-001"}) || got.Priority != PriorityHigh || got.Revision != 2 || got.Hash != ev.Hash || got.Seq != ev.Seq {
		t.Fatalf("after the dependency change: %+v", got)
	}
	if task, rel, ok := b.Revisions("TASK-002"); !ok || task != 1 || rel != 1 {
		t.Fatalf("Revisions = %d, %d, %v; want 1, 1, true", task, rel, ok)
	}
	up := l.AppendValue(t, "task:TASK-002", TypeUpdated, Updated{Patch: Patch{Status: ptr(StatusDone)}})
	apply(t, b, up)
	if got, _ := b.Get("TASK-002"); got.Revision != 3 || got.Hash != up.Hash {
		t.Fatalf("after an update of its own stream: revision %d hash %s, want 3 %s", got.Revision, got.Hash, up.Hash)
	}
	for _, bad := range []RelationsUpdated{
		{TaskID: "TASK-404", Patch: Patch{DependsOn: &[]string{}}},
		{TaskID: "TASK-001", Patch: Patch{Title: ptr("no relation in it")}},
		{TaskID: "TASK-001", Patch: Patch{Parent: ptr("nope")}},
	} {
		before, _ := b.Get("TASK-001")
		ev := l.AppendValue(t, RelationsStream, TypeRelationsUpdated, bad)
		if err := b.Apply(ev); err == nil {
			t.Fatalf("Apply accepted %+v", bad)
		}
		after, _ := b.Get("TASK-001")
		if after.Title != before.Title || after.Parent != before.Parent {
			t.Fatalf("%+v changed the task: %+v", bad, after)
		}
		if _, rel, _ := b.Revisions("TASK-001"); rel != ev.Revision {
			t.Fatalf("relations revision %d, want the log's %d", rel, ev.Revision)
		}
	}
	snap, err := b.MarshalSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	restored := NewBoard()
	if err := restored.UnmarshalSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	if restored.StateHash() != b.StateHash() {
		t.Fatal("a restored snapshot hashes differently")
	}
	for _, id := range []string{"TASK-001", "TASK-002"} {
		t1, r1, _ := b.Revisions(id)
		t2, r2, _ := restored.Revisions(id)
		if t1 != t2 || r1 != r2 {
			t.Fatalf("%s: Revisions %d/%d after restore, want %d/%d", id, t2, r2, t1, r1)
		}
	}
}

// TestBoard_Snapshot_OldLogsUnchanged: a board folded from task streams
// only encodes without the dependency-change fields, so every log written
// before RelationsStream existed keeps its snapshot bytes and state hash
// (board.golden.json checks the tasks themselves).
func TestBoard_Snapshot_OldLogsUnchanged(t *testing.T) {
	l := new(testutil.FakeLog)
	boardScript(t, l)
	b := NewBoard()
	for _, ev := range l.Events {
		apply(t, b, ev)
	}
	snap, err := b.MarshalSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"relinks"`, `"relations_revision"`} {
		if strings.Contains(string(snap), key) {
			t.Errorf("snapshot of an old log holds %s", key)
		}
	}
}
