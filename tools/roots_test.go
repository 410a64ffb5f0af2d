package tools

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/internal/testutil"
)

// What an agent does: index the repository, then refresh one folder of it
// with cos_graph_index {"path": "shapes"}. The refresh removes nothing and
// the uids stay; another repository is added beside it as a named root,
// both answer, and removing that root leaves the first whole.
func TestRoots_AgentRefreshesAFolderThenAddsALibrary(t *testing.T) {
	svc := testutil.WriteTree(t, map[string]string{
		"go.mod":           "module example.com/svc\n\ngo 1.22\n",
		"main.go":          "package main\n\nimport \"example.com/svc/shapes\"\n\nfunc main() { _ = shapes.Total() }\n",
		"shapes/shapes.go": "package shapes\n\n// Total sums.\nfunc Total() int { return 1 }\n",
	})
	lib := testutil.WriteTree(t, map[string]string{"util.py": "def helper():\n    return 1\n"})
	svc, _ = filepath.EvalSymlinks(svc)
	lib, _ = filepath.EvalSymlinks(lib)
	s, err := openTestServer(context.Background(), testOptions{StateDir: t.TempDir(), Roots: []string{svc, lib}, NATS: "off", NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })

	idxReport(t, s, `{}`)
	rep := idxReport(t, s, `{"path": "shapes"}`)
	if rep.FilesRemoved != 0 || rep.Under != "shapes" || rep.Root != svc {
		t.Fatalf("refreshing shapes: removed %d, under %q, root %q", rep.FilesRemoved, rep.Under, rep.Root)
	}
	for _, q := range []string{"main", "Total", "shapes/shapes.go"} {
		if e := idxCall(t, s, "cos_graph_context", `{"uid_or_name": "`+q+`"}`); !e.OK {
			t.Fatalf("%s after refreshing shapes: %s %s", q, e.Error.Code, e.Error.Message)
		}
	}

	rep = idxReport(t, s, `{"path": "`+lib+`", "name": "lib"}`)
	if !rep.RootAdded || rep.RootName != "lib" || rep.FilesRemoved != 0 {
		t.Fatalf("adding lib: %+v", rep)
	}
	e := idxCall(t, s, "cos_graph_context", `{"uid_or_name": "helper"}`)
	if !e.OK {
		t.Fatalf("helper: %s %s", e.Error.Code, e.Error.Message)
	}
	if uid := e.Data["node"].(map[string]any)["uid"]; uid != "code:function:lib//util.py::helper" {
		t.Fatalf("helper's uid = %v, want code:function:lib//util.py::helper", uid)
	}
	if e := idxCall(t, s, "cos_graph_context", `{"uid_or_name": "lib//util.py"}`); !e.OK {
		t.Fatalf("lib//util.py by path: %s %s", e.Error.Code, e.Error.Message)
	}
	if e := idxCall(t, s, "cos_graph_context", `{"uid_or_name": "Total"}`); !e.OK {
		t.Fatalf("Total with two roots: %s %s", e.Error.Code, e.Error.Message)
	}
	d := idxCall(t, s, "cos_graph_doctor", `{}`)
	if !d.OK {
		t.Fatalf("doctor: %s %s", d.Error.Code, d.Error.Message)
	}
	for _, is := range d.Data["issues"].([]any) {
		is := is.(map[string]any)
		if (is["category"] == "stale_paths" || is["category"] == "changed_on_disk") && is["count"] != float64(0) {
			t.Fatalf("doctor: %v with two roots, want none", is)
		}
	}
	if e := idxCall(t, s, "cos_graph_rename_plan", `{"uid": "code:function:lib//util.py::helper", "new_name": "assist"}`); !e.OK ||
		e.Data["files_scanned"] == float64(0) {
		t.Fatalf("rename plan in the second root: %+v %v", e.Error, e.Data)
	}
	h := idxCall(t, s, "cos_health", `{}`)
	if roots, _ := h.Data["freshness"].(map[string]any)["roots"].([]any); len(roots) != 2 {
		t.Fatalf("cos_health freshness roots = %v, want two", h.Data["freshness"])
	}

	for _, args := range []string{`{"remove": "lib", "path": "."}`, `{"remove": ""}`, `{"remove": "", "path": ""}`} {
		if e := idxCall(t, s, "cos_graph_index", args); e.OK || e.Error.Code != string(envelope.CodeArgument) {
			t.Fatalf("cos_graph_index %s: %+v, want E_ARGUMENT", args, e.Error)
		}
	}
	e = idxCall(t, s, "cos_graph_index", `{"remove": "lib"}`)
	if !e.OK || e.Data["removed"].(map[string]any)["files_removed"] != float64(1) {
		t.Fatalf("remove lib: %+v %v", e.Error, e.Data)
	}
	if seq, last := e.Data["meta"].(map[string]any)["log_seq"], e.Data["removed"].(map[string]any)["last_seq"]; seq != last || seq == float64(0) {
		t.Fatalf("remove lib: meta.log_seq %v, want the removal's last seq %v", seq, last)
	}
	if e := idxCall(t, s, "cos_graph_context", `{"uid_or_name": "code:function:lib//util.py::helper"}`); e.OK || e.Error.Code != string(envelope.CodeNotFound) {
		t.Fatalf("helper after removing lib: ok=%v, want E_NOT_FOUND", e.OK)
	}
	if e := idxCall(t, s, "cos_graph_context", `{"uid_or_name": "Total"}`); !e.OK {
		t.Fatalf("Total after removing lib: %s %s", e.Error.Code, e.Error.Message)
	}
}

// cos_graph_changes takes the diff of every root: a function changed in the
// second root is listed with that root's uid, and one changed in the
// primary root with its plain uid.
func TestRoots_ChangesCoverEveryRoot(t *testing.T) {
	a := testutil.GitRepo(t, map[string]string{"a.py": "def alpha():\n    return 1\n\n\ndef keep():\n    return 0\n"})
	b := testutil.GitRepo(t, map[string]string{"b.py": "def beta():\n    return 2\n"})
	s, err := openTestServer(context.Background(), testOptions{StateDir: t.TempDir(), Roots: []string{a.Root, b.Root}, NATS: "off", NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	idxReport(t, s, `{}`)
	if rep := idxReport(t, s, `{"path": "`+b.Root+`", "name": "b"}`); rep.RootName != "b" {
		t.Fatalf("second root: %+v", rep)
	}
	a.Write("a.py", "def alpha():\n    return 10\n\n\ndef keep():\n    return 0\n")
	b.Write("b.py", "def beta():\n    return 20\n")
	e := idxCall(t, s, "cos_graph_changes", `{"base": "HEAD"}`)
	if !e.OK {
		t.Fatalf("changes: %s %s", e.Error.Code, e.Error.Message)
	}
	var got []string
	for _, c := range e.Data["changed"].([]any) {
		got = append(got, c.(map[string]any)["uid"].(string))
	}
	slices.Sort(got)
	want := []string{"code:function:a.py::alpha", "code:function:b//b.py::beta"}
	if !slices.Equal(got, want) {
		t.Fatalf("changed = %v, want %v (note %v)", got, want, e.Data["note"])
	}
}
