package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/state"
)

// rootsBenchRoots is how many roots BenchmarkRoots_GoSrc splits the copy of
// GOROOT/src into.
const rootsBenchRoots = 10

// rootsBenchSample is how many functions and methods the read benchmarks
// ask about.
const rootsBenchSample = 50

// BenchmarkRoots_GoSrc compares one root with ten roots holding the same
// files: a copy of $(go env GOROOT)/src split into ten folders P/r0 … P/r9
// of about 1,000 files each (its top-level folders and the folders of cmd,
// the largest first, each into the folder holding the fewest files so far).
// Layout "one" indexes P as a single root; layout "ten" indexes P/r0 …
// P/r9 as ten roots of one state folder (r0 is the primary root, r1 … r9
// are named, their uids carry rN//), as `cos index P/r0 … P/r9` does (each
// run takes a snapshot at its end); "ten-last-snapshot" the same with a
// snapshot after the last run only (index sub-benchmark only). The index sub-benchmarks report the
// wall and CPU time per file seen (index-ns/file, index-cpu-ns/file; the
// snapshot each run takes at its end included, snapshot-s), the Go files
// type-checked and packages checked, the catch-up after it (project-s), and
// log the indexing phases summed over the roots; the read sub-benchmarks ask
// cos_graph_context, cos_graph_impact and cos_graph_resolve about the same
// fixed-seed sample of 50 functions and methods in both layouts, one
// after the other in each op (one-ns/call, ten-ns/call and their ratio
// x-one; the same in process CPU time).
// Target: per-file index cost as for one root, reads within 1.2x. Skipped
// unless COS_ROOTS_BENCH=1 (about 10,000 files indexed twice). Run with
//
//	COS_ROOTS_BENCH=1 go test -run '^$' -bench BenchmarkRoots_GoSrc -timeout 30m ./tools
//
// (each layout is indexed once, as that takes longer than -benchtime; the
// reads repeat for -benchtime, default 1 s).
func BenchmarkRoots_GoSrc(b *testing.B) {
	if os.Getenv("COS_ROOTS_BENCH") != "1" {
		b.Skip("set COS_ROOTS_BENCH=1 to index GOROOT/src as one root and as ten")
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	if _, err := os.Stat(src); err != nil {
		b.Skipf("no GOROOT/src: %v", err)
	}
	parent := filepath.Join(b.TempDir(), "P")
	bins, err := splitGoSrc(src, rootsBenchRoots)
	if err != nil {
		b.Fatal(err)
	}
	var folders []string
	for i, bin := range bins {
		folder := filepath.Join(parent, fmt.Sprintf("r%d", i))
		folders = append(folders, folder)
		for _, unit := range bin.units {
			if err := copyTree(filepath.Join(src, unit), filepath.Join(folder, unit)); err != nil {
				b.Fatal(err)
			}
		}
		b.Logf("r%d: %d files (%s)", i, bin.files, strings.Join(bin.units, " "))
	}
	ctx := context.Background()

	layouts := []struct {
		name  string
		roots []string
		// lastSnapshot: only the last root's run takes a snapshot.
		lastSnapshot bool
	}{{"one", []string{parent}, false}, {"ten", folders, false}, {"ten-last-snapshot", folders, true}}
	servers := map[string]*testServer{}
	stateParent := b.TempDir() // outlives the index sub-benchmarks: the reads use their state
	b.Cleanup(func() {
		for _, s := range servers {
			s.Close()
		}
	})
	for _, l := range layouts {
		b.Run("index/"+l.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				if s := servers[l.name]; s != nil {
					s.Close()
				}
				dir, err := os.MkdirTemp(stateParent, l.name)
				if err != nil {
					b.Fatal(err)
				}
				s, err := openTestServer(ctx, testOptions{StateDir: dir, Roots: []string{parent}, NATS: "off", NoBackgroundSnapshots: true})
				if err != nil {
					b.Fatal(err)
				}
				servers[l.name] = s
				b.StartTimer()
				start, cpu0 := time.Now(), processCPU()
				files, typed, checked, nodes, snapshot := 0, 0, 0, 0, 0.0
				phases := map[string]float64{}
				for i, root := range l.roots {
					var o indexing.RunOptions
					if l.lastSnapshot && i < len(l.roots)-1 {
						o.SnapshotMinBytes = -1
					}
					rep, err := s.IndexWith(ctx, root, o)
					if err != nil {
						b.Fatal(err)
					}
					files += rep.FilesSeen
					typed += rep.GoFilesTyped
					checked += rep.GoPackagesChecked
					nodes += rep.Nodes
					snapshot += rep.SnapshotSeconds
					for _, ph := range rep.Phases {
						phases[ph.Name] += ph.Seconds
					}
				}
				wall, cpu := time.Since(start), processCPU()-cpu0
				b.StopTimer()
				b.ReportMetric(float64(typed), "go-files-typed/op")
				b.ReportMetric(float64(checked), "go-packages-checked/op")
				b.ReportMetric(float64(nodes), "nodes/op")
				b.ReportMetric(snapshot, "snapshot-s/op")
				var parts []string
				for _, name := range slices.Sorted(maps.Keys(phases)) {
					parts = append(parts, fmt.Sprintf("%s %.1f s", name, phases[name]))
				}
				b.Logf("%s: %d roots; phases summed over them: %s", l.name, len(l.roots), strings.Join(parts, ", "))
				settle := time.Now()
				if _, err := s.tailer.CatchUp(ctx); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(time.Since(settle).Seconds(), "project-s/op")
				logGraph(b, s)
				b.ReportMetric(float64(files), "files/op")
				b.ReportMetric(float64(wall.Nanoseconds())/float64(files), "index-ns/file")
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(files), "index-cpu-ns/file")
				b.StartTimer()
			}
		})
		if b.Failed() {
			return
		}
	}
	servers["ten-last-snapshot"].Close() // the reads ask "one" and "ten"
	delete(servers, "ten-last-snapshot")

	one, ten := sampleAcrossRoots(b, servers["one"], servers["ten"], rootsBenchSample)
	questions := []struct {
		tool string
		args func(uid, label string) string
	}{
		{"cos_graph_context", func(uid, _ string) string { return `{"uid_or_name": ` + jsonString(uid) + `}` }},
		{"cos_graph_impact", func(uid, _ string) string { return `{"uid": ` + jsonString(uid) + `}` }},
		{"cos_graph_resolve", func(_, label string) string { return `{"q": ` + jsonString(label) + `}` }},
	}
	for _, q := range questions {
		args := map[string][]json.RawMessage{}
		for _, l := range layouts[:2] {
			sample := one
			if l.name == "ten" {
				sample = ten
			}
			for _, n := range sample {
				a := json.RawMessage(q.args(n.UID, n.Label))
				if env := servers[l.name].Call(ctx, q.tool, a); !env.OK() {
					b.Fatalf("%s %s: %s", q.tool, a, env.JSON())
				}
				args[l.name] = append(args[l.name], a)
			}
		}
		// One op asks the 50 questions of the one-root graph, then the same
		// 50 of the ten-root graph: both layouts see the same load.
		b.Run("read/"+strings.TrimPrefix(q.tool, "cos_graph_"), func(b *testing.B) {
			b.ReportAllocs()
			wall, cpu := map[string]time.Duration{}, map[string]time.Duration{}
			calls := 0
			for b.Loop() {
				for _, l := range layouts[:2] {
					s := servers[l.name]
					start, cpu0 := time.Now(), processCPU()
					for _, a := range args[l.name] {
						if env := s.Call(ctx, q.tool, a); !env.OK() {
							b.Fatal(env.Err())
						}
					}
					wall[l.name] += time.Since(start)
					cpu[l.name] += processCPU() - cpu0
				}
				calls += len(args["one"])
			}
			for _, l := range layouts[:2] {
				b.ReportMetric(float64(wall[l.name].Nanoseconds())/float64(calls), l.name+"-ns/call")
				b.ReportMetric(float64(cpu[l.name].Nanoseconds())/float64(calls), l.name+"-cpu-ns/call")
			}
			b.ReportMetric(float64(wall["ten"])/float64(wall["one"]), "x-one")
			b.ReportMetric(float64(cpu["ten"])/float64(cpu["one"]), "cpu-x-one")
		})
	}
}

