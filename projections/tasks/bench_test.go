package tasks

import (
	"encoding/json"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
)

func BenchmarkParseSignals(b *testing.B) {
	raw := json.RawMessage(`{"task_title": "Fix auth bug", "dimensions": 2, "complexity": "COMPLICATED", "domain": ["meta"], "scope_size": "small", "action": "debug", "urgency": "normal", "novelty": 0.3}`)
	for b.Loop() {
		if _, err := ParseSignals(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBoard_List_10k pages a 10,000-task board: first page and a
// continued page (the stale check scans the board).
func BenchmarkBoard_List_10k(b *testing.B) {
	l, board := boardOf(b, 10_000)
	_, next, err := board.List(Filter{Label: "x"}, "", 50, l.Seq)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := board.List(Filter{Label: "x"}, "", 50, l.Seq); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("continued", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := board.List(Filter{Label: "x"}, next, 50, l.Seq); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkBoard_Apply(b *testing.B) {
	l := new(testutil.FakeLog)
	board := NewBoard()
	apply(b, board, create(b, l, Created{Title: "one"}))
	ev := l.AppendValue(b, "task:TASK-001", TypeUpdated, Updated{Patch: Patch{Title: ptr("renamed")}})
	for b.Loop() {
		if err := board.Apply(ev); err != nil {
			b.Fatal(err)
		}
	}
}
