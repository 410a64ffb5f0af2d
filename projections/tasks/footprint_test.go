package tasks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/internal/testutil"
)

func mustGet(t *testing.T, b *Board, id string) Task {
	t.Helper()
	task, ok := b.Get(id)
	if !ok {
		t.Fatalf("%s not on the board", id)
	}
	return task
}

func TestBoard_TouchesAndClaimSeq(t *testing.T) {
	l := &testutil.FakeLog{}
	b := NewBoard()
	ev := create(t, l, Created{Title: "Auth", Touches: []string{"internal/auth/", "code:function:a.go::F"}})
	apply(t, b, ev)
	id := ev.Stream[len("task:"):]
	if got := mustGet(t, b, id).Touches; !slices.Equal(got, []string{"internal/auth/", "code:function:a.go::F"}) {
		t.Fatalf("touches after create: %v", got)
	}
	apply(t, b, l.AppendValue(t, ev.Stream, TypeUpdated, Updated{Patch: Patch{Touches: &[]string{"web/**/*.ts"}}}))
	if got := mustGet(t, b, id).Touches; !slices.Equal(got, []string{"web/**/*.ts"}) {
		t.Fatalf("touches after patch: %v", got)
	}
	claimed := l.AppendValue(t, ev.Stream, TypeClaimed, Claimed{Assignee: "a1"})
	apply(t, b, claimed)
	task := mustGet(t, b, id)
	if task.ClaimedSeq != claimed.Seq || !slices.Equal(task.Touches, []string{"web/**/*.ts"}) {
		t.Fatalf("a claim without touches: claimed_seq %d (want %d), touches %v", task.ClaimedSeq, claimed.Seq, task.Touches)
	}
	apply(t, b, l.AppendValue(t, ev.Stream, TypeReleased, Released{Assignee: "a1"}))
	if got := mustGet(t, b, id).ClaimedSeq; got != 0 {
		t.Fatalf("claimed_seq after release = %d, want 0", got)
	}
	claimed = l.AppendValue(t, ev.Stream, TypeClaimed, Claimed{Assignee: "a2", Touches: []string{"cmd/"}})
	apply(t, b, claimed)
	task = mustGet(t, b, id)
	if task.ClaimedSeq != claimed.Seq || !slices.Equal(task.Touches, []string{"cmd/"}) || task.Assignee != "a2" {
		t.Fatalf("a claim with touches: %+v", task)
	}
	// Relations patches carry touches too; [] clears.
	apply(t, b, l.AppendValue(t, RelationsStream, TypeRelationsUpdated, RelationsUpdated{TaskID: id, Patch: Patch{DependsOn: &[]string{}, Touches: &[]string{}}}))
	if got := mustGet(t, b, id).Touches; got != nil {
		t.Fatalf("touches after an empty patch: %v, want none", got)
	}
	// A reducer refuses an illegal touches entry and changes nothing else.
	bad := l.AppendValue(t, ev.Stream, TypeUpdated, Updated{Patch: Patch{Touches: &[]string{"../etc/passwd"}, Title: ptr("X")}})
	if err := b.Apply(bad); err == nil {
		t.Fatal("a patch with a .. path applied")
	}
	if got := mustGet(t, b, id); got.Title != "Auth" || got.Touches != nil {
		t.Fatalf("a refused patch changed the task: %+v", got)
	}
}

func derived(t *testing.T, l *testutil.FakeLog, id string, syms ...string) eventlog.Event {
	t.Helper()
	p, err := FootprintDerivedPayload(FootprintDerived{Assignee: "a1", Worktree: "feature", Symbols: syms, Files: []string{"a.go"}})
	if err != nil {
		t.Fatal(err)
	}
	return l.Append(t, FootprintStreamOf(id), p.Type, p.Data)
}