// logGraph logs the nodes and edges of the graph of s, and its nodes by
// kind.
func logGraph(b *testing.B, s *testServer) {
	b.Helper()
	kinds, edges := map[string]int{}, 0
	if err := s.st.ReadStrict(context.Background(), func(v state.View) {
		v.Graph.Nodes(func(nd graph.Node) bool {
			kinds[nd.Kind]++
			return true
		})
		edges = v.Graph.Counts().Edges
	}); err != nil {
		b.Fatal(err)
	}
	var parts []string
	nodes := 0
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, kinds[k]))
		nodes += kinds[k]
	}
	b.Logf("graph: %d nodes, %d edges; %s", nodes, edges, strings.Join(parts, ", "))
}

// goSrcBin is one folder of the split: the GOROOT/src folders it holds
// (slash-separated, relative to src) and their file count.
type goSrcBin struct {
	units []string
	files int
}

// splitGoSrc splits src into n bins of about the same number of files:
// its top-level folders and the folders of cmd (not the folders indexing
// skips, such as vendor), the largest first, each into the bin holding the
// fewest files so far.
func splitGoSrc(src string, n int) ([]goSrcBin, error) {
	skip := map[string]bool{"vendor": true, "node_modules": true, "dist": true, "build": true, "cmd": true}
	type unit struct {
		path  string
		files int
	}
	var units []unit
	add := func(dir string) error {
		entries, err := os.ReadDir(filepath.Join(src, dir))
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !e.IsDir() || skip[e.Name()] {
				continue
			}
			p := filepath.Join(dir, e.Name())
			files := 0
			if err := filepath.WalkDir(filepath.Join(src, p), func(_ string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					files++
				}
				return err
			}); err != nil {
				return err
			}
			units = append(units, unit{filepath.ToSlash(p), files})
		}
		return nil
	}
	if err := add("."); err != nil {
		return nil, err
	}
	if err := add("cmd"); err != nil {
		return nil, err
	}
	slices.SortFunc(units, func(a, b unit) int {
		if a.files != b.files {
			return b.files - a.files
		}
		return strings.Compare(a.path, b.path)
	})
	bins := make([]goSrcBin, n)
	for _, u := range units {
		least := 0
		for i := range bins {
			if bins[i].files < bins[least].files {
				least = i
			}
		}
		bins[least].units = append(bins[least].units, u.path)
		bins[least].files += u.files
	}
	return bins, nil
}

