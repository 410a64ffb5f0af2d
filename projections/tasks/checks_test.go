package tasks

import (
	"errors"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/internal/testutil"
)

// checkedBoard is a board of TASK-001 (free, status todo) and TASK-002
// (claimed by ann).
func checkedBoard(t *testing.T) *Board {
	t.Helper()
	l := new(testutil.FakeLog)
	b := NewBoard()
	apply(t, b, create(t, l, Created{Title: "free"}))
	apply(t, b, create(t, l, Created{Title: "held"}))
	apply(t, b, l.AppendValue(t, "task:TASK-002", TypeClaimed, Claimed{Assignee: "ann"}))
	return b
}

func TestBoard_CheckUpdate(t *testing.T) {
	b := checkedBoard(t)
	held, _ := b.Get("TASK-002")
	cases := []struct {
		name string
		u    UpdateCheck
		want error
	}{
		{"unknown task", UpdateCheck{ID: "TASK-009", Patch: Patch{Title: ptr("x")}}, ErrNotFound},
		{"stale base revision", UpdateCheck{ID: "TASK-002", Patch: Patch{Title: ptr("x")}, BaseRevision: held.Revision + 1}, eventlog.ErrStaleRevision},
		{"stale hash", UpdateCheck{ID: "TASK-002", Patch: Patch{Title: ptr("x")}, ExpectedHash: "00"}, eventlog.ErrStaleRevision},
		{"status of another's task", UpdateCheck{ID: "TASK-002", Patch: Patch{Status: ptr("done")}, Actor: "bob"}, ErrClaimed},
		{"status of another's task, forced", UpdateCheck{ID: "TASK-002", Patch: Patch{Status: ptr("done")}, Actor: "bob", Force: true}, nil},
		{"status by the holder", UpdateCheck{ID: "TASK-002", Patch: Patch{Status: ptr("done")}, Actor: "ann"}, nil},
		{"title of another's task", UpdateCheck{ID: "TASK-002", Patch: Patch{Title: ptr("x")}, BaseRevision: held.Revision, ExpectedHash: held.Hash}, nil},
		{"dependency on itself", UpdateCheck{ID: "TASK-001", Patch: Patch{DependsOn: ptr([]string{"TASK-001"})}}, ErrCycle},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rev, err := b.CheckUpdate(tc.u)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("CheckUpdate = %v, want allowed", err)
				}
				if taskRev, _, _ := b.Revisions(tc.u.ID); rev != taskRev {
					t.Fatalf("CheckUpdate revision %d, want the task stream's %d", rev, taskRev)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("CheckUpdate = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestBoard_ReleaseCheck(t *testing.T) {
	b := checkedBoard(t)
	if _, out, err := b.ReleaseCheck("TASK-002", "ann"); err != nil || out != ReleaseHeld {
		t.Errorf("release by the holder = %v, %v; want ReleaseHeld", out, err)
	}
	if _, out, err := b.ReleaseCheck("TASK-001", "ann"); err != nil || out != ReleaseUnclaimed {
		t.Errorf("release of a free task = %v, %v; want ReleaseUnclaimed", out, err)
	}
	var ce *ClaimedError
	if _, _, err := b.ReleaseCheck("TASK-002", "bob"); !errors.As(err, &ce) || ce.Holder != "ann" {
		t.Errorf("release by another = %v, want a ClaimedError naming ann", err)
	}
	if _, _, err := b.ReleaseCheck("TASK-009", "ann"); !errors.Is(err, ErrNotFound) {
		t.Errorf("release of an unknown task = %v, want ErrNotFound", err)
	}
}

// TestCheckUpdate_TouchesOfAClaimedTask: the touches of a task someone
// holds are the holder's plan: another agent changes them only with
// force; the holder, or the same touches again, passes.
func TestCheckUpdate_TouchesOfAClaimedTask(t *testing.T) {
	l := new(testutil.FakeLog)
	b := NewBoard()
	apply(t, b, create(t, l, Created{Title: "one", Touches: []string{"a.go"}}))
	apply(t, b, l.AppendValue(t, "task:TASK-001", TypeClaimed, Claimed{Assignee: "ann"}))
	other := &[]string{"b.go"}
	var ce *ClaimedError
	if _, err := b.CheckUpdate(UpdateCheck{ID: "TASK-001", Patch: Patch{Touches: other}, Actor: "bob"}); !errors.As(err, &ce) || ce.Holder != "ann" {
		t.Errorf("touches changed by another = %v, want a ClaimedError naming ann", err)
	}
	for _, u := range []UpdateCheck{
		{ID: "TASK-001", Patch: Patch{Touches: other}, Actor: "ann"},
		{ID: "TASK-001", Patch: Patch{Touches: other}, Actor: "bob", Force: true},
		{ID: "TASK-001", Patch: Patch{Touches: &[]string{"a.go"}}, Actor: "bob"},
	} {
		if _, err := b.CheckUpdate(u); err != nil {
			t.Errorf("%+v: %v, want allowed", u, err)
		}
	}
}
