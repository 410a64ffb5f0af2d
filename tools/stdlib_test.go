package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/state"
)

// The real-input acceptance test of issue 6 ("Tests": the Go and the
// machine's Python standard library, index completes, doctor reports no
// real issue beyond a documented allowance, spot checks hold), driven end to
// end through the tools: cos_graph_index, cos_graph_doctor,
// cos_graph_resolve, cos_graph_context, cos_graph_impact and
// cos_graph_references through a Runner over a real state folder.
//
// It takes minutes on a small machine, so it runs only with
// COS_LONG_TESTS=1:
//
//	COS_LONG_TESTS=1 go test -run Stdlib -timeout 30m ./tools/

// stdlibLong skips t unless COS_LONG_TESTS=1.
func stdlibLong(t *testing.T) {
	t.Helper()
	if os.Getenv("COS_LONG_TESTS") != "1" {
		t.Skip("long real-input test: run with COS_LONG_TESTS=1 go test -run Stdlib -timeout 30m ./tools/")
	}
}

// unbounded is the allowance of an informational doctor category.
const unbounded = -1

// doctorAllowance is the documented allowance of issue 6: for each
// cos_graph_doctor category (docs/envelope.md, cos_graph_doctor categories),
// the most findings a full index of a standard library may report and why.
// Every category is listed, so a category the doctor gains fails the test
// until someone decides its allowance here. Raise a number only with a
// reason: an allowance is a documented tolerance, never a hidden bug.
var doctorAllowance = map[string]struct {
	max int
	why string
}{
	"dangling_source":    {0, "every edge source is a node of the payload that carries it"},
	"dangling_target":    {0, "a resolved target is a node some payload emits, an unresolved one a code:external: stub"},
	"duplicate_edges":    {0, "the projection keys edges by identity"},
	"self_loops":         {0, "a node's edge to itself is a recursive call or use (not counted); any other is an extractor bug"},
	"orphaned_inrepo":    {0, "every symbol has at least its contains edge"},
	"orphaned_phantom":   {0, "a fresh index mints no stub without its edge"},
	"malformed_uid_path": {0, "no path of either library holds whitespace, a backtick or ../"},
	"stale_paths":        {0, "the index ran over the approved root just now: every path exists"},
	"duplicate_contains": {0, "each node has one parent: its file, or its folder for a file"},
	// Informational: never make the graph unhealthy.
	"orphaned_external_unresolved": {unbounded, "calls into builtins and other modules that no file defines are code:external: stubs by design (issue 6)"},
	"slowest_extractions":          {unbounded, "a top-10 list, not a defect"},
	"files_with_parse_errors": {unbounded, "Go's testdata and Python's test/ and lib2to3 data hold deliberately broken sources " +
		"(syntax errors, Python 2 code, wrong encodings), and a payload over the 1 MiB event limit is trimmed with a parse error naming what it dropped"},
}

// doctorIssueOf is one issue of a cos_graph_doctor answer.
type doctorIssueOf struct {
	Category string `json:"category"`
	Severity string `json:"severity"`
	Count    int    `json:"count"`
	Sample   []any  `json:"sample"`
}

// stdlibIndexed is what stdlibIndex measured.
type stdlibIndexed struct {
	report  indexing.Report
	wall    time.Duration
	logSize int64 // the log file's size after the run, in bytes
}

// stdlibIndex runs cos_graph_index with no path (the first approved root),
// checks it completed and appended exactly what it reports, and that the
// whole log verifies.
func stdlibIndex(t *testing.T, s *testServer) stdlibIndexed {
	t.Helper()
	head := idxHead(t, s)
	start := time.Now()
	rep := idxReport(t, s, `{}`)
	wall := time.Since(start)
	after := idxHead(t, s)
	if got := after - head; got != uint64(rep.Events) {
		t.Errorf("report says %d events appended, the head moved by %d (%d → %d)", rep.Events, got, head, after)
	}
	if rep.Events > 0 && (rep.FirstSeq != head+1 || rep.LastSeq != after) {
		t.Errorf("report seqs %d..%d, log head %d → %d", rep.FirstSeq, rep.LastSeq, head, after)
	}
	if rep.FilesFailed > 0 {
		t.Logf("%d files failed to read, e.g. %+v", rep.FilesFailed, rep.Failed)
	}
	n, err := s.Log().Verify(context.Background())
	if err != nil || n != after {
		t.Fatalf("Verify: %d events verified of %d: %v", n, after, err)
	}
	var size int64
	if fi, err := os.Stat(filepath.Join(s.StateDir(), state.LogFile)); err == nil {
		size = fi.Size()
	}
	return stdlibIndexed{report: rep, wall: wall, logSize: size}
}

