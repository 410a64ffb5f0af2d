package evidence

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
)

// refScript records, for two tasks, references the bundle must keep: the
// latest per task, in the entries as recorded.
func refScript(t testing.TB, l *testutil.FakeLog) {
	t.Helper()
	l.Append(t, "task:TASK-001", "task.created", []byte(`{"title":"not evidence"}`))
	reg := DefaultRegistry()
	add := func(kind, role, out string, ref *TaskRef) {
		stream, p, err := reg.PrepareFor("pm", kind, role, json.RawMessage(out), ref)
		if err != nil {
			t.Fatal(err)
		}
		l.Append(t, stream, p.Type, p.Data)
	}
	add("", RoleImplementer, `{"summary": "lexer", "files": ["lex.go"]}`,
		&TaskRef{TaskID: "TASK-001", Seq: 1, From: FromDerived, Files: []string{"lex.go"}, Symbols: []string{"code:function:lex.go:Lex"}})
	add(KindDiscovery, "", `{"summary": "no ref"}`, nil)
	add(KindBacktrack, "", `{"reason": "again"}`,
		&TaskRef{TaskID: "TASK-001", Seq: 3, From: FromTouches, Files: []string{}, Symbols: []string{}})
	add("", RoleTester, `{"passed": 1, "failed": 0}`,
		&TaskRef{TaskID: "TASK-002", Seq: 4, Assignee: "bo", From: FromTouches, Files: []string{}, Symbols: []string{"code:type:t.go:T"}})
}

func TestBundles_TaskReferences(t *testing.T) {
	l := new(testutil.FakeLog)
	refScript(t, l)
	p := NewBundles()
	for _, ev := range l.Events {
		if err := p.Apply(ev); err != nil {
			t.Fatalf("seq %d: %v", ev.Seq, err)
		}
	}
	b, err := p.Get("pm")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Tasks) != 2 || b.Tasks["TASK-001"].Seq != 3 || b.Tasks["TASK-001"].From != FromTouches || b.Tasks["TASK-002"].Assignee != "bo" {
		t.Fatalf("tasks %+v: want the latest reference per task", b.Tasks)
	}
	if r := b.Roles[RoleImplementer][0].Task; r == nil || r.Seq != 1 || r.Symbols[0] != "code:function:lex.go:Lex" {
		t.Fatalf("implementer entry %+v", r)
	}
	if b.Discoveries[0].Task != nil || b.TaskAt(b.Discoveries[0].Seq) != nil {
		t.Fatal("a record without a reference has one")
	}
	if r := b.TaskAt(b.Backtracks[0].Seq); r == nil || r.Seq != 3 {
		t.Fatalf("TaskAt(backtrack) = %+v", r)
	}
	// Copies never share the projection's slices.
	b.Tasks["TASK-002"].Symbols[0] = "changed"
	b.Roles[RoleImplementer][0].Task.Symbols[0] = "changed"
	again, _ := p.Get("pm")
	if again.Tasks["TASK-002"].Symbols[0] == "changed" || again.Roles[RoleImplementer][0].Task.Symbols[0] == "changed" {
		t.Fatal("Get shares the reducer's references")
	}

	// Snapshot + tail equals applying all, at every cut.
	for k := 0; k <= len(l.Events); k++ {
		whole, head := NewBundles(), NewBundles()
		for i, ev := range l.Events {
			_ = whole.Apply(ev)
			if i < k {
				_ = head.Apply(ev)
			}
		}
		snap, err := head.MarshalSnapshot()
		if err != nil {
			t.Fatal(err)
		}
		restored := NewBundles()
		if err := restored.UnmarshalSnapshot(snap); err != nil {
			t.Fatal(err)
		}
		for _, ev := range l.Events[k:] {
			_ = restored.Apply(ev)
		}
		if restored.StateHash() != whole.StateHash() {
			t.Fatalf("k=%d: snapshot + tail differs from applying all", k)
		}
	}
}

// TestBundles_NoReferenceEncodesAsBefore: a bundle whose records name no
// task has no "tasks" key, so old logs hash as they did.
func TestBundles_NoReferenceEncodesAsBefore(t *testing.T) {
	l := new(testutil.FakeLog)
	bundleScript(t, l)
	p := NewBundles()
	for _, ev := range l.Events {
		_ = p.Apply(ev)
	}
	snap, err := p.MarshalSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(snap), `"tasks"`) || strings.Contains(string(snap), `"task"`) {
		t.Fatalf("snapshot without references mentions tasks: %s", snap)
	}
}

func TestBundles_Apply_InvalidReference(t *testing.T) {
	for _, tc := range []struct{ name, ref string }{
		{"no task id", `{"task_id": "", "seq": 1, "from": "touches", "files": [], "symbols": []}`},
		{"task id too long", `{"task_id": "TASK-` + strings.Repeat("1", MaxRefTaskID) + `", "seq": 1, "from": "touches", "files": [], "symbols": []}`},
		{"too many symbols", `{"task_id": "TASK-001", "seq": 1, "from": "touches", "files": [], "symbols": ["` +
			strings.Repeat(`s", "`, MaxRefSymbols) + `s"]}`},
		{"seq zero", `{"task_id": "TASK-001", "seq": 0, "from": "touches", "files": [], "symbols": []}`},
		{"seq not before the record", `{"task_id": "TASK-001", "seq": 2, "from": "touches", "files": [], "symbols": []}`},
		{"unknown source", `{"task_id": "TASK-001", "seq": 1, "from": "guess", "files": [], "symbols": []}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := new(testutil.FakeLog)
			l.Append(t, "task:TASK-001", "task.created", []byte(`{"title":"t"}`))
			ev := l.Append(t, "evidence:s", TypeDiscoveryRecorded, []byte(`{"output": {"summary": "x"}, "task": `+tc.ref+`}`))
			p := NewBundles()
			if err := p.Apply(ev); err == nil {
				t.Fatal("Apply accepted an invalid reference")
			}
			b, err := p.Get("s")
			if err != nil || b.Count() != 0 || b.Tasks != nil || b.Revision != 1 {
				t.Fatalf("bundle %+v, %v: want empty at revision 1", b, err)
			}
		})
	}
}
