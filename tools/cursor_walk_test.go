package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cos-dev/cos/envelope"
)

// A walk over a paged listing reads every later page at its first page's
// log seq, whatever others write meanwhile: it always finishes, lists each
// item once, and agrees with the listing read with `at` at that seq.

// callAny is call for any goroutine: no t.Fatal.
func callAny(ctx context.Context, s *testServer, tool, args string) (envOf, error) {
	var e envOf
	err := json.Unmarshal(s.Call(ctx, tool, json.RawMessage(args)).JSON(), &e)
	return e, err
}

// walkStats counts what the walks of a test saw.
type walkStats struct {
	walks, pages, pastPages int
	maxSince                float64
}

// walkAll pages tool with args (a JSON object without its braces, "" for
// none) from the first page to the last, pausing between pages, and
// returns the rows of list and the walk's seq. Every page must be ok and
// name the same walk_log_seq.
func walkAll(t *testing.T, s *testServer, tool, list, args string, pause time.Duration, st *walkStats) ([]any, float64) {
	t.Helper()
	var (
		rows    []any
		walkSeq float64
		cursor  string
	)
	sep := ""
	if args != "" {
		sep = ", "
	}
	for page := 0; ; page++ {
		a := "{" + args + "}"
		if cursor != "" {
			a = "{" + args + sep + `"cursor": "` + cursor + `"}`
		}
		e := okEnv(t, call(t, s, tool, a), fmt.Sprintf("%s page %d of %s", tool, page, a))
		st.pages++
		m := graphMeta(e)
		if page == 0 {
			walkSeq = e.Data["walk_log_seq"].(float64)
		} else if e.Data["walk_log_seq"] != walkSeq {
			t.Fatalf("%s page %d: walk_log_seq %v, the first page's %v", tool, page, e.Data["walk_log_seq"], walkSeq)
		}
		if at, ok := m["at_seq"]; ok {
			if at != walkSeq {
				t.Fatalf("%s page %d: at_seq %v, walk_log_seq %v", tool, page, at, walkSeq)
			}
			st.pastPages++
		}
		if n, _ := m["events_since_walk"].(float64); n > st.maxSince {
			st.maxSince = n
		}
		rows = append(rows, e.Data[list].([]any)...)
		if cursor, _ = e.Data["next_cursor"].(string); cursor == "" {
			break
		}
		if page > 1000 {
			t.Fatalf("%s: the walk does not end", tool)
		}
		time.Sleep(pause)
	}
	st.walks++
	return rows, walkSeq
}

// keysOf returns field of every row, failing on a repeat.
func keysOf(t *testing.T, rows []any, field string) []string {
	t.Helper()
	var keys []string
	seen := map[string]bool{}
	for _, r := range rows {
		k := fmt.Sprint(r.(map[string]any)[field])
		if seen[k] {
			t.Fatalf("%s %s listed twice in one walk", field, k)
		}
		seen[k] = true
		keys = append(keys, k)
	}
	return keys
}

func TestCursorWalk_BoardWhileFourWritersUpdate(t *testing.T) {
	s := openServer(t, "")
	const n = 30
	for i := range n {
		createTask(t, s, fmt.Sprintf(`{"title": "t%02d", "labels": ["hot"]}`, i))
	}
	ctx, stop := context.WithCancel(context.Background())
	var (
		wg     sync.WaitGroup
		writes atomic.Int64
	)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("TASK-%03d", 1+w*8) // on different pages
			for k := 0; ctx.Err() == nil; k++ {
				labels := []string{`[]`, `["hot"]`}[k%2] // in and out of the label filter
				e, err := callAny(ctx, s, "cos_task_update", fmt.Sprintf(`{"task_id": %q, "patch": {"title": "w%d-%d", "labels": %s}}`, id, w, k, labels))
				if err != nil || (!e.OK && ctx.Err() == nil) {
					t.Errorf("writer %d: %v %s %s", w, err, e.Error.Code, e.Error.Message)
					return
				}
				writes.Add(1)
				time.Sleep(50 * time.Millisecond)
			}
		}()
	}
	defer func() { stop(); wg.Wait() }() // also when a check fails
	var st walkStats
	for _, limit := range []int{2, 3, 7, 20} {
		for _, filter := range []string{"", `"label": "hot", `} {
			args := fmt.Sprintf(`%s"limit": %d`, filter, limit)
			rows, seq := walkAll(t, s, "cos_task_board", "rows", args, 10*time.Millisecond, &st)
			got := keysOf(t, rows, "task_id")
			want := okEnv(t, call(t, s, "cos_task_board", fmt.Sprintf(`{%s"limit": 200, "at": %d}`, filter, int64(seq))), "board at the walk's seq")
			wantRows := want.Data["rows"].([]any)
			if !slices.Equal(got, keysOf(t, wantRows, "task_id")) {
				t.Fatalf("walk %s at seq %v listed %v, the board at that seq %v", args, seq, got, keysOf(t, wantRows, "task_id"))
			}
			for i := range rows {
				if graphJSON(t, rows[i]) != graphJSON(t, wantRows[i]) {
					t.Fatalf("walk %s: row %d is %s, at seq %v it was %s", args, i, graphJSON(t, rows[i]), seq, graphJSON(t, wantRows[i]))
				}
			}
			if filter == "" && len(got) != n {
				t.Fatalf("walk %s listed %d tasks, want %d", args, len(got), n)
			}
		}
	}
	stop()
	wg.Wait()
	t.Logf("%d walks, %d pages (%d read at the walk's seq), %d writes, events_since_walk up to %v", st.walks, st.pages, st.pastPages, writes.Load(), st.maxSince)
	if st.pastPages == 0 || st.maxSince == 0 {
		t.Fatalf("no page was read at a past seq (%d writes): the test proves nothing", writes.Load())
	}
}