// sampleAcrossRoots picks n functions and methods of the one-root graph
// (fixed seed) and returns them with the same nodes of the ten-root graph:
// code:function:rK/rest there is code:function:rest in the primary root
// r0 and code:function:rK//rest in root rK. It fails the benchmark when a
// node is missing from the ten-root graph.
func sampleAcrossRoots(b *testing.B, one, ten *testServer, n int) (inOne, inTen []graph.Node) {
	b.Helper()
	ctx := context.Background()
	var all []graph.Node
	if err := one.st.ReadStrict(ctx, func(v state.View) {
		v.Graph.Nodes(func(nd graph.Node) bool {
			if (nd.Kind == graph.KindFunction || nd.Kind == graph.KindMethod) && strings.HasPrefix(nd.UID, "code:function:r") {
				all = append(all, nd)
			}
			return true
		})
	}); err != nil {
		b.Fatal(err)
	}
	if len(all) < n {
		b.Fatalf("the one-root graph holds %d functions and methods, want at least %d", len(all), n)
	}
	slices.SortFunc(all, func(a, b graph.Node) int { return strings.Compare(a.UID, b.UID) })
	rnd := rand.New(rand.NewPCG(1, 1))
	for _, i := range rnd.Perm(len(all))[:n] {
		inOne = append(inOne, all[i])
	}
	if err := ten.st.ReadStrict(ctx, func(v state.View) {
		for _, nd := range inOne {
			rootDir, rest, _ := strings.Cut(strings.TrimPrefix(nd.UID, "code:function:"), "/")
			name := rootDir
			if name == "r0" {
				name = ""
			}
			uid := graph.InRoot("code:function:"+rest, name)
			got, ok := v.Graph.Node(uid)
			if !ok {
				b.Errorf("%s of the one-root graph: no %s in the ten-root graph", nd.UID, uid)
				continue
			}
			inTen = append(inTen, got)
		}
	}); err != nil {
		b.Fatal(err)
	}
	if b.Failed() {
		b.FailNow()
	}
	return inOne, inTen
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	out, _ := json.Marshal(s)
	return string(out)
}