// stdlibLogRun logs one run's numbers.
func stdlibLogRun(t *testing.T, what string, r stdlibIndexed) {
	t.Helper()
	rep := r.report
	// The report's seconds cover the walk, the extraction and the appends;
	// the rest of the wall time is cos_graph_index reading back: the graph
	// projection and the search index catching up with the new events.
	t.Logf("%s: %.1f s wall = %.1f s index (report) + %.1f s projection and search catch-up; files seen %d changed %d skipped %d failed %d parse-errors %d trimmed %d; "+
		"nodes %d edges %d; %d events, %d bytes of event data (%.1f MiB) in %d transactions; log file %.1f MiB",
		what, r.wall.Seconds(), rep.Seconds, r.wall.Seconds()-rep.Seconds, rep.FilesSeen, rep.FilesChanged, rep.FilesSkipped, rep.FilesFailed,
		rep.FilesWithParseErrors, rep.FilesTrimmed, rep.Nodes, rep.Edges, rep.Events, rep.Bytes,
		float64(rep.Bytes)/(1<<20), rep.Transactions, float64(r.logSize)/(1<<20))
	if rep.FilesTrimmed > 0 {
		t.Logf("  trimmed to the event limit: %v", rep.TrimmedPaths)
	}
	if rep.FilesWithParseErrors > 0 {
		t.Logf("  parse errors in e.g. %v", rep.ParseErrorPaths[:min(5, len(rep.ParseErrorPaths))])
	}
	for i, sl := range rep.Slowest[:min(3, len(rep.Slowest))] {
		t.Logf("  slowest %d: %+v", i+1, sl)
	}
}

// stdlibDoctor runs cos_graph_doctor and fails t for every category over its
// allowance (doctorAllowance).
func stdlibDoctor(t *testing.T, s *testServer) {
	t.Helper()
	e := idxCall(t, s, "cos_graph_doctor", `{}`)
	if !e.OK {
		t.Fatalf("cos_graph_doctor: %s %s", e.Error.Code, e.Error.Message)
	}
	raw, _ := json.Marshal(e.Data["issues"])
	var issues []doctorIssueOf
	if err := json.Unmarshal(raw, &issues); err != nil || len(issues) == 0 {
		t.Fatalf("doctor issues %s: %v", raw, err)
	}
	t.Logf("doctor: healthy=%v stats=%v", e.Data["healthy"], e.Data["stats"])
	for _, is := range issues {
		t.Logf("  %-30s %-4s %d", is.Category, is.Severity, is.Count)
		allow, ok := doctorAllowance[is.Category]
		switch {
		case !ok:
			t.Errorf("doctor category %s (%s, %d findings) has no documented allowance", is.Category, is.Severity, is.Count)
		case (allow.max == unbounded) != (is.Severity == "info"):
			t.Errorf("doctor category %s is %s, the allowance says max %d", is.Category, is.Severity, allow.max)
		case allow.max != unbounded && is.Count > allow.max:
			sample, _ := json.Marshal(is.Sample)
			t.Errorf("doctor %s: %d findings, %d allowed (%s); e.g. %s", is.Category, is.Count, allow.max, allow.why, sample)
		}
	}
	if len(issues) != len(doctorAllowance) {
		t.Errorf("doctor reports %d categories, the allowance documents %d", len(issues), len(doctorAllowance))
	}
}

