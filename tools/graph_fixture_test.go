package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/envelope"
)

// graphRepo is a repository on disk and a testServer indexing it as its
// root.
type graphRepo struct {
	root string
	s    *testServer
}

// openGraphRepo writes files (repo-relative path → content) into a fresh
// root and opens a testServer whose indexed root it is.
func openGraphRepo(t testing.TB, files map[string]string, budget envelope.Options) *graphRepo {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := openTestServer(context.Background(), testOptions{StateDir: t.TempDir(), Roots: []string{root}, NATS: "off", NoBackgroundSnapshots: true, Budget: budget})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return &graphRepo{root: root, s: s}
}

// mustOK calls tool and fails unless the envelope is ok.
func graphOK(t testing.TB, s *testServer, tool, args string) envOf {
	t.Helper()
	e := call(t, s, tool, args)
	if !e.OK {
		t.Fatalf("%s %s: %s %s (%v)", tool, args, e.Error.Code, e.Error.Message, e.Error.Details)
	}
	return e
}

// mustFail calls tool and fails unless the envelope is a failure with code.
func graphFail(t testing.TB, s *testServer, tool, args string, code envelope.Code) envOf {
	t.Helper()
	e := call(t, s, tool, args)
	if e.OK {
		t.Fatalf("%s %s: ok, want %s; data %v", tool, args, code, e.Data)
	}
	if e.Error.Code != string(code) {
		t.Fatalf("%s %s: code %s (%s), want %s", tool, args, e.Error.Code, e.Error.Message, code)
	}
	return e
}

// list returns data[key] as a list of objects.
func graphList(t testing.TB, data map[string]any, key string) []map[string]any {
	t.Helper()
	raw, ok := data[key].([]any)
	if !ok {
		t.Fatalf("data[%q] is %T, want a list; data %v", key, data[key], data)
	}
	out := make([]map[string]any, len(raw))
	for i, r := range raw {
		out[i] = r.(map[string]any)
	}
	return out
}

// uidsOf returns the "uid" (or field) of each element.
func graphUIDs(items []map[string]any, field string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i], _ = it[field].(string)
	}
	return out
}

func graphMeta(e envOf) map[string]any { m, _ := e.Data["meta"].(map[string]any); return m }

func graphJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fixtureFiles is a small repository: two functions named run in two
// files, two files named util.go, a README and a test that mention run.
var fixtureFiles = map[string]string{
	"cmd/a.go":      "package cmd\n\nimport \"example/lib\"\n\n// run starts the app.\nfunc run() {\n\tlib.Helper()\n\tlog(\"run finished\")\n}\n\nfunc start() { run() }\n",
	"lib/b.go":      "package lib\n\nfunc run() {}\n\nfunc Helper() { run() }\n",
	"main.go":       "package main\n\nimport \"example/cmd\"\n\nfunc main() {\n\tcmd.run()\n}\n",
	"cmd/util.go":   "package cmd\n",
	"lib/util.go":   "package lib\n",
	"cmd/a_test.go": "package cmd\n\nfunc TestRun(t *testing.T) { run() }\n",
	"README.md":     "# Demo\n\nCall `run` to start; runner is another word.\n",
}

// fixtureNodes and fixtureEdges describe fixtureFiles as a graph.
const fixtureNodes = `[
 {"uid": "folder:cmd", "label": "cmd", "path": "cmd"},
 {"uid": "folder:lib", "label": "lib", "path": "lib"},
 {"uid": "code:file:cmd/a.go", "kind": "file", "label": "a.go", "path": "cmd/a.go"},
 {"uid": "code:file:lib/b.go", "kind": "file", "label": "b.go", "path": "lib/b.go"},
 {"uid": "code:file:main.go", "kind": "file", "label": "main.go", "path": "main.go"},
 {"uid": "code:file:cmd/util.go", "kind": "file", "label": "util.go", "path": "cmd/util.go"},
 {"uid": "code:file:lib/util.go", "kind": "file", "label": "util.go", "path": "lib/util.go"},
 {"uid": "code:file:cmd/a_test.go", "kind": "file", "label": "a_test.go", "path": "cmd/a_test.go"},
 {"uid": "doc:file:README.md", "kind": "doc_file", "label": "README.md", "path": "README.md"},
 {"uid": "code:function:cmd/a.go::run", "kind": "function", "label": "run", "path": "cmd/a.go", "line": 6, "end_line": 9},
 {"uid": "code:function:cmd/a.go::start", "kind": "function", "label": "start", "path": "cmd/a.go", "line": 11},
 {"uid": "code:function:lib/b.go::run", "kind": "function", "label": "run", "path": "lib/b.go", "line": 3},
 {"uid": "code:function:lib/b.go::Helper", "kind": "function", "label": "Helper", "path": "lib/b.go", "line": 5},
 {"uid": "code:function:main.go::main", "kind": "function", "label": "main", "path": "main.go", "line": 5},
 {"uid": "code:function:cmd/a_test.go::TestRun", "kind": "function", "label": "TestRun", "path": "cmd/a_test.go", "line": 3}
]`

const fixtureEdges = `[
 {"source": "folder:cmd", "target": "code:file:cmd/a.go", "type": "contains"},
 {"source": "folder:lib", "target": "code:file:lib/b.go", "type": "contains"},
 {"source": "code:file:cmd/a.go", "target": "code:function:cmd/a.go::run", "type": "contains"},
 {"source": "code:file:cmd/a.go", "target": "code:function:cmd/a.go::start", "type": "contains"},
 {"source": "code:file:lib/b.go", "target": "code:function:lib/b.go::run", "type": "contains"},
 {"source": "code:file:lib/b.go", "target": "code:function:lib/b.go::Helper", "type": "contains"},
 {"source": "code:file:main.go", "target": "code:function:main.go::main", "type": "contains"},
 {"source": "code:function:main.go::main", "target": "code:function:cmd/a.go::run", "type": "calls", "line": 6},
 {"source": "code:function:cmd/a.go::start", "target": "code:function:main.go::main", "type": "calls", "line": 11},
 {"source": "code:function:lib/b.go::Helper", "target": "code:function:lib/b.go::run", "type": "calls", "line": 5},
 {"source": "code:function:cmd/a.go::run", "target": "code:function:lib/b.go::Helper", "type": "calls", "line": 7},
 {"source": "code:function:cmd/a_test.go::TestRun", "target": "code:function:cmd/a.go::run", "type": "calls", "line": 3},
 {"source": "code:file:main.go", "target": "code:file:cmd/a.go", "type": "imports", "line": 3}
]`

// openFixture opens the fixture repository with its graph written through
// cos_graph_upsert.
func openFixture(t testing.TB) *graphRepo {
	t.Helper()
	r := openGraphRepo(t, fixtureFiles, envelope.Options{})
	graphOK(t, r.s, "cos_graph_upsert", `{"nodes": `+fixtureNodes+`, "edges": `+fixtureEdges+`}`)
	return r
}

func graphHasAll(got []string, want ...string) bool {
	set := map[string]bool{}
	for _, g := range got {
		set[g] = true
	}
	for _, w := range want {
		if !set[w] {
			return false
		}
	}
	return true
}

func graphJoined(xs []string) string { return strings.Join(xs, ", ") }
