package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/internal/testutil"
)

// changesLib is lib/lib.go: many functions, one per line range, so a diff
// touching one of them says which.
func changesLib(betaBody string, withGamma bool) string {
	var b strings.Builder
	b.WriteString("package lib\n\n")
	for _, name := range []string{"Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Eta", "Theta"} {
		if name == "Gamma" && !withGamma {
			continue
		}
		body := "\treturn 1\n"
		if name == "Beta" {
			body = betaBody
		}
		fmt.Fprintf(&b, "// %s is a function.\nfunc %s() int {\n%s}\n\n", name, name, body)
	}
	b.WriteString("func helper() int { return 2 }\n")
	return b.String()
}

var changesRepo = map[string]string{
	"go.mod":          "module example.com/m\n\ngo 1.22\n",
	"lib/lib.go":      changesLib("\treturn 1\n", true),
	"lib/lib_test.go": "package lib\n\nimport \"testing\"\n\nfunc TestBeta(t *testing.T) {\n\tif Beta() != 1 {\n\t\tt.Fatal(\"beta\")\n\t}\n}\n",
	"app/app.go":      "package app\n\nimport \"example.com/m/lib\"\n\n// Run runs.\nfunc Run() int { return lib.Beta() }\n\n// Other uses Gamma.\nfunc Other() int { return lib.Gamma() }\n",
	"cmd/main.go":     "package main\n\nimport \"example.com/m/app\"\n\nfunc main() { _ = app.Run() }\n",
	"README.md":       "# m\n\nA module.\n",
}

// changesAnswerOf is the decoded data of a cos_graph_changes answer.
type changesAnswerOf struct {
	Files []struct {
		Path    string `json:"path"`
		OldPath string `json:"old_path"`
		Status  string `json:"status"`
	} `json:"files"`
	Changed []struct {
		UID         string `json:"uid"`
		Name        string `json:"name"`
		Kind        string `json:"kind"`
		Path        string `json:"path"`
		Line        int    `json:"line"`
		Change      string `json:"change"`
		Exported    bool   `json:"exported"`
		RenamedFrom string `json:"renamed_from"`
	} `json:"changed"`
	Dependents map[string][]struct {
		UID  string `json:"uid"`
		Path string `json:"path"`
	} `json:"dependents"`
	Tests []struct {
		UID string `json:"uid"`
	} `json:"tests"`
	Risk struct {
		Level   string   `json:"level"`
		Reasons []string `json:"reasons"`
	} `json:"risk"`
	Refreshed []string `json:"refreshed"`
	Note      string   `json:"note"`
	Meta      struct {
		Index *struct {
			StaleFiles int `json:"stale_files"`
		} `json:"index"`
	} `json:"meta"`
}

