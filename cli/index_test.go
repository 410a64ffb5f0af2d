package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/projections"
)

func writeIndexRepo(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.mod":  "module example.com/x\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() { helper() }\n\nfunc helper() {}\n",
		"doc.md":  "# Title\n\nSee [main](main.go).\n",
	}
	for p, body := range files {
		if err := os.WriteFile(filepath.Join(root, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestIndex_SummaryLineThenNoChange(t *testing.T) {
	state, root := t.TempDir(), writeIndexRepo(t)
	code, out, errs := run(t, state, "index", root)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	line := regexp.MustCompile(`^indexed .+: 3 files seen, 3 changed, 0 removed, 0 failed, 0 skipped; Go: 1 files type-checked \(\d+ packages\); graph (\d+) nodes, (\d+) edges; 3 events \(.+\) in [0-9.]+ s \(\+[0-9.]+ s projecting\); slowest: .+ ms\n$`)
	m := line.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("summary line %q", out)
	}
	// The counts are the graph's, as cos_health says them (they were
	// node and edge records per extracted file).
	code, health, _ := run(t, state, "call", "cos_health", `{}`)
	var h struct {
		Data struct {
			Graph struct{ Nodes, Edges int } `json:"graph"`
		} `json:"data"`
	}
	if code != 0 || json.Unmarshal([]byte(health), &h) != nil || fmt.Sprint(h.Data.Graph.Nodes) != m[1] || fmt.Sprint(h.Data.Graph.Edges) != m[2] {
		t.Fatalf("summary says %s nodes, %s edges; cos_health: %d %s", m[1], m[2], code, health)
	}
	if strings.Contains(errs, "indexing") {
		t.Fatalf("a progress bar on a non-terminal stderr: %q", errs)
	}
	code, out, _ = run(t, state, "index", root)
	if code != 0 || !strings.Contains(out, "3 files seen, 0 changed") || !strings.Contains(out, "; 0 events") {
		t.Fatalf("second index: %d %q", code, out)
	}
	// The graph answers about what was indexed.
	code, out, _ = run(t, state, "call", "cos_graph_context", `{"uid_or_name":"code:function:main.go::main"}`)
	if code != 0 || !strings.Contains(out, "code:function:main.go::helper") {
		t.Fatalf("context after index: %d %s", code, out)
	}
}

func TestIndex_JSONReport(t *testing.T) {
	state, root := t.TempDir(), writeIndexRepo(t)
	code, out, errs := run(t, state, "index", "--json", root)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Report indexing.Report `json:"report"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	r := got.Report
	if r.FilesSeen != 3 || r.FilesChanged != 3 || r.Events != 3 || r.Transactions != 1 || r.Bytes == 0 || r.Nodes == 0 {
		t.Fatalf("report %+v", r)
	}
}

func TestIndex_Failures(t *testing.T) {
	state := t.TempDir()
	file := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"missing folder", []string{"index", filepath.Join(state, "nope")}, ExitError, "E_PATH: "},
		{"a file", []string{"index", file}, ExitError, "E_PATH: "},
		{"two paths, the first missing", []string{"index", "a", "b"}, ExitError, "E_PATH: a is not a readable folder"},
		{"a name for two paths", []string{"index", "--name", "x", "a", "b"}, ExitUsage, "--name names one new root"},
		{"remove with a path", []string{"index", "--remove", "x", "a"}, ExitUsage, "--remove takes no PATH"},
		{"remove an unknown root", []string{"index", "--remove", "nosuch"}, ExitError, "E_NOT_FOUND: no root is indexed"},
		{"remove nothing", []string{"index", "--remove", ""}, ExitUsage, "--remove names a root"},
	}
	for _, c := range cases {
		code, out, errs := run(t, state, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and %q", c.name, code, out, errs, c.code, c.want)
		}
	}
}

func TestSummaryLine_NamesTheSlowest(t *testing.T) {
	r := indexing.Report{Root: "/r", FilesSeen: 10, FilesChanged: 2, FilesReextracted: 1, FilesRemoved: 1, FilesWithParseErrors: 1,
		FilesTrimmed: 1, Nodes: 5, Edges: 7, Events: 4, Bytes: 3 << 20, Seconds: 1.5}
	r.Slowest = []extract.Timing{{Path: "a/b/c.go", MS: 41.2}}
	got := summaryLine(r, 0.25, &projections.GraphCounts{Nodes: 5, Edges: 7})
	want := "indexed /r: 10 files seen, 3 changed, 1 removed, 0 failed, 0 skipped, 1 with parse errors, 1 trimmed to the event limit; " +
		"graph 5 nodes, 7 edges; 4 events (3.0 MB) in 1.50 s (+0.25 s projecting); slowest: c.go 41 ms"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestIndex_PreciseFlags(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no indexer anywhere
	t.Setenv(SCIPToolsEnv, "")
	state, root := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.py"), []byte("def f():\n    pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, state, "index", "--precise", "--scip-tools", t.TempDir(), root)
	if code != 0 || !strings.Contains(out, "; precise: scip-python not installed;") {
		t.Fatalf("exit %d, summary %q, stderr %q", code, out, errs)
	}
	junk := filepath.Join(t.TempDir(), "index.scip")
	if err := os.WriteFile(junk, []byte("\xff\xfe not an index"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = run(t, state, "index", "--scip", junk, root)
	if code != 1 || !strings.Contains(errs, "E_ARGUMENT") || !strings.Contains(errs, "not a SCIP index") {
		t.Fatalf("bad --scip: exit %d, stderr %q", code, errs)
	}
}

// TestPreciseSummary: the summary line says what an indexer's report
// says of a partial index and how many sites keep inferred edges.
func TestPreciseSummary(t *testing.T) {
	got := preciseSummary(indexing.PreciseReport{
		Indexers:      []indexing.IndexerReport{{Name: "scip-typescript", Indexer: "scip-typescript 0.4.0", Status: indexing.IndexerOK, FilesPrecise: 3, Message: "3 of 9 documents are files of this tree"}},
		InferredSites: 2,
	})
	want := "precise: scip-typescript 0.4.0 3 files (3 of 9 documents are files of this tree) (2 sites the index did not cover keep inferred edges)"
	if got != want {
		t.Fatalf("summary\n got %q\nwant %q", got, want)
	}
}

// --file-timeout bounds each file's extraction: a file past it is skipped
// with reason timeout and the rest indexed; a limit that is not positive is
// a usage error.
func TestIndex_FileTimeout(t *testing.T) {
	state, root := t.TempDir(), writeIndexRepo(t)
	var b strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&b, "def f%d(x):\n    return f%d(x) + g(x)\n\n", i, max(i-1, 0))
	}
	if err := os.WriteFile(filepath.Join(root, "slow.py"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, state, "index", "--json", "--file-timeout", "1ms", root)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Report indexing.Report `json:"report"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	found := false
	for _, n := range got.Report.Skipped {
		found = found || n == extract.FileNote{Path: "slow.py", Reason: extract.SkipTimeout}
	}
	if !found || got.Report.FilesSkipped == 0 {
		t.Fatalf("slow.py not skipped for its time: %+v", got.Report.Skipped)
	}
	for _, bad := range []string{"0", "-1s"} {
		if code, _, errs := run(t, state, "index", "--file-timeout", bad, root); code != ExitUsage || !strings.Contains(errs, "--file-timeout") {
			t.Errorf("--file-timeout %s: exit %d, %q", bad, code, errs)
		}
	}
}

// --force extracts every file again, changed or not.
func TestIndex_Force(t *testing.T) {
	state, root := t.TempDir(), writeIndexRepo(t)
	if code, _, errs := run(t, state, "index", root); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, out, errs := run(t, state, "index", "--force", root)
	if code != 0 || !strings.Contains(out, "3 files seen, 3 changed") || !strings.Contains(out, "; 3 events") {
		t.Fatalf("forced index: exit %d, %q %s", code, out, errs)
	}
}

// A snapshot that failed after the index is named in the summary line.
func TestSummaryLine_SnapshotFailed(t *testing.T) {
	r := indexing.Report{Root: "/r", FilesSeen: 1, FilesChanged: 1, Events: 1, SnapshotError: "open snapshots: not a directory"}
	got := summaryLine(r, 0, nil)
	if !strings.HasSuffix(got, "; snapshot failed (the index is saved; the next start replays it from the log): open snapshots: not a directory") {
		t.Fatalf("summary %q", got)
	}
}

// TestIndex_SmallEditWritesNoSnapshot: cos index snapshots at its end only
// when the replay it saves is worth the snapshot (state.SnapshotDue); an
// edit of one file of an indexed tree writes none, as it wrote the whole
// snapshot before (a 253 MB file for a 10-file edit of the Linux kernel).
func TestIndex_SmallEditWritesNoSnapshot(t *testing.T) {
	state, root := t.TempDir(), writeIndexRepo(t)
	snapshots := func() []string {
		m, _ := filepath.Glob(filepath.Join(state, projections.SnapshotDirName, "snap-*.bin"))
		return m
	}
	if code, _, errs := run(t, state, "index", root); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	before := snapshots()
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc main() { helper() }\n\nfunc helper() { other() }\n\nfunc other() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, state, "index", "--json", root)
	var got struct {
		Report indexing.Report `json:"report"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	if got.Report.FilesChanged != 1 || got.Report.SnapshotSeq != 0 || len(snapshots()) != len(before) {
		t.Fatalf("an edit of one file: %d changed, snapshot seq %d, snapshots %v → %v; want one changed and no snapshot",
			got.Report.FilesChanged, got.Report.SnapshotSeq, before, snapshots())
	}
}