// TestCursorWalk_ReferencesWhileAFileIsReindexed pages the callers of a Go
// function with limit 2 while another goroutine rewrites a calling file
// and re-indexes it.
func TestCursorWalk_ReferencesWhileAFileIsReindexed(t *testing.T) {
	files := map[string]string{
		"go.mod":      "module example.com/w\n\ngo 1.22\n",
		"lib/lib.go":  "package lib\n\n// Target is called from many places.\nfunc Target() int { return 1 }\n",
		"use/live.go": "package use\n\nimport \"example.com/w/lib\"\n\nfunc Live0() int { return lib.Target() }\n",
	}
	for i := range 12 {
		files[fmt.Sprintf("use/c%02d.go", i)] = fmt.Sprintf("package use\n\nimport \"example.com/w/lib\"\n\nfunc C%02d() int { return lib.Target() }\n", i)
	}
	root := idxWriteRepo(t, files)
	s := idxOpen(t, t.TempDir(), root)
	idxReport(t, s, `{}`)
	const uid = "code:function:lib/lib.go::Target"

	ctx, stop := context.WithCancel(context.Background())
	var (
		wg       sync.WaitGroup
		reindexd atomic.Int64
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k := 1; ctx.Err() == nil; k++ {
			// live.go's callers come and go: k of them, then none.
			var b strings.Builder
			b.WriteString("package use\n\nimport \"example.com/w/lib\"\n\n")
			for j := range k % 4 {
				fmt.Fprintf(&b, "func Live%d() int { return lib.Target() }\n", j)
			}
			if err := os.WriteFile(filepath.Join(root, "use", "live.go"), []byte(b.String()), 0o644); err != nil {
				t.Error(err)
				return
			}
			e, err := callAny(ctx, s, "cos_graph_index", `{}`)
			if err != nil || (!e.OK && ctx.Err() == nil) {
				t.Errorf("re-index: %v %s %s", err, e.Error.Code, e.Error.Message)
				return
			}
			reindexd.Add(1)
			time.Sleep(50 * time.Millisecond)
		}
	}()
	defer func() { stop(); wg.Wait() }() // also when a check fails
	var st walkStats
	deadline := time.Now().Add(20 * time.Second)
	for round := 0; round < 3 || (st.pastPages == 0 && time.Now().Before(deadline)); round++ {
		rows, seq := walkAll(t, s, "cos_graph_references", "references", fmt.Sprintf(`"uid": %q, "limit": 2`, uid), 20*time.Millisecond, &st)
		got := keysOf(t, rows, "source")
		want := okEnv(t, call(t, s, "cos_graph_references", fmt.Sprintf(`{"uid": %q, "limit": 1000, "at": %d}`, uid, int64(seq))), "references at the walk's seq")
		if w := keysOf(t, want.Data["references"].([]any), "source"); !slices.Equal(got, w) {
			t.Fatalf("walk at seq %v listed %v, the graph at that seq %v", seq, got, w)
		}
		if len(got) < 12 {
			t.Fatalf("walk at seq %v listed %d callers, want ≥ 12: %v", seq, len(got), got)
		}
	}
	stop()
	wg.Wait()
	t.Logf("%d walks, %d pages (%d read at the walk's seq), %d re-indexes, events_since_walk up to %v", st.walks, st.pages, st.pastPages, reindexd.Load(), st.maxSince)
	if st.pastPages == 0 {
		t.Fatalf("no page was read at a past seq (%d re-indexes): the test proves nothing", reindexd.Load())
	}
}

// BenchmarkCursorPage serves the second page of a walk live (nothing
// moved since its seq) and from the walk's seq (the data moved: the
// Runner's live try fails, then the cached past view answers).
func BenchmarkCursorPage(b *testing.B) {
	for _, tc := range []struct {
		name, tool, args string
		open             func(b *testing.B) (*testServer, func())
	}{
		{"board", "cos_task_board", `"limit": 20`, func(b *testing.B) (*testServer, func()) {
			s := openServer(b, "")
			for i := range 200 {
				createTask(b, s, fmt.Sprintf(`{"title": "t%03d"}`, i))
			}
			return s, func() {
				okEnv(b, call(b, s, "cos_task_update", `{"task_id": "TASK-001", "patch": {"title": "moved"}}`), "move")
			}
		}},
		{"references", "cos_graph_references", `"uid": "code:function:hub.go::Hub", "limit": 20`, func(b *testing.B) (*testServer, func()) {
			r := openHub(b, 500, envelope.Options{})
			return r.s, func() {
				graphOK(b, r.s, "cos_graph_upsert", `{"nodes": [{"uid": "code:function:other.go::Other", "kind": "function", "label": "Other", "path": "other.go"}]}`)
			}
		}},
	} {
		for _, moved := range []bool{false, true} {
			name := tc.name + "/live"
			if moved {
				name = tc.name + "/past"
			}
			b.Run(name, func(b *testing.B) {
				s, move := tc.open(b)
				first := okEnv(b, call(b, s, tc.tool, "{"+tc.args+"}"), "first page")
				next := "{" + tc.args + `, "cursor": "` + first.Data["next_cursor"].(string) + `"}`
				if moved {
					move()
				}
				e := okEnv(b, call(b, s, tc.tool, next), "second page")
				if _, past := graphMeta(e)["at_seq"]; past != moved {
					b.Fatalf("moved %v, meta %v", moved, graphMeta(e))
				}
				n := 0
				for b.Loop() {
					n++
					if env := s.Call(context.Background(), tc.tool, json.RawMessage(next)); !env.OK() {
						b.Fatalf("%s", env.JSON())
					}
				}
				b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "pages/s")
			})
		}
	}
}
