package query

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/internal/graphtest"
	"github.com/cos-dev/cos/projections/tasks"
	"github.com/cos-dev/cos/state"
)

// coordRepo: Shared is called by UseShared, which Handler calls; Lonely
// stands apart.
var coordRepo = map[string]string{
	"go.mod":         "module example.com/m\n\ngo 1.22\n",
	"core/core.go":   "package core\n\nfunc Shared() int {\n\treturn 1\n}\n\nfunc Helper() int {\n\treturn 2\n}\n",
	"svc/svc.go":     "package svc\n\nimport \"example.com/m/core\"\n\nfunc UseShared() int {\n\treturn core.Shared() + 1\n}\n",
	"api/api.go":     "package api\n\nimport \"example.com/m/svc\"\n\nfunc Handler() int {\n\treturn svc.UseShared() * 2\n}\n",
	"other/other.go": "package other\n\nfunc Lonely() int {\n\treturn 7\n}\n",
}

// coordEnv is a real state (bbolt log in a temp folder) with the repo
// indexed by the real indexer.
type coordEnv struct {
	t    *testing.T
	st   *state.State
	ix   *indexing.Indexer
	root string
}

func newCoordEnv(t *testing.T) *coordEnv {
	t.Helper()
	ctx := context.Background()
	root := graphtest.WriteTree(t, coordRepo)
	st, err := state.Open(ctx, state.Options{Dir: t.TempDir(), NATS: bus.ModeOff, NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close(context.Background()) })
	ix, err := indexing.New(st, indexing.Options{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	e := &coordEnv{t: t, st: st, ix: ix, root: root}
	e.index()
	return e
}

func (e *coordEnv) index() {
	e.t.Helper()
	ctx := context.Background()
	if _, err := e.ix.IndexWith(ctx, e.root, indexing.RunOptions{SnapshotMinBytes: -1}); err != nil {
		e.t.Fatal(err)
	}
	if err := e.st.WaitFor(ctx, e.head()); err != nil {
		e.t.Fatal(err)
	}
}

func (e *coordEnv) head() uint64 {
	e.t.Helper()
	var seq uint64
	if err := e.st.Log().Read(context.Background(), 1, func(ev eventlog.Event) error { seq = ev.Seq; return nil }); err != nil {
		e.t.Fatal(err)
	}
	return seq
}

// append appends one event and waits for the projections to see it.
func (e *coordEnv) append(req eventlog.AppendRequest) eventlog.Receipt {
	e.t.Helper()
	ctx := context.Background()
	rs, err := e.st.Append(ctx, req)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.st.WaitFor(ctx, rs[0].LastSeq); err != nil {
		e.t.Fatal(err)
	}
	return rs[0]
}

func (e *coordEnv) create(title string, touches ...string) string {
	e.t.Helper()
	p, err := tasks.CreatedPayload(tasks.Created{Title: title, Priority: tasks.DefaultPriority, Status: tasks.DefaultStatus, Touches: touches})
	if err != nil {
		e.t.Fatal(err)
	}
	r := e.append(eventlog.AppendRequest{StreamPrefix: tasks.StreamPrefix, Expect: eventlog.NoStream(), Events: []eventlog.Payload{p}})
	return strings.TrimPrefix(r.Stream, "task:")
}

// event appends a payload (as the tasks package builds one) to stream:
// e.event(stream)(tasks.ClaimedPayload("a")).
func (e *coordEnv) event(stream string) func(eventlog.Payload, error) eventlog.Receipt {
	return func(p eventlog.Payload, err error) eventlog.Receipt {
		e.t.Helper()
		if err != nil {
			e.t.Fatal(err)
		}
		return e.append(eventlog.AppendRequest{Stream: stream, Events: []eventlog.Payload{p}})
	}
}

// uid finds the uid of the function named label.
func (e *coordEnv) uid(label string) string {
	e.t.Helper()
	var uid string
	e.st.View(func(v state.View) {
		for _, n := range v.Graph.NodesByLabel(label) {
			if n.Kind == "function" {
				uid = n.UID
			}
		}
	})
	if uid == "" {
		e.t.Fatalf("no function %s in the graph", label)
	}
	return uid
}

func (e *coordEnv) write(rel, content string) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(e.root, filepath.FromSlash(rel)), []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func overlapOf(os []Overlap, id string) *Overlap {
	for i := range os {
		if os[i].TaskID == id {
			return &os[i]
		}
	}
	return nil
}

func TestCoord_Overlaps(t *testing.T) {
	e := newCoordEnv(t)
	shared, use, handler := e.uid("Shared"), e.uid("UseShared"), e.uid("Handler")
	core := e.create("Core", "core/core.go")
	same := e.create("Same", shared)
	caller := e.create("Caller", "svc/")
	dependent := e.create("Dependent", "api/*.go")
	lonely := e.create("Lonely", "other/**")
	done := e.create("Done", "core/")
	e.event(tasks.StreamOf(done))(tasks.UpdatedPayload(tasks.Patch{Status: ptrTo(tasks.StatusDone)}))
	ghost := e.create("Ghost", "code:function:nowhere.go::Ghost")

	ctx := context.Background()
	e.st.View(func(v state.View) {
		core0, _ := v.Board.Get(core)
		fp := FootprintSymbols(v.Graph, core0)
		if !slices.Equal(fp, []string{e.uid("Helper"), shared}) && !slices.Equal(fp, []string{shared, e.uid("Helper")}) {
			t.Fatalf("footprint of core/core.go = %v", fp)
		}
		g0, _ := v.Board.Get(ghost)
		if fp := FootprintSymbols(v.Graph, g0); !slices.Equal(fp, []string{"code:function:nowhere.go::Ghost"}) {
			t.Fatalf("a uid naming no node left the footprint: %v", fp)
		}

		got := Overlaps(ctx, v.Graph, v.Board, core)
		ids := make([]string, len(got))
		for i, o := range got {
			ids[i] = o.TaskID
		}
		// Closest first: same symbol, then the caller, then the dependent.
		if !slices.Equal(ids, []string{same, caller, dependent}) {
			t.Fatalf("overlaps of %s = %v, want %v", core, ids, []string{same, caller, dependent})
		}
		if o := got[0]; o.Closeness != CloseSameSymbol || o.Depth != 0 || o.Shared[0].UID != shared || o.Shared[0].Direction != DirSame {
			t.Errorf("same symbol overlap = %+v", o)
		}
		if o := got[1]; o.Closeness != CloseCaller || o.Depth != 1 || o.Shared[0].UID != use || o.Shared[0].Direction != DirTheirsOnYou || o.Shared[0].Of != shared {
			t.Errorf("caller overlap = %+v", o)
		}
		if o := got[2]; o.Closeness != CloseDependent || o.Depth != 2 || o.Shared[0].UID != handler || o.Shared[0].Of != shared {
			t.Errorf("dependent overlap = %+v", o)
		}
		// Seen from the other side: the caller depends on core's symbol.
		back := overlapOf(Overlaps(ctx, v.Graph, v.Board, caller), core)
		if back == nil || back.Shared[0].UID != use || back.Shared[0].Direction != DirYoursOnThem || back.Closeness != CloseCaller {
			t.Errorf("overlap of %s with %s = %+v", caller, core, back)
		}
		// The lonely task meets nobody; a done task takes no part.
		if o := Overlaps(ctx, v.Graph, v.Board, lonely); len(o) != 0 {
			t.Errorf("the disjoint task overlaps %+v", o)
		}
		if o := Overlaps(ctx, v.Graph, v.Board, done); len(o) != 0 {
			t.Errorf("a done task overlaps %+v", o)
		}
		for _, o := range got {
			if o.TaskID == done || o.TaskID == lonely {
				t.Errorf("%s overlaps %s", core, o.TaskID)
			}
		}
		m := OverlapIDs(ctx, v.Graph, v.Board)
		if !slices.Equal(m[core], []string{same, caller, dependent}) {
			t.Errorf("overlap ids of %s = %v", core, m[core])
		}
		if _, ok := m[lonely]; ok {
			t.Errorf("overlap ids name the disjoint task: %v", m[lonely])
		}
		if _, ok := m[done]; ok {
			t.Errorf("overlap ids name the done task")
		}
		// Handler calls UseShared: those two overlap as well.
		if !slices.Contains(m[dependent], caller) || !slices.Contains(m[caller], dependent) {
			t.Errorf("the handler calls UseShared, yet %s and %s do not overlap: %v", caller, dependent, m)
		}
	})
}

func ptrTo[T any](v T) *T { return &v }

func TestCoord_Notices(t *testing.T) {
	e := newCoordEnv(t)
	use := e.uid("UseShared")
	core := e.create("Core", "core/")
	lonely := e.create("Lonely", "other/other.go")
	other := e.create("Other work")
	e.event(tasks.StreamOf(core))(tasks.ClaimedPayload("agent-1"))
	ctx := context.Background()
	e.st.View(func(v state.View) {
		if n, total, _ := Notices(ctx, v.Graph, v.Board, core, 20); total != 0 {
			t.Fatalf("notices before any change: %+v", n)
		}
	})

	// Another agent edits the caller of Shared and the index sees it.
	e.write("svc/svc.go", strings.Replace(coordRepo["svc/svc.go"], "+ 1", "+ 10", 1))
	e.index()
	// And a third task's work tree comes to change UseShared.
	fp := e.event(tasks.FootprintStreamOf(other))(tasks.FootprintDerivedPayload(tasks.FootprintDerived{
		Assignee: "agent-3", Worktree: "wt3", Files: []string{"svc/svc.go"}, Symbols: []string{use}}))
	// A move that changes no body is no notice.
	e.write("other/other.go", strings.Replace(coordRepo["other/other.go"], "package other\n", "package other\n\n// moved\n", 1))
	e.index()

	e.st.View(func(v state.View) {
		list, total, dropped := Notices(ctx, v.Graph, v.Board, core, 20)
		if total != 2 || dropped || len(list) != 2 {
			t.Fatalf("notices of %s = %+v (total %d)", core, list, total)
		}
		task, idx := list[0], list[1]
		if task.Kind != NoticeTask || task.Seq != fp.LastSeq || task.TaskID != other || task.Changed[0].UID != use || task.Changed[0].Closeness != CloseCaller {
			t.Errorf("task notice = %+v", task)
		}
		if idx.Kind != NoticeIndex || idx.Path != "svc/svc.go" || idx.ChangedCount != 1 || idx.Changed[0].UID != use ||
			idx.Changed[0].Depth != 1 || idx.Changed[0].Closeness != CloseCaller {
			t.Errorf("index notice = %+v", idx)
		}
		if l, total, _ := Notices(ctx, v.Graph, v.Board, core, 1); len(l) != 1 || total != 2 || l[0].Seq != task.Seq {
			t.Errorf("limit 1: %+v of %d", l, total)
		}
		if l, _, _ := Notices(ctx, v.Graph, v.Board, lonely, 20); len(l) != 0 {
			t.Errorf("the disjoint task got notices: %+v", l)
		}
		chs, _ := v.Board.Changes(0)
		for _, c := range chs {
			if c.Path == "other/other.go" {
				t.Errorf("a move recorded as a change: %+v", c)
			}
		}
	})

	// A replay of the log from nothing gives the same notices.
	var want []Notice
	e.st.View(func(v state.View) { want, _, _ = Notices(ctx, v.Graph, v.Board, core, 20) })
	head := e.head()
	past, err := e.st.Past(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	defer past.Release()
	past.State().View(func(v state.View) {
		got, _, _ := Notices(ctx, v.Graph, v.Board, core, 20)
		if len(got) != len(want) || got[0].Seq != want[0].Seq || got[1].Seq != want[1].Seq {
			t.Errorf("replayed notices %+v, live %+v", got, want)
		}
	})
}
