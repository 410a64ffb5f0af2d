package history

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
)

func extraction(t testing.TB, seq uint64, part int, uids ...string) eventlog.Event {
	t.Helper()
	p := graph.FileExtracted{Path: "big.go", Extractor: "go", Part: part}
	for _, u := range uids {
		p.Nodes = append(p.Nodes, graph.Node{UID: u, Kind: graph.KindFunction, Label: labelOf(u), Path: "big.go"})
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return eventlog.Event{Seq: seq, Time: time.Unix(int64(seq), 0), Stream: graph.Stream, Type: graph.TypeFileExtracted, Data: b}
}

// TestIndex_ExtractionInParts: an extraction split into parts is diffed
// as a whole against the previous one, also when a batch boundary falls
// between its parts.
func TestIndex_ExtractionInParts(t *testing.T) {
	x := New()
	x.Apply([]eventlog.Event{extraction(t, 1, 0, "code:function:big.go::a", "code:function:big.go::b"), extraction(t, 2, 1, "code:function:big.go::c")})
	x.Apply([]eventlog.Event{extraction(t, 3, 0, "code:function:big.go::a")})
	x.Apply([]eventlog.Event{extraction(t, 4, 1, "code:function:big.go::b", "code:function:big.go::d")})
	page := x.Query(Query{Kind: ByPath, Key: "big.go", Limit: 10})
	if len(page.Items) != 4 {
		t.Fatalf("%d items", len(page.Items))
	}
	if s := page.Items[3].Summary; !strings.Contains(s, "first extraction: 3 nodes (a, b, c)") {
		t.Errorf("first, in two parts: %q", s)
	}
	if s := page.Items[1].Summary; !strings.Contains(s, "-2 nodes (b, c)") {
		t.Errorf("second, part 0 settled at the batch end: %q", s)
	}
	if s := page.Items[0].Summary; !strings.Contains(s, "part 1") || !strings.Contains(s, "+2 nodes") {
		t.Errorf("its late part: %q", s)
	}
	if got := x.Query(Query{Kind: ByUID, Key: "code:function:big.go::c", Limit: 10}); len(got.Items) != 2 || got.Items[0].Seq != 3 || got.Items[1].Seq != 1 {
		t.Errorf("uid c: %+v", got.Items)
	}
	if got := x.Query(Query{Kind: ByUID, Key: "code:function:big.go::a", Limit: 10}); len(got.Items) != 1 {
		t.Errorf("uid a (unchanged after its first extraction): %+v", got.Items)
	}
	x.Apply([]eventlog.Event{extraction(t, 4, 0, "code:function:big.go::z")}) // delivered twice: ignored
	if x.count() != 4 || x.Seq() != 4 {
		t.Errorf("len %d seq %d after a repeated batch", x.count(), x.Seq())
	}
}

// TestIndex_EvidenceForATask: an evidence record with a task reference is
// in the task's history, its summary naming the reference's seq; a record
// without one is not.
func TestIndex_EvidenceForATask(t *testing.T) {
	ev := func(seq uint64, data string) eventlog.Event {
		return eventlog.Event{Seq: seq, Time: time.Unix(int64(seq), 0), Stream: "evidence:pm", Type: "evidence.discovery_recorded", Data: []byte(data)}
	}
	x := New()
	x.Apply([]eventlog.Event{
		{Seq: 1, Time: time.Unix(1, 0), Stream: "task:TASK-001", Type: "task.created", Data: []byte(`{"title":"t"}`)},
		ev(2, `{"output":{"summary":"x"},"task":{"task_id":"TASK-001","seq":1,"from":"derived","files":["a.go"],"symbols":["code:function:a.go::A","code:function:a.go::B"]}}`),
		ev(3, `{"output":{"summary":"y"}}`),
	})
	page := x.Query(Query{Kind: ByTask, Key: "TASK-001", Limit: 10})
	if len(page.Items) != 2 || page.Items[0].Seq != 2 {
		t.Fatalf("task history %+v", page.Items)
	}
	if s := page.Items[0].Summary; !strings.Contains(s, "for TASK-001 (its code at seq 1: 2 symbols)") {
		t.Errorf("summary %q", s)
	}
}