func TestBoard_FootprintDerived(t *testing.T) {
	l := &testutil.FakeLog{}
	b := NewBoard()
	ev := create(t, l, Created{Title: "Derived"})
	apply(t, b, ev)
	id := ev.Stream[len("task:"):]
	before := mustGet(t, b, id)
	if len(b.Active()) != 0 {
		t.Fatal("a task without touches or footprint is active")
	}

	e1 := derived(t, l, id, "code:function:a.go::A", "code:function:a.go::B")
	apply(t, b, e1)
	e2 := derived(t, l, id, "code:function:a.go::B", "code:function:a.go::C")
	apply(t, b, e2)
	task := mustGet(t, b, id)
	if task.Revision != before.Revision || task.Hash != before.Hash || task.Seq != before.Seq {
		t.Fatalf("a derived footprint moved the task's identity: rev %d→%d seq %d→%d", before.Revision, task.Revision, before.Seq, task.Seq)
	}
	f := task.Footprint
	if f == nil || f.Seq != e2.Seq || !slices.Equal(f.Symbols, []string{"code:function:a.go::B", "code:function:a.go::C"}) {
		t.Fatalf("footprint = %+v", f)
	}
	if f.Since["code:function:a.go::B"] != e1.Seq || f.Since["code:function:a.go::C"] != e2.Seq || len(f.Since) != 2 {
		t.Fatalf("since = %v, want B at %d and C at %d", f.Since, e1.Seq, e2.Seq)
	}
	// A symbol that leaves and comes back starts a new run.
	apply(t, b, derived(t, l, id, "code:function:a.go::C"))
	e4 := derived(t, l, id, "code:function:a.go::B", "code:function:a.go::C")
	apply(t, b, e4)
	f = mustGet(t, b, id).Footprint
	if f.Since["code:function:a.go::B"] != e4.Seq || f.Since["code:function:a.go::C"] != e2.Seq {
		t.Fatalf("since after B left and came back = %v", f.Since)
	}
	if got := b.Active(); len(got) != 1 || got[0].ID != id {
		t.Fatalf("active = %v, want %s", got, id)
	}
	// The board's copy is not shared with readers.
	got := mustGet(t, b, id)
	got.Footprint.Symbols[0] = "x"
	got.Footprint.Since["x"] = 1
	if mustGet(t, b, id).Footprint.Symbols[0] == "x" || mustGet(t, b, id).Footprint.Since["x"] == 1 {
		t.Fatal("Get shares the footprint with the board")
	}

	err := b.Apply(derived(t, l, "TASK-999", "code:function:a.go::A"))
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		t.Fatalf("a footprint of an unknown task: %v, want a NotFoundError", err)
	}
	apply(t, b, l.AppendValue(t, ev.Stream, TypeUpdated, Updated{Patch: Patch{Status: ptr(StatusDone)}}))
	if len(b.Active()) != 0 {
		t.Fatal("a done task is active")
	}
}

// changes is a ChangeSource that says what the test sets.
type changes struct {
	path string
	uids []string
}

func (c *changes) LastChangedSymbols() (string, []string) { return c.path, c.uids }

func graphEvent(t *testing.T, l *testutil.FakeLog, path string) eventlog.Event {
	return l.AppendValue(t, "graph:"+path, graph.TypeFileExtracted, graph.FileExtracted{Path: path, Extractor: "go"})
}