// stdlibUIDs returns the uid of every node listed under key (a list of
// objects with a "uid" or "source" field) in data.
func stdlibUIDs(data map[string]any, key, field string) []string {
	list, _ := data[key].([]any)
	var out []string
	for _, it := range list {
		if m, ok := it.(map[string]any); ok {
			if u, ok := m[field].(string); ok {
				out = append(out, u)
			}
		}
	}
	return out
}

// stdlibMeta returns data.meta[key] as a string.
func stdlibMeta(data map[string]any, key string) string {
	m, _ := data["meta"].(map[string]any)
	v, _ := m[key].(string)
	return v
}

// stdlibGoroot returns $(go env GOROOT), else runtime.GOROOT().
func stdlibGoroot(t *testing.T) string {
	t.Helper()
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil && strings.TrimSpace(string(out)) != "" {
		return strings.TrimSpace(string(out))
	}
	return runtime.GOROOT() //nolint:staticcheck // the fallback when go is not on PATH
}

// TestStdlib_Go indexes $(go env GOROOT)/src through cos_graph_index,
// checks the log and the doctor, runs the spot checks of issue 6 through the
// read tools, then re-indexes with no change and expects no event.
func TestStdlib_Go(t *testing.T) {
	stdlibLong(t)
	root := filepath.Join(stdlibGoroot(t), "src")
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		t.Skipf("GOROOT/src %q not found", root)
	}
	s := idxOpen(t, t.TempDir(), root)

	full := stdlibIndex(t, s)
	stdlibLogRun(t, "GOROOT/src full index", full)
	if full.report.FilesChanged == 0 || full.report.Nodes == 0 || full.report.Edges == 0 {
		t.Fatalf("full index found nothing: %+v", full.report)
	}
	stdlibDoctor(t, s)

	const (
		method   = "code:function:net/http/server.go::Server.ListenAndServe"
		function = "code:function:net/http/server.go::ListenAndServe"
	)
	t.Run("resolve_uid", func(t *testing.T) {
		e := idxCall(t, s, "cos_graph_resolve", `{"q":"`+method+`"}`)
		if !e.OK {
			t.Fatalf("resolve %s: %s %s", method, e.Error.Code, e.Error.Message)
		}
		if got := stdlibUIDs(e.Data, "results", "uid"); len(got) == 0 || got[0] != method || stdlibMeta(e.Data, "resolved_from") != "direct" {
			t.Fatalf("resolve %s: first %v, resolved_from %q", method, got, stdlibMeta(e.Data, "resolved_from"))
		}
	})
	t.Run("resolve_name", func(t *testing.T) {
		e := idxCall(t, s, "cos_graph_resolve", `{"q":"ListenAndServe","limit":20}`)
		if !e.OK {
			t.Fatalf("resolve ListenAndServe: %s %s", e.Error.Code, e.Error.Message)
		}
		got := stdlibUIDs(e.Data, "results", "uid")
		for _, want := range []string{method, function} {
			if !slices.Contains(got, want) {
				t.Errorf("resolve ListenAndServe: candidates %v lack %s", got, want)
			}
		}
	})
	t.Run("resolve_typo", func(t *testing.T) {
		e := idxCall(t, s, "cos_graph_resolve", `{"q":"ListenAndSrve","limit":20}`)
		if !e.OK {
			t.Fatalf("resolve ListenAndSrve: %s %s", e.Error.Code, e.Error.Message)
		}
		if got := stdlibUIDs(e.Data, "results", "uid"); !slices.Contains(got, method) {
			t.Errorf("fuzzy ListenAndSrve: candidates %v lack %s", got, method)
		}
	})
	t.Run("impact", func(t *testing.T) {
		e := idxCall(t, s, "cos_graph_impact", `{"uid":"`+method+`","depth":2}`)
		if !e.OK {
			t.Fatalf("impact: %s %s", e.Error.Code, e.Error.Message)
		}
		got := stdlibUIDs(e.Data, "nodes", "uid")
		if !slices.Contains(got, function) {
			t.Errorf("impact of %s at depth 2: %d dependents %v lack %s", method, len(got), got[:min(10, len(got))], function)
		}
		byDepth, _ := e.Data["counts_by_depth"].(map[string]any)
		t.Logf("impact of Server.ListenAndServe: count %v, by depth %v", e.Data["count"], byDepth)
		if d1, _ := byDepth["1"].(float64); d1 == 0 {
			t.Errorf("no direct dependent: %v", byDepth)
		}
	})
	t.Run("references_default_kinds", func(t *testing.T) {
		e := idxCall(t, s, "cos_graph_references", `{"uid":"`+method+`","kinds":[]}`)
		if !e.OK {
			t.Fatalf("references: %s %s", e.Error.Code, e.Error.Message)
		}
		meta, _ := e.Data["meta"].(map[string]any)
		if picked, _ := meta["default_kinds_picked"].(bool); !picked || meta["node_kind"] != "method" {
			t.Errorf("references meta: default_kinds_picked %v, node_kind %v", meta["default_kinds_picked"], meta["node_kind"])
		}
		if kinds := fmt.Sprint(e.Data["kinds"]); !strings.Contains(kinds, "calls") {
			t.Errorf("default kinds of a method %s lack calls", kinds)
		}
		if got := stdlibUIDs(e.Data, "references", "source"); !slices.Contains(got, function) {
			t.Errorf("references of %s: %v lack %s", method, got, function)
		}
	})
	t.Run("context_path", func(t *testing.T) {
		e := idxCall(t, s, "cos_graph_context", `{"uid_or_name":"net/http/server.go"}`)
		if !e.OK {
			t.Fatalf("context net/http/server.go: %s %s", e.Error.Code, e.Error.Message)
		}
		node, _ := e.Data["node"].(map[string]any)
		if node["uid"] != "code:file:net/http/server.go" || stdlibMeta(e.Data, "resolved_from") != "path_prefix" {
			t.Errorf("context net/http/server.go: node %v, resolved_from %q", node["uid"], stdlibMeta(e.Data, "resolved_from"))
		}
		// The file's neighbourhood is hundreds of nodes (the token budget
		// trims the list): check it is there, then the method's own
		// containment, which is small.
		deg, _ := e.Data["degree"].(map[string]any)
		if out, _ := deg["out"].(float64); out == 0 || len(stdlibUIDs(e.Data, "neighbours", "uid")) == 0 {
			t.Errorf("context of server.go: degree %v, no neighbours", deg)
		}
		e = idxCall(t, s, "cos_graph_context", `{"uid_or_name":"`+method+`","edge_types":["contains"],"depth":2}`)
		if got := stdlibUIDs(e.Data, "neighbours", "uid"); !e.OK || !slices.Contains(got, "code:class:net/http/server.go::Server") || !slices.Contains(got, "code:file:net/http/server.go") {
			t.Errorf("containment of %s: %v (%+v)", method, got, e.Error)
		}
	})

	// No change: the re-index appends nothing and the log still verifies.
	head := idxHead(t, s)
	again := stdlibIndex(t, s)
	stdlibLogRun(t, "GOROOT/src no-change re-index", again)
	if again.report.Events != 0 || again.report.FilesChanged != 0 || idxHead(t, s) != head {
		t.Errorf("no-change re-index appended: %+v, head %d → %d", again.report, head, idxHead(t, s))
	}
	if again.report.FilesSeen != full.report.FilesSeen {
		t.Errorf("no-change re-index saw %d files, the full index %d", again.report.FilesSeen, full.report.FilesSeen)
	}
}

