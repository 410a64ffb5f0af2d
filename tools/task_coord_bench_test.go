package tools

import (
	"fmt"
	"testing"
)

// BenchmarkTaskCoord_Board50Active: a board page of 50 active tasks, each
// touching one of three files (so each overlaps about a third of them),
// with the overlap ids and change counts of every row (the page is
// shortened to the budget: each row lists about 16 ids).
func BenchmarkTaskCoord_Board50Active(b *testing.B) {
	root := idxWriteRepo(b, coordRepo)
	s := idxOpen(b, b.TempDir(), root)
	idxReport(b, s, `{}`)
	files := []string{"a.go", "b.go", "c.go"}
	for i := range 50 {
		createTask(b, s, fmt.Sprintf(`{"title":"t%d","touches":[%q]}`, i, files[i%3]))
	}
	b.ResetTimer()
	for b.Loop() {
		e := call(b, s, "cos_task_board", `{"limit":50}`)
		if !e.OK || len(e.Data["rows"].([]any)) == 0 {
			b.Fatalf("board: %+v", e.Error)
		}
		b.ReportMetric(float64(len(e.Data["rows"].([]any))), "rows")
	}
}