func TestBoard_ChangesOnlyWhileActive(t *testing.T) {
	l := &testutil.FakeLog{}
	b := NewBoard()
	src := &changes{path: "a.go", uids: []string{"code:function:a.go::A"}}
	b.UseGraph(src)
	apply(t, b, graphEvent(t, l, "a.go"))
	ev := create(t, l, Created{Title: "Not active"})
	apply(t, b, ev)
	apply(t, b, graphEvent(t, l, "a.go"))
	if c, _ := b.Changes(0); len(c) != 0 {
		t.Fatalf("changes recorded with no active task: %+v", c)
	}
	apply(t, b, l.AppendValue(t, ev.Stream, TypeUpdated, Updated{Patch: Patch{Touches: &[]string{"a.go"}}}))
	g1 := graphEvent(t, l, "a.go")
	apply(t, b, g1)
	src.uids = nil // an event that changed no symbol
	apply(t, b, graphEvent(t, l, "a.go"))
	src.uids = []string{"code:function:a.go::B"}
	g3 := graphEvent(t, l, "a.go")
	apply(t, b, g3)
	c, dropped := b.Changes(0)
	if dropped || len(c) != 2 || c[0].Seq != g1.Seq || c[1].Seq != g3.Seq || c[1].UIDs[0] != "code:function:a.go::B" || c[0].Path != "a.go" {
		t.Fatalf("changes = %+v (dropped %v)", c, dropped)
	}
	if c, _ := b.Changes(g1.Seq); len(c) != 1 || c[0].Seq != g3.Seq {
		t.Fatalf("changes since %d = %+v", g1.Seq, c)
	}
	apply(t, b, l.AppendValue(t, ev.Stream, TypeUpdated, Updated{Patch: Patch{Status: ptr(StatusCancelled)}}))
	apply(t, b, graphEvent(t, l, "a.go"))
	if c, _ := b.Changes(0); len(c) != 2 {
		t.Fatalf("a change recorded after the only active task was cancelled: %+v", c)
	}

	// The journal keeps the newest MaxSymbolChanges and says when older
	// ones were dropped.
	apply(t, b, l.AppendValue(t, ev.Stream, TypeUpdated, Updated{Patch: Patch{Status: ptr(StatusTodo)}}))
	var last eventlog.Event
	for range MaxSymbolChanges {
		last = graphEvent(t, l, "a.go")
		apply(t, b, last)
	}
	all, dropped := b.Changes(0)
	if len(all) != MaxSymbolChanges || !dropped || all[len(all)-1].Seq != last.Seq {
		t.Fatalf("journal of %d (dropped %v), want %d and dropped", len(all), dropped, MaxSymbolChanges)
	}
	if _, dropped := b.Changes(all[0].Seq - 1); dropped {
		t.Fatal("dropped set for a since no dropped record is after")
	}
}

func TestBoard_FootprintSnapshot(t *testing.T) {
	l := &testutil.FakeLog{}
	b := NewBoard()
	src := &changes{path: "a.go", uids: []string{"code:function:a.go::A"}}
	b.UseGraph(src)
	ev := create(t, l, Created{Title: "Plain"})
	apply(t, b, ev)
	plain, err := b.MarshalSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"touches", "footprint", "claimed_seq", "changes"} {
		if bytes.Contains(plain, []byte(`"`+key+`"`)) {
			t.Errorf("a board without footprints encodes %q: %s", key, plain)
		}
	}
	ev2 := create(t, l, Created{Title: "Touching", Touches: []string{"a.go"}})
	apply(t, b, ev2)
	apply(t, b, l.AppendValue(t, ev2.Stream, TypeClaimed, Claimed{Assignee: "a1"}))
	apply(t, b, derived(t, l, ev2.Stream[len("task:"):], "code:function:a.go::A"))
	apply(t, b, graphEvent(t, l, "a.go"))
	data, err := b.MarshalSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	r := NewBoard()
	r.UseGraph(src)
	if err := r.UnmarshalSnapshot(data); err != nil {
		t.Fatal(err)
	}
	if r.StateHash() != b.StateHash() {
		t.Fatal("the restored board hashes differently")
	}
	if c, _ := r.Changes(0); len(c) != 1 {
		t.Fatalf("restored changes = %+v", c)
	}
	// The restored board goes on recording, and so does the original.
	g := graphEvent(t, l, "a.go")
	apply(t, b, g)
	apply(t, r, g)
	if r.StateHash() != b.StateHash() {
		t.Fatal("the boards differ after one more graph event")
	}

	// A snapshot from before claims recorded their seq is refused (the
	// board is rebuilt from the log).
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	for _, e := range s["tasks"].([]any) {
		delete(e.(map[string]any)["task"].(map[string]any), "claimed_seq")
	}
	old, _ := json.Marshal(s)
	if err := NewBoard().UnmarshalSnapshot(old); err == nil || !strings.Contains(err.Error(), "claimed_seq") {
		t.Fatalf("an old snapshot with a claimed task: %v", err)
	}
}