// pythonStdlib returns the machine's Python standard library folder, or
// skips t when python3 is absent.
func pythonStdlib(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("python3", "-c", `import sysconfig;print(sysconfig.get_paths()["stdlib"])`).Output()
	if err != nil {
		t.Skipf("no python3: %v", err)
	}
	root := strings.TrimSpace(string(out))
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		t.Skipf("python stdlib %q not found", root)
	}
	return root
}

// mirrorStdlib recreates the regular files of src under dst (hard links,
// copies where linking fails), leaving out site-packages and dist-packages:
// third-party code installed beside the standard library, often many times
// its size, which cos_graph_index has no option to exclude (the extractor's
// default exclusions are node_modules, vendor, .venv, __pycache__, dist,
// build and .cos). Symlinks are left out too (the index skips them anyway).
func mirrorStdlib(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: the real index would record it, the mirror leaves it out
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir() && (d.Name() == "site-packages" || d.Name() == "dist-packages" || d.Name() == "__pycache__"):
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		if os.Link(p, target) == nil {
			return nil
		}
		return copyFile(p, target)
	})
	if err != nil {
		t.Fatalf("mirror %s: %v", src, err)
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return nil // unreadable: left out, as above
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// TestStdlib_Python indexes the machine's Python standard library (without
// site-packages, see mirrorStdlib) through cos_graph_index: the index
// completes and verifies, the doctor is within the allowance, json.loads
// resolves and is referenced, and a class inherits through inherits_from.
func TestStdlib_Python(t *testing.T) {
	stdlibLong(t)
	root := filepath.Join(t.TempDir(), "stdlib")
	mirrorStdlib(t, pythonStdlib(t), root)
	s := idxOpen(t, t.TempDir(), root)

	full := stdlibIndex(t, s)
	stdlibLogRun(t, "Python stdlib full index", full)
	if full.report.FilesChanged == 0 || full.report.Nodes == 0 || full.report.Edges == 0 {
		t.Fatalf("full index found nothing: %+v", full.report)
	}
	stdlibDoctor(t, s)

	const loads = "code:function:json/__init__.py::loads"
	t.Run("json_loads", func(t *testing.T) {
		e := idxCall(t, s, "cos_graph_resolve", `{"q":"`+loads+`"}`)
		if got := stdlibUIDs(e.Data, "results", "uid"); !e.OK || len(got) == 0 || got[0] != loads {
			t.Fatalf("resolve %s: %+v", loads, e)
		}
		e = idxCall(t, s, "cos_graph_references", `{"uid":"`+loads+`"}`)
		if !e.OK {
			t.Fatalf("references %s: %s %s", loads, e.Error.Code, e.Error.Message)
		}
		refs := stdlibUIDs(e.Data, "references", "source")
		e = idxCall(t, s, "cos_graph_impact", `{"uid":"`+loads+`","depth":1}`)
		if !e.OK {
			t.Fatalf("impact %s: %s %s", loads, e.Error.Code, e.Error.Message)
		}
		callers := stdlibUIDs(e.Data, "nodes", "uid")
		t.Logf("json.loads: %d references (e.g. %v), %d direct dependents", len(refs), refs[:min(5, len(refs))], len(callers))
		if len(refs)+len(callers) == 0 {
			t.Errorf("json.loads has neither callers nor references")
		}
	})
	t.Run("inherits_from", func(t *testing.T) {
		// A class-to-class inheritance resolved inside the library: find one
		// in the graph, then the tools must show it from both ends.
		var sub, base string
		classes := 0
		s.tailer.View(func(projections.Position) {
			for _, de := range s.graph.Dump().Edges {
				e := de.Edge
				if e.Type == graph.EdgeInheritsFrom && strings.HasPrefix(e.Source, "code:class:") && strings.HasPrefix(e.Target, "code:class:") {
					classes++
					if sub == "" || e.Source < sub {
						sub, base = e.Source, e.Target
					}
				}
			}
		})
		t.Logf("%d class-to-class inherits_from edges, e.g. %s → %s", classes, sub, base)
		if classes == 0 {
			t.Fatal("no inherits_from edge between two classes of the Python standard library")
		}
		e := idxCall(t, s, "cos_graph_context", `{"uid_or_name":"`+sub+`","edge_types":["inherits_from"]}`)
		if !e.OK {
			t.Fatalf("context %s: %s %s", sub, e.Error.Code, e.Error.Message)
		}
		if got := stdlibUIDs(e.Data, "neighbours", "uid"); !slices.Contains(got, base) {
			t.Errorf("context of %s along inherits_from: %v lack %s", sub, got, base)
		}
		e = idxCall(t, s, "cos_graph_references", `{"uid":"`+base+`","kinds":["inherits_from"]}`)
		if got := stdlibUIDs(e.Data, "references", "source"); !e.OK || !slices.Contains(got, sub) {
			t.Errorf("references of %s: %v lack %s (%+v)", base, got, sub, e.Error)
		}
	})
}
