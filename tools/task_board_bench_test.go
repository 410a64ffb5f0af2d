package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections/tasks"
)

// boardSharedTasks is how many open tasks BenchmarkBoard_SharedTouches
// seeds, all touching net/http's server.go.
const boardSharedTasks = 260

// netHTTPCopy copies the non-test Go files of $(go env GOROOT)/src/net/http
// (its top folder only) into a new folder and returns it; it skips tb when
// there is no GOROOT source.
func netHTTPCopy(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Skipf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src", "net", "http")
	ents, err := os.ReadDir(src)
	if err != nil {
		tb.Skipf("no net/http source: %v", err)
	}
	dst := tb.TempDir()
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dst, "go.mod"), []byte("module example.com/http\n\ngo 1.24\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	return dst
}

// seedSharedTasks appends n active task.created events touching touches
// straight to the log and waits until the projections hold them.
func seedSharedTasks(tb testing.TB, s *testServer, n int, touches ...string) {
	tb.Helper()
	ctx := context.Background()
	active := []string{tasks.StatusTodo, tasks.StatusInProgress, tasks.StatusBlocked, tasks.StatusReview}
	reqs := make([]eventlog.AppendRequest, 0, n)
	for i := range n {
		p, err := tasks.CreatedPayload(tasks.Created{Title: fmt.Sprintf("shared task %d", i), Priority: tasks.DefaultPriority,
			Status: active[i%len(active)], Touches: touches})
		if err != nil {
			tb.Fatal(err)
		}
		reqs = append(reqs, eventlog.AppendRequest{StreamPrefix: tasks.StreamPrefix, Expect: eventlog.NoStream(),
			Events: []eventlog.Payload{p}})
	}
	recs, err := s.st.Append(ctx, reqs...)
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.st.WaitFor(ctx, recs[len(recs)-1].LastSeq); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkBoard_SharedTouches: 260 open tasks that all touch server.go of
// a copy of net/http (about 195 symbols each, so every task overlaps every
// other). "limit-1" and "no-match" are one call each at an unchanged seq;
// "columns-6x50" is a Hub page load: the six status columns at limit 50;
// "new-seq" appends an event before each call, so nothing computed at the
// previous seq is reused.
func BenchmarkBoard_SharedTouches(b *testing.B) {
	root := netHTTPCopy(b)
	s := idxOpen(b, b.TempDir(), root)
	idxReport(b, s, `{}`)
	seedSharedTasks(b, s, boardSharedTasks, "server.go")
	board := func(b *testing.B, args string) envOf {
		e := call(b, s, "cos_task_board", args)
		if !e.OK {
			b.Fatalf("board %s: %+v", args, e.Error)
		}
		return e
	}
	if rows := board(b, `{"limit":1}`).Data["rows"].([]any); len(rows[0].(map[string]any)["overlaps"].([]any)) != boardSharedTasks-1 {
		b.Fatalf("a row overlaps %d tasks, want %d", len(rows[0].(map[string]any)["overlaps"].([]any)), boardSharedTasks-1)
	}
	b.Run("limit-1", func(b *testing.B) {
		for b.Loop() {
			board(b, `{"limit":1}`)
		}
	})
	b.Run("no-match", func(b *testing.B) {
		for b.Loop() {
			board(b, `{"query":"zzz-no-such-task"}`)
		}
	})
	b.Run("columns-6x50", func(b *testing.B) {
		for b.Loop() {
			for _, st := range tasks.Statuses {
				board(b, fmt.Sprintf(`{"status":[%q],"limit":50}`, st))
			}
		}
	})
	b.Run("new-seq", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			seedSharedTasks(b, s, 1, "no/such/path.go")
			b.StartTimer()
			board(b, `{"limit":50}`)
		}
	})
}

// BenchmarkBoard_DistinctTouches: 260 open tasks, each touching one Go file
// of a copy of net/http (the files in turn), so footprints differ and
// overlap by reach. "new-seq" appends an event before each call (nothing
// computed before is reused); "columns-6x50" is a Hub page load at one seq.
func BenchmarkBoard_DistinctTouches(b *testing.B) {
	root := netHTTPCopy(b)
	s := idxOpen(b, b.TempDir(), root)
	idxReport(b, s, `{}`)
	ents, err := os.ReadDir(root)
	if err != nil {
		b.Fatal(err)
	}
	var files []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".go") {
			files = append(files, e.Name())
		}
	}
	for i := range boardSharedTasks {
		seedSharedTasks(b, s, 1, files[i%len(files)])
	}
	board := func(b *testing.B, args string) {
		if e := call(b, s, "cos_task_board", args); !e.OK {
			b.Fatalf("board %s: %+v", args, e.Error)
		}
	}
	b.Run("new-seq", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			seedSharedTasks(b, s, 1, "no/such/path.go")
			b.StartTimer()
			board(b, `{"limit":50}`)
		}
	})
	b.Run("columns-6x50", func(b *testing.B) {
		for b.Loop() {
			for _, st := range tasks.Statuses {
				board(b, fmt.Sprintf(`{"status":[%q],"limit":50}`, st))
			}
		}
	})
}