func TestParseTouches(t *testing.T) {
	c, err := ParseCreate(json.RawMessage(`{"title": "T", "touches": ["internal/auth/", "web/**/*.ts", "code:function:a/b.go::F", " x.go "]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Touches, []string{"internal/auth/", "web/**/*.ts", "code:function:a/b.go::F", "x.go"}) {
		t.Fatalf("touches = %v", c.Touches)
	}
	p, err := ParsePatch(json.RawMessage(`{"touches": []}`))
	if err != nil || p.Touches == nil || len(*p.Touches) != 0 || p.isEmpty() {
		t.Fatalf("patch touches [] = %v, %v", p.Touches, err)
	}
	if _, err := ParsePatch(json.RawMessage(`{"touches": null}`)); err != nil {
		t.Fatalf("patch touches null: %v", err)
	}
	many := make([]string, MaxTouches+1)
	for i := range many {
		many[i] = fmt.Sprintf("f%d.go", i)
	}
	manyJSON, _ := json.Marshal(many)
	for _, bad := range []string{`"a.go"`, `[1]`, `[""]`, `["/etc/passwd"]`, `["a/../b"]`, `["a/[b"]`, `["C:\\x"]`,
		`["` + strings.Repeat("a", MaxTouchLen+1) + `"]`, string(manyJSON)} {
		_, err := ParseTouches(json.RawMessage(bad))
		var ae *ArgumentError
		if !errors.As(err, &ae) || ae.Fields[0].Field != "touches" || ae.Fields[0].Example == "" {
			t.Errorf("touches %.40s: %v, want an argument error on touches with an example", bad, err)
		}
		if _, err := ParseCreate(json.RawMessage(`{"title": "T", "touches": ` + bad + `}`)); err == nil {
			t.Errorf("create with touches %.40s accepted", bad)
		}
	}
}

func TestMatchTouch(t *testing.T) {
	for _, c := range []struct {
		touch, path string
		want        bool
	}{
		{"internal/auth", "internal/auth/login.go", true},
		{"internal/auth/", "internal/auth/x/y.go", true},
		{"internal/auth", "internal/authz/a.go", false},
		{"a.go", "a.go", true},
		{"*.go", "a.go", true},
		{"*.go", "x/a.go", false},
		{"**/*.go", "x/y/a.go", true},
		{"**/*.go", "a.go", true},
		{"web/**/*.ts", "web/a.ts", true},
		{"web/**/*.ts", "web/x/y/a.ts", true},
		{"web/**/*.ts", "api/a.ts", false},
		{"code:function:a.go::F", "a.go", false},
	} {
		if got := MatchTouch(c.touch, c.path); got != c.want {
			t.Errorf("MatchTouch(%q, %q) = %v, want %v", c.touch, c.path, got, c.want)
		}
	}
}

// An entry written "./a.go" or "a//b/" names what "a.go" and "a/b/" name:
// it is stored cleaned, so it matches the graph's paths; a glob that ends
// in '/' names no file and is refused, as is a '\' (named as such).
func TestParseTouches_Cleaned(t *testing.T) {
	got, err := ParseTouches(json.RawMessage(`["./command.go", "a//b/", "./", "./*.go", "x/./y.go", "command.go", "code:function:./a.go::F"]`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"command.go", "a/b/", ".", "*.go", "x/y.go", "code:function:./a.go::F"}
	if !slices.Equal(got, want) {
		t.Fatalf("touches = %q, want %q", got, want)
	}
	if !MatchTouch(got[0], "command.go") {
		t.Fatalf("%q does not match command.go", got[0])
	}
	for bad, why := range map[string]string{`["**/"]`: "trailing '/'", `["a\\b.go"]`: `'\' is not a separator`} {
		_, err := ParseTouches(json.RawMessage(bad))
		var ae *ArgumentError
		if !errors.As(err, &ae) || !strings.Contains(ae.Fields[0].Hint, why) {
			t.Errorf("touches %s: %v, want a hint naming %s", bad, err, why)
		}
	}
}
