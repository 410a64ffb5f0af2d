package tools

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cos-dev/cos/envelope"
)

// overviewTree is a Go module of three packages: b calls and imports a,
// a's functions call each other.
var overviewTree = map[string]string{
	"go.mod":   "module example.com/m\n\ngo 1.22\n",
	"a/x.go":   "package a\n\nfunc X() { Y() }\n\nfunc Y() {}\n",
	"a/y.go":   "package a\n\nfunc W() { X() }\n",
	"a/b/z.go": "package b\n\nimport \"example.com/m/a\"\n\nfunc Z() { a.X(); a.W() }\n",
}

func overviewOK(t testing.TB, s *testServer, args string) envOf {
	t.Helper()
	e := hubCall(t, s, "cos_graph_overview", args)
	if !e.OK {
		t.Fatalf("cos_graph_overview %s: %s %s", args, e.Error.Code, e.Error.Message)
	}
	return e
}

// expectedOverview computes the groups (id → members, files) and the
// edges between groups ("from→to" → type → count) of the whole graph from
// cos_graph_export, independently of the tool.
func expectedOverview(t *testing.T, s *testServer, level string) (map[string][2]int, map[string]map[string]int) {
	t.Helper()
	e := graphOK(t, s, "cos_graph_export", `{"max_nodes": 2000}`)
	nodes := graphList(t, e.Data, "nodes")
	edges := graphList(t, e.Data, "edges")
	if len(nodes) >= 2000 {
		t.Fatal("the tree is too large to export whole")
	}
	pathOf := map[string]string{}
	kindOf := map[string]string{}
	for _, n := range nodes {
		p, _ := n["path"].(string)
		pathOf[n["uid"].(string)], kindOf[n["uid"].(string)] = p, n["kind"].(string)
	}
	groupOf := func(p string) string {
		if level == "package" {
			return path.Dir(p)
		}
		return p
	}
	place := map[string]string{}
	for uid, p := range pathOf {
		if kindOf[uid] != "folder" && p != "" {
			place[uid] = groupOf(p)
		}
	}
	if level == "package" { // a module goes to the folder of its first defining file
		best := map[string]string{}
		for _, ed := range edges {
			src, tgt := ed["source"].(string), ed["target"].(string)
			if ed["type"] == "defines" && pathOf[tgt] == "" && pathOf[src] != "" && (best[tgt] == "" || pathOf[src] < best[tgt]) {
				best[tgt] = pathOf[src]
			}
		}
		for uid, p := range best {
			place[uid] = path.Dir(p)
		}
	}
	groups := map[string][2]int{}
	for uid, g := range place {
		c := groups[g]
		if kindOf[uid] == "file" {
			c[1]++
		} else {
			c[0]++
		}
		groups[g] = c
	}
	between := map[string]map[string]int{}
	for _, ed := range edges {
		from, ok1 := place[ed["source"].(string)]
		to, ok2 := place[ed["target"].(string)]
		if !ok1 || !ok2 || from == to {
			continue
		}
		k := from + "→" + to
		if between[k] == nil {
			between[k] = map[string]int{}
		}
		between[k][ed["type"].(string)]++
	}
	return groups, between
}

