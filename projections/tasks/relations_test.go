package tasks

import (
	"errors"
	"fmt"
	"slices"
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