// changesSetup makes a git repository of files, indexes it and returns
// the repository and a server over it. git runs with the repository's
// HOME, so the machine's settings stay out.
func changesSetup(t *testing.T, files map[string]string) (*testutil.Git, *testServer) {
	t.Helper()
	g := testutil.GitRepo(t, files)
	t.Setenv("HOME", g.Home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	s := idxOpen(t, t.TempDir(), g.Root)
	idxReport(t, s, fmt.Sprintf(`{"path": %q}`, g.Root))
	return g, s
}

func changesCall(t *testing.T, s *testServer, args string) changesAnswerOf {
	t.Helper()
	e := idxCall(t, s, "cos_graph_changes", args)
	if !e.OK {
		t.Fatalf("cos_graph_changes %s: %s %s", args, e.Error.Code, e.Error.Message)
	}
	b, _ := json.Marshal(e.Data)
	var a changesAnswerOf
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

func (a changesAnswerOf) changes() map[string]string {
	m := map[string]string{}
	for _, c := range a.Changed {
		m[c.UID] = c.Change
	}
	return m
}

func (a changesAnswerOf) depthOf(uid string) int {
	for d, l := range a.Dependents {
		for _, x := range l {
			if x.UID == uid {
				var n int
				fmt.Sscan(d, &n)
				return n
			}
		}
	}
	return 0
}

func TestGraphChanges_OneFunctionOfMany(t *testing.T) {
	g, s := changesSetup(t, changesRepo)
	// Beta's body changes; nothing else.
	g.Write("lib/lib.go", changesLib("\tx := 1\n\treturn x\n", true))

	a := changesCall(t, s, `{}`)
	const beta = "code:function:lib/lib.go::Beta"
	if got := a.changes(); len(got) != 1 || got[beta] != "modified" {
		t.Fatalf("changed = %+v, want only %s modified", a.Changed, beta)
	}
	if c := a.Changed[0]; !c.Exported || c.Kind != "function" || c.Path != "lib/lib.go" || c.Line != 9 {
		t.Errorf("changed symbol = %+v, want the exported function Beta at line 9 (lines of the file as it is now)", c)
	}
	if len(a.Refreshed) != 1 || a.Refreshed[0] != "lib/lib.go" {
		t.Errorf("refreshed = %v, want lib/lib.go indexed again first", a.Refreshed)
	}
	if a.Meta.Index == nil || a.Meta.Index.StaleFiles != 0 {
		t.Errorf("meta.index = %+v, want stale_files 0 after the refresh", a.Meta.Index)
	}
	for uid, want := range map[string]int{
		"code:function:app/app.go::Run":           1,
		"code:function:lib/lib_test.go::TestBeta": 1,
		"code:function:cmd/main.go::main":         2,
	} {
		if got := a.depthOf(uid); got != want {
			t.Errorf("%s at depth %d, want %d (dependents %+v)", uid, got, want, a.Dependents)
		}
	}
	if a.depthOf("code:function:app/app.go::Other") != 0 {
		t.Errorf("Other (a caller of Gamma, not of Beta) is listed as a dependent")
	}
	if len(a.Tests) != 1 || a.Tests[0].UID != "code:function:lib/lib_test.go::TestBeta" {
		t.Errorf("tests = %+v, want TestBeta", a.Tests)
	}
	if a.Risk.Level == "" || len(a.Risk.Reasons) == 0 {
		t.Errorf("risk = %+v, want a level with reasons", a.Risk)
	}
	joined := strings.Join(a.Risk.Reasons, "; ")
	for _, want := range []string{"at depth 1", "exported", "other folders", "test(s) reach"} {
		if !strings.Contains(joined, want) {
			t.Errorf("risk reasons %q do not mention %q", joined, want)
		}
	}

	// A second call finds the graph current: nothing to index again.
	if b := changesCall(t, s, `{"depth": 1}`); len(b.Refreshed) != 0 || b.depthOf("code:function:cmd/main.go::main") != 0 {
		t.Errorf("second call: refreshed %v, main at depth %d; want nothing refreshed and depth 1 only", b.Refreshed, b.depthOf("code:function:cmd/main.go::main"))
	}
}

func TestGraphChanges_AddedAndRemoved(t *testing.T) {
	g, s := changesSetup(t, changesRepo)
	// Gamma goes (Other still calls it), Iota comes.
	g.Write("lib/lib.go", changesLib("\treturn 1\n", false)+"\n// Iota is new.\nfunc Iota() int { return 3 }\n")
	a := changesCall(t, s, `{"base": "HEAD"}`)
	want := map[string]string{"code:function:lib/lib.go::Gamma": "removed", "code:function:lib/lib.go::Iota": "added"}
	got := a.changes()
	if len(got) != len(want) {
		t.Fatalf("changed = %+v, want %v", a.Changed, want)
	}
	for uid, c := range want {
		if got[uid] != c {
			t.Errorf("%s: %q, want %q", uid, got[uid], c)
		}
	}
	if a.depthOf("code:function:app/app.go::Other") != 1 {
		t.Errorf("the caller of the removed Gamma is not a dependent at depth 1: %+v", a.Dependents)
	}
	if a.Risk.Level != "high" || !strings.Contains(strings.Join(a.Risk.Reasons, ";"), "removed symbol(s) are still called") {
		t.Errorf("risk = %+v, want high: a removed function is still called", a.Risk)
	}
}

func TestGraphChanges_Rename(t *testing.T) {
	g, s := changesSetup(t, changesRepo)
	g.Run("mv", "lib/lib.go", "lib/core.go")
	g.Write("lib/core.go", changesLib("\treturn 1 + 0\n", true))
	a := changesCall(t, s, `{}`)
	if len(a.Files) != 1 || a.Files[0].Status != "renamed" || a.Files[0].OldPath != "lib/lib.go" || a.Files[0].Path != "lib/core.go" {
		t.Fatalf("files = %+v, want lib/lib.go renamed to lib/core.go", a.Files)
	}
	if len(a.Changed) != 1 || a.Changed[0].UID != "code:function:lib/core.go::Beta" || a.Changed[0].Change != "modified" ||
		a.Changed[0].RenamedFrom != "code:function:lib/lib.go::Beta" {
		t.Fatalf("changed = %+v, want Beta modified in lib/core.go, renamed from lib/lib.go", a.Changed)
	}
	if a.depthOf("code:function:app/app.go::Run") != 1 {
		t.Errorf("Run is not a dependent of the renamed Beta: %+v", a.Dependents)
	}
}

func TestGraphChanges_BadRevision(t *testing.T) {
	_, s := changesSetup(t, changesRepo)
	for _, base := range []string{"no-such-branch", "--upload-pack=x", "HEAD~9"} {
		e := idxCall(t, s, "cos_graph_changes", fmt.Sprintf(`{"base": %q}`, base))
		if e.OK || e.Error.Code != "E_ARGUMENT" || !strings.Contains(e.Error.Message, base) {
			t.Errorf("base %q: %+v, want E_ARGUMENT naming it", base, e.Error)
		}
	}
	for _, args := range []string{`{"depth": 0}`, `{"depth": 6}`, `{"base": ""}`, `{"bases": "HEAD"}`} {
		if e := idxCall(t, s, "cos_graph_changes", args); e.OK || e.Error.Code != "E_ARGUMENT" {
			t.Errorf("%s: %+v, want E_ARGUMENT", args, e.Error)
		}
	}
}

func TestGraphChanges_OutsideGit(t *testing.T) {
	t.Setenv("GIT_CEILING_DIRECTORIES", os.TempDir())
	root := idxWriteRepo(t, changesRepo)
	s := idxOpen(t, t.TempDir(), root)
	idxReport(t, s, fmt.Sprintf(`{"path": %q}`, root))
	e := idxCall(t, s, "cos_graph_changes", `{}`)
	if e.OK || e.Error.Code != "E_ARGUMENT" || !strings.Contains(e.Error.Message, "not inside a git work tree") {
		t.Fatalf("outside git: %+v, want E_ARGUMENT saying so", e.Error)
	}
	// base "index" works without git: the files changed since the index.
	if err := os.WriteFile(filepath.Join(root, "lib/lib.go"), []byte(changesLib("\treturn 2\n", false)), 0o644); err != nil {
		t.Fatal(err)
	}
	a := changesCall(t, s, `{"base": "index"}`)
	got := a.changes()
	if got["code:function:lib/lib.go::Beta"] != "modified" || a.Note == "" {
		t.Errorf("base index outside git: changed %+v, note %q; want Beta modified and a note on the precision", a.Changed, a.Note)
	}
}

func TestGraphChanges_BaseIndexInGit(t *testing.T) {
	g, s := changesSetup(t, changesRepo)
	g.Write("lib/lib.go", changesLib("\tx := 1\n\treturn x\n", true))
	a := changesCall(t, s, `{"base": "index"}`)
	if got := a.changes(); len(got) != 1 || got["code:function:lib/lib.go::Beta"] != "modified" {
		t.Errorf("base index: changed %+v, want only Beta", a.Changed)
	}
	// Now indexed: nothing changed since.
	if b := changesCall(t, s, `{"base": "index"}`); len(b.Changed) != 0 || len(b.Files) != 0 {
		t.Errorf("base index after the refresh: %+v, want nothing", b)
	}
}

// BenchmarkGraphChanges_NetHTTP: a git repository holding a copy of
// GOROOT/src/net/http, indexed, with one function body edited in each of
// 20 files; each call maps the diff onto the graph and walks depth 2. The
// first call (which indexes the 20 files again) is reported apart as
// first_call_ms. Target: ≤ 200 ms per call.
func BenchmarkGraphChanges_NetHTTP(b *testing.B) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("no go env GOROOT")
	}
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src", "net", "http")
	files := map[string]string{}
	err = filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		b.Skip(err)
	}
	g := testutil.GitRepo(b, files)
	b.Setenv("HOME", g.Home)
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	s := idxOpen(b, b.TempDir(), g.Root)
	idxReport(b, s, fmt.Sprintf(`{"path": %q}`, g.Root))

	// Edit one function body in each of 20 files.
	var names []string
	for p := range files {
		if !strings.Contains(p, "/") && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			names = append(names, p)
		}
	}
	slices.Sort(names)
	edited := 0
	for _, p := range names {
		if edited == 20 {
			break
		}
		lines := strings.SplitAfter(files[p], "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "func ") && strings.HasSuffix(l, "{\n") {
				lines = slices.Insert(lines, i+1, "\t_ = 0 // edited\n")
				g.Write(p, strings.Join(lines, ""))
				edited++
				break
			}
		}
	}
	ctx := context.Background()
	start := time.Now()
	first := s.Call(ctx, "cos_graph_changes", json.RawMessage(`{}`))
	firstMS := float64(time.Since(start).Microseconds()) / 1000
	if !first.OK() {
		b.Fatalf("first call: %s", first.JSON())
	}
	var n int
	if d := first.Data(); d != nil {
		if c, ok := d["changed"].([]any); ok {
			n = len(c)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if e := s.Call(ctx, "cos_graph_changes", json.RawMessage(`{}`)); !e.OK() {
			b.Fatalf("call: %s", e.JSON())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/call")
	b.ReportMetric(firstMS, "first_call_ms")
	b.ReportMetric(float64(n), "changed_symbols")
	b.ReportMetric(float64(edited), "files")
}