// TestGraphOverview_CountsMatchTheGraph: at both levels every group's
// member and file counts and every edge's weight by type equal what the
// whole graph (cos_graph_export) holds; b's calls and import of a show as
// one weighted edge a/b → a.
func TestGraphOverview_CountsMatchTheGraph(t *testing.T) {
	r := openGraphRepo(t, overviewTree, envelope.Options{})
	graphOK(t, r.s, "cos_graph_index", `{}`)
	for _, level := range []string{"package", "file"} {
		t.Run(level, func(t *testing.T) {
			wantGroups, wantEdges := expectedOverview(t, r.s, level)
			e := overviewOK(t, r.s, fmt.Sprintf(`{"level": %q}`, level))
			got := graphList(t, e.Data, "groups")
			if len(got) != len(wantGroups) {
				t.Errorf("%d groups, want %d (%v)", len(got), len(wantGroups), wantGroups)
			}
			members := 0
			for _, g := range got {
				id := g["id"].(string)
				w, ok := wantGroups[id]
				if !ok {
					t.Errorf("group %s is not in the graph", id)
					continue
				}
				if int(g["members"].(float64)) != w[0] || int(g["files"].(float64)) != w[1] {
					t.Errorf("group %s: members %v files %v, want %d %d", id, g["members"], g["files"], w[0], w[1])
				}
				members += w[0]
				byKind := 0
				for _, n := range g["by_kind"].(map[string]any) {
					byKind += int(n.(float64))
				}
				if byKind != w[0] {
					t.Errorf("group %s: by_kind sums to %d, want %d", id, byKind, w[0])
				}
			}
			gotEdges := map[string]map[string]int{}
			for _, ed := range graphList(t, e.Data, "edges") {
				by := map[string]int{}
				sum := 0
				for k, v := range ed["by_type"].(map[string]any) {
					by[k] = int(v.(float64))
					sum += by[k]
				}
				if int(ed["weight"].(float64)) != sum {
					t.Errorf("edge %v→%v: weight %v, by type %v", ed["source"], ed["target"], ed["weight"], by)
				}
				gotEdges[ed["source"].(string)+"→"+ed["target"].(string)] = by
			}
			if fmt.Sprint(gotEdges) != fmt.Sprint(wantEdges) {
				t.Errorf("edges = %v\nwant %v", gotEdges, wantEdges)
			}
			counts := e.Data["counts"].(map[string]any)
			if counts["groups"] != float64(len(wantGroups)) || counts["shown"] != float64(len(wantGroups)) ||
				counts["edges"] != float64(len(wantEdges)) || counts["members"] != float64(members) {
				t.Errorf("counts = %v", counts)
			}
		})
	}
	// The facts the tree was written for.
	e := overviewOK(t, r.s, `{}`)
	if e.Data["level"] != "package" {
		t.Errorf("level = %v, want package by default", e.Data["level"])
	}
	byID := map[string]map[string]any{}
	for _, g := range graphList(t, e.Data, "groups") {
		byID[g["id"].(string)] = g
	}
	if a := byID["a"]; a == nil || a["uid"] != "folder:a" || a["files"] != float64(2) ||
		a["by_kind"].(map[string]any)["function"] != float64(3) || a["internal"].(float64) < 2 {
		t.Errorf("group a = %v", a)
	}
	var ab map[string]any
	for _, ed := range graphList(t, e.Data, "edges") {
		if ed["source"] == "a/b" && ed["target"] == "a" {
			ab = ed["by_type"].(map[string]any)
		}
	}
	if ab == nil || ab["calls"] != float64(2) || ab["imports"] != float64(1) {
		t.Errorf("a/b → a by type = %v, want 2 calls and 1 import", ab)
	}
	// A file group is rooted at its file node.
	for _, g := range graphList(t, overviewOK(t, r.s, `{"level": "file", "under": "a/b"}`).Data, "groups") {
		if g["id"] != "a/b/z.go" || g["uid"] != "code:file:a/b/z.go" || g["path"] != "a/b/z.go" {
			t.Errorf("file group under a/b = %v", g)
		}
	}
}

