package tasks

import (
	"path/filepath"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/internal/testutil"
)

// The reducer tests stamp events with testutil.FakeLog, deterministically;
// the real log is used where concurrency matters (claim_test.go).

// create appends a task.created event to the next allocated TASK stream,
// with the defaults task_create applies.
func create(t testing.TB, l *testutil.FakeLog, c Created) eventlog.Event {
	t.Helper()
	if c.Priority == "" {
		c.Priority = DefaultPriority
	}
	if c.Status == "" {
		c.Status = DefaultStatus
	}
	return l.AppendValue(t, l.Allocate(StreamPrefix), TypeCreated, c)
}

// apply folds ev and fails the test on a reducer error.
func apply(t testing.TB, b *Board, ev eventlog.Event) {
	t.Helper()
	if err := b.Apply(ev); err != nil {
		t.Fatalf("apply %s %s: %v", ev.Stream, ev.Type, err)
	}
}

// checkGolden compares got with testdata/name, rewriting it under -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", name), got)
}

func ptr[T any](v T) *T { return &v }