// TestGraphOverview_UnderLimitAt: under keeps the folder and what is below
// it, limit keeps the largest groups (edges only among them, counts still
// true), at reads an earlier graph, and bad arguments change nothing.
func TestGraphOverview_UnderLimitAt(t *testing.T) {
	r := openGraphRepo(t, overviewTree, envelope.Options{})
	graphOK(t, r.s, "cos_graph_index", `{}`)
	ids := func(e envOf) string {
		var out []string
		for _, g := range graphList(t, e.Data, "groups") {
			out = append(out, g["id"].(string))
		}
		return strings.Join(out, " ")
	}
	if got := ids(overviewOK(t, r.s, `{"under": "a/"}`)); got != "a a/b" {
		t.Errorf("under a/: %s, want a a/b (most members first)", got)
	}
	if got := ids(overviewOK(t, r.s, `{"under": "a/b"}`)); got != "a/b" {
		t.Errorf("under a/b: %s", got)
	}
	if got := ids(overviewOK(t, r.s, `{"level": "file", "under": "a"}`)); got != "a/x.go a/b/z.go a/y.go" {
		t.Errorf("files under a: %s", got)
	}
	e := overviewOK(t, r.s, `{"limit": 1}`)
	if got := ids(e); got != "a" {
		t.Errorf("limit 1: %s", got)
	}
	if c := e.Data["counts"].(map[string]any); c["groups"] != float64(3) || c["shown"] != float64(1) || c["edges"] != float64(0) {
		t.Errorf("limit 1 counts = %v", c)
	}
	if edges := graphList(t, e.Data, "edges"); len(edges) != 0 {
		t.Errorf("limit 1 edges = %v", edges)
	}

	head := e.Data["meta"].(map[string]any)["log_seq"].(float64)
	if err := os.MkdirAll(filepath.Join(r.root, "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.root, "c", "c.go"), []byte("package c\n\nfunc C() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	graphOK(t, r.s, "cos_graph_index", `{}`)
	if got := ids(overviewOK(t, r.s, `{}`)); !strings.Contains(got, "c") {
		t.Errorf("after indexing c/c.go: %s", got)
	}
	if got := ids(overviewOK(t, r.s, fmt.Sprintf(`{"at": %d}`, int(head)))); got != "a a/b ." {
		t.Errorf("at %d: %s, want the graph before c/", int(head), got)
	}

	for _, tc := range []struct{ args, code string }{
		{`{"level": "symbol"}`, "E_ARGUMENT"},
		{`{"under": "../etc"}`, "E_ARGUMENT"},
		{`{"under": "/abs"}`, "E_ARGUMENT"},
		{`{"under": ""}`, "E_ARGUMENT"},
		{`{"limit": 0}`, "E_ARGUMENT"},
		{`{"under": "nowhere"}`, "E_NOT_FOUND"},
	} {
		if e := hubCall(t, r.s, "cos_graph_overview", tc.args); e.OK || e.Error.Code != tc.code {
			t.Errorf("%s: ok %v %s %s, want %s", tc.args, e.OK, e.Error.Code, e.Error.Message, tc.code)
		}
	}
	// Hub only: an agent's call does not find it.
	if e := call(t, r.s, "cos_graph_overview", `{}`); e.OK || e.Error.Code != string(envelope.CodeUnknownTool) {
		t.Errorf("with an agent budget: %v %s", e.OK, e.Error.Code)
	}
}

// TestGraphOverview_Clusters: with clusters: true each group names the
// call-graph community most of its members are in, and the answer lists
// those communities.
func TestGraphOverview_Clusters(t *testing.T) {
	r := openGraphRepo(t, overviewTree, envelope.Options{})
	graphOK(t, r.s, "cos_graph_index", `{}`)
	e := overviewOK(t, r.s, `{"clusters": true}`)
	listed := map[float64]bool{}
	for _, c := range graphList(t, e.Data, "clusters") {
		listed[c["id"].(float64)] = true
	}
	var with []string
	for _, g := range graphList(t, e.Data, "groups") {
		if id, ok := g["cluster"].(float64); ok {
			with = append(with, g["id"].(string))
			if !listed[id] {
				t.Errorf("group %v: cluster %v is not listed", g["id"], id)
			}
		}
	}
	sort.Strings(with)
	if len(with) == 0 || with[0] != "a" {
		t.Errorf("groups with a cluster: %v (clusters %v)", with, e.Data["clusters"])
	}
	if _, ok := overviewOK(t, r.s, `{}`).Data["clusters"]; ok {
		t.Error("clusters listed without clusters: true")
	}
}
