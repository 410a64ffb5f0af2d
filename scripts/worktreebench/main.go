// Command worktreebench measures worktree mode (package worktree) on a
// real repository: it clones -repo into a temporary folder, indexes it,
// adds -worktrees linked worktrees with -files changed Go files each (a
// function added to each file; the first file, in the package -pkg, also
// gets a caller of the method -changed), and serves each worktree over the
// main tree's state folder as cos serve does (an overlay kept current by
// its watcher).
//
// It reports the live heap (HeapAlloc after GC, once it stops moving) of
// a base state and what each worktree state adds over it, per changed
// file, beside the overlay's payload bytes and what its first sync
// applied; then the median latency of reads (references and impact of the
// changed method and of -unchanged, a method the worktrees leave alone)
// through the tool runner, base vs each worktree, and the worst ratio.
// -heapprofile writes heap profiles to compare with go tool pprof -base.
//
//	go run ./scripts/worktreebench -repo PATH_OR_URL [-worktrees 4 -files 20 -reads 50]
//	go run ./scripts/worktreebench -repo XTOOLS_GIT -pkg go/ssa -changed Function.Name -unchanged Function.RelString
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/state"
	"github.com/cos-dev/cos/tools"
	"github.com/cos-dev/cos/worktree"
)

func main() {
	repo := flag.String("repo", "", "git repository to clone (a path or URL)")
	n := flag.Int("worktrees", 4, "linked worktrees")
	files := flag.Int("files", 20, "changed Go files per worktree")
	reads := flag.Int("reads", 50, "calls per read measured")
	method := flag.String("changed", "Command.Name", "label (Type.method) of the method the worktrees add a caller to")
	other := flag.String("unchanged", "Command.Execute", "label of a method they leave alone")
	pkg := flag.String("pkg", ".", "folder (in the repository) of the package defining -changed: its files are changed first, then the repository's other Go files")
	profile := flag.String("heapprofile", "", "folder to write heap profiles to (base.pprof after the base state, wtN.pprof after each worktree state; compare with go tool pprof -base)")
	flag.Parse()
	if *repo == "" {
		fmt.Fprintln(os.Stderr, "worktreebench: -repo is required")
		os.Exit(2)
	}
	if err := run(*repo, *pkg, *profile, *n, *files, *reads, *method, *other, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "worktreebench:", err)
		os.Exit(1)
	}
}

func git(dir string, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.com", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %v: %v: %s", args, err, out)
	}
	return nil
}

// heap is the bytes of live heap objects after a collection (HeapAlloc:
// HeapInuse also counts the free room in the spans in use, which moves by
// a MiB from one collection to the next).
func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// settled is heap once it stops moving: a state just opened fills its
// search index and drops what that took in the background.
func settled() uint64 {
	h := heap()
	for range 50 {
		time.Sleep(100 * time.Millisecond)
		h2 := heap()
		if max(h, h2)-min(h, h2) < 32<<10 {
			return h2
		}
		h = h2
	}
	return h
}

func run(repo, pkg, profile string, n, nfiles, reads int, method, other string, out io.Writer) error {
	ctx := context.Background()
	if profile != "" {
		runtime.MemProfileRate = 4096 // fine enough to see a state's small parts
	}
	tmp, err := os.MkdirTemp("", "worktreebench-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	main := filepath.Join(tmp, "main")
	if err := git(tmp, "clone", "-q", repo, main); err != nil {
		return err
	}
	if main, err = filepath.EvalSymlinks(main); err != nil {
		return err
	}
	stateDir := filepath.Join(main, ".cos")
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	open := func(overlay bool) (*state.State, error) {
		return state.Open(ctx, state.Options{Dir: stateDir, NATS: bus.ModeOff, NoSnapshots: overlay, Logger: logger})
	}
	// Index the main tree, then close: every state below starts alike.
	st, err := open(false)
	if err != nil {
		return err
	}
	ix, err := indexing.New(st, indexing.Options{Roots: []string{main}, Logger: logger})
	if err != nil {
		return err
	}
	start := time.Now()
	rep, err := ix.IndexWith(ctx, main, indexing.RunOptions{})
	if err != nil {
		return err
	}
	if _, err := st.Snapshot(ctx); err != nil {
		return err
	}
	_ = st.Close(ctx)
	fmt.Fprintf(out, "indexed %s: %d files in %.2fs\n", repo, rep.FilesSeen, time.Since(start).Seconds())

	goFiles, err := goFilesOf(main, pkg)
	if err != nil {
		return err
	}
	if len(goFiles) < nfiles {
		return fmt.Errorf("%d Go files, fewer than -files %d", len(goFiles), nfiles)
	}

	h0 := settled()
	base, err := open(false)
	if err != nil {
		return err
	}
	defer func() { _ = base.Close(ctx) }()
	firstHeap := int64(settled()) - int64(h0)
	// The first state also pays for what a process loads once (the
	// extractors' tables, …): a second one is what each further state
	// costs, the figure a worktree state compares with.
	if err := writeProfile(profile, "base0"); err != nil {
		return err
	}
	h1 := settled()
	base2, err := open(false)
	if err != nil {
		return err
	}
	defer func() { _ = base2.Close(ctx) }()
	baseHeap := int64(settled()) - int64(h1)
	if err := writeProfile(profile, "base"); err != nil {
		return err
	}
	baseR := tools.New(base, nil, tools.Options{})
	changedUID, otherUID, err := uids(base, method, other)
	caller, call, _ := strings.Cut(method, ".")
	if err != nil {
		return err
	}

	type wtState struct {
		name  string
		st    *state.State
		svc   *worktree.Service
		r     *tools.Runner
		heap  int64
		files int
		// applied is how many files the first sync applied (the
		// changed ones and any it extracted again with them).
		applied int
		sync    time.Duration
	}
	var wts []*wtState
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { stop(); wg.Wait() }()
	for i := range n {
		name := fmt.Sprintf("wt%d", i+1)
		dir := filepath.Join(tmp, name)
		if err := git(main, "worktree", "add", "-q", "-b", name, dir); err != nil {
			return err
		}
		if dir, err = filepath.EvalSymlinks(dir); err != nil {
			return err
		}
		// nfiles files, a different window per worktree; each gets a
		// function, the first a caller of the changed method.
		for k := range nfiles {
			rel := goFiles[(i*5+k)%len(goFiles)]
			add := fmt.Sprintf("\nfunc worktreeAdded%d_%d() int { return %d }\n", i, k, k)
			if k == 0 {
				add += fmt.Sprintf("\nfunc worktreeCaller%d(c *%s) string { return c.%s() }\n", i, caller, call)
			}
			if err := appendTo(filepath.Join(dir, rel), add); err != nil {
				return err
			}
		}
		info, ok, err := worktree.Detect(ctx, dir)
		if err != nil || !ok {
			return fmt.Errorf("detect %s: %v, %v", dir, ok, err)
		}
		hb := settled()
		wst, err := open(true)
		if err != nil {
			return err
		}
		defer func() { _ = wst.Close(ctx) }()
		svc, err := worktree.NewService(ctx, wst, worktree.Options{Worktree: info, Logger: logger})
		if err != nil {
			return err
		}
		t0 := time.Now()
		res, err := svc.Overlay().Sync(ctx)
		if err != nil {
			return err
		}
		w := &wtState{name: name, st: wst, svc: svc, r: tools.New(wst, nil, tools.Options{Worktree: svc}), files: res.Files, applied: len(res.Applied), sync: time.Since(t0)}
		w.heap = int64(settled()) - int64(hb)
		if err := writeProfile(profile, name); err != nil {
			return err
		}
		wg.Go(func() { svc.Run(runCtx) })
		wts = append(wts, w)
	}
	time.Sleep(500 * time.Millisecond) // the watchers' first sync

	fmt.Fprintf(out, "\nheap: live bytes after GC, once they settle (MiB)\n")
	fmt.Fprintf(out, "  first state (with what a process loads once)  %8.2f\n", mib(firstHeap))
	fmt.Fprintf(out, "  base state (a second state, the unit compared) %8.2f\n", mib(baseHeap))
	fmt.Fprintf(out, "\n  %-6s %13s %10s %13s %12s %13s %13s\n", "state", "heap MiB", "added MiB", "added/file KiB", "files changed", "overlay KiB", "first sync")
	var added []float64
	for _, w := range wts {
		d := w.heap - baseHeap
		added = append(added, mib(d))
		perFile := 0.0
		if w.files > 0 {
			perFile = float64(d) / 1024 / float64(w.files)
		}
		fmt.Fprintf(out, "  %-6s %13.2f %+10.2f %+13.1f %12d %13.1f  %5.0f ms, %d files applied\n",
			w.name, mib(w.heap), mib(d), perFile, w.files, float64(w.svc.Overlay().Bytes())/1024, float64(w.sync.Microseconds())/1000, w.applied)
	}
	slices.Sort(added)
	fmt.Fprintf(out, "  summary: base %.2f MiB; each worktree with %d changed files adds %+.2f MiB (median; %.1f%% of base)\n",
		mib(baseHeap), nfiles, added[len(added)/2], 100*added[len(added)/2]/mib(baseHeap))

	type read struct{ name, tool, args string }
	rs := []read{
		{"references " + method + " (changed callers)", "cos_graph_references", fmt.Sprintf(`{"uid": %q}`, changedUID)},
		{"impact " + method + " (changed callers)", "cos_graph_impact", fmt.Sprintf(`{"uid": %q, "depth": 2}`, changedUID)},
		{"references " + other + " (unchanged)", "cos_graph_references", fmt.Sprintf(`{"uid": %q}`, otherUID)},
		{"impact " + other + " (unchanged)", "cos_graph_impact", fmt.Sprintf(`{"uid": %q, "depth": 2}`, otherUID)},
	}
	fmt.Fprintf(out, "\nread latency, median of %d calls (µs): base | %s | worst worktree/base\n", reads, strings.Join(names(len(wts)), " | "))
	runners := []*tools.Runner{baseR}
	for _, w := range wts {
		runners = append(runners, w.r)
	}
	for _, rd := range rs {
		ds, counts, err := medians(ctx, runners, rd.tool, rd.args, reads)
		if err != nil {
			return err
		}
		line := fmt.Sprintf("  %-40s %7.0f", rd.name, us(ds[0]))
		worst := 0.0
		for _, d := range ds[1:] {
			line += fmt.Sprintf(" | %7.0f", us(d))
			worst = max(worst, float64(d)/float64(ds[0]))
		}
		fmt.Fprintf(out, "%s | %.2fx  (count base %d, worktrees %v)\n", line, worst, counts[0], counts[1:])
	}
	return nil
}

// writeProfile writes the heap profile to folder/name.pprof, after a
// collection; nothing when folder is empty.
func writeProfile(folder, name string) error {
	if folder == "" {
		return nil
	}
	f, err := os.Create(filepath.Join(folder, name+".pprof"))
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("wt%d", i+1)
	}
	return out
}

func mib(b int64) float64        { return float64(b) / (1 << 20) }
func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }

// warmUp is how many calls each runner makes before the timed ones.
const warmUp = 5

// medians calls tool n times on each runner, the runners taking turns
// (so that load on the machine falls on all alike), and returns each
// runner's median latency and its answer's count.
func medians(ctx context.Context, rs []*tools.Runner, tool, args string, n int) ([]time.Duration, []int, error) {
	ds := make([][]time.Duration, len(rs))
	counts := make([]int, len(rs))
	for i := -warmUp; i < n; i++ {
		for k := range rs {
			// The runners take turns in a rotating order: none
			// always runs first (after the others' garbage).
			j := (k + i + warmUp) % len(rs)
			r := rs[j]
			t0 := time.Now()
			env := r.Call(ctx, tool, json.RawMessage(args), envelope.Options{})
			d := time.Since(t0)
			if !env.OK() {
				return nil, nil, fmt.Errorf("%s %s: %s", tool, args, env.JSON())
			}
			if i < 0 {
				continue
			}
			ds[j] = append(ds[j], d)
			if i == 0 {
				var doc struct {
					Data struct {
						Count int `json:"count"`
					} `json:"data"`
				}
				_ = json.Unmarshal(env.JSON(), &doc)
				counts[j] = doc.Data.Count
			}
		}
	}
	out := make([]time.Duration, len(rs))
	for j := range ds {
		slices.Sort(ds[j])
		out[j] = ds[j][n/2]
	}
	return out, counts, nil
}

// uids finds the methods labelled method and other (the first by uid,
// kind method).
func uids(st *state.State, method, other string) (string, string, error) {
	var a, b string
	err := st.Read(context.Background(), func(v state.View) {
		find := func(label string) string {
			var us []string
			for _, n := range v.Graph.NodesByLabel(label) {
				if n.Kind == "method" && !strings.HasSuffix(n.Path, "_test.go") {
					us = append(us, n.UID)
				}
			}
			sort.Strings(us)
			if len(us) == 0 {
				return ""
			}
			return us[0]
		}
		a, b = find(method), find(other)
	})
	if err != nil {
		return "", "", err
	}
	if a == "" || b == "" {
		return "", "", fmt.Errorf("no method %q or %q in the graph", method, other)
	}
	return a, b, nil
}

// goFilesOf lists, relative to dir, the non-test Go files of the package
// in dir/pkg, then its test files, then the other Go files under dir
// (outside testdata and hidden folders), sorted: the first ones edit the
// package defining the changed method.
func goFilesOf(dir, pkg string) ([]string, error) {
	pkg = filepath.Clean(pkg)
	var src, tests, rest []string
	err := filepath.WalkDir(dir, func(path string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := e.Name()
		if e.IsDir() {
			if path != dir && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		switch {
		case filepath.Dir(rel) != pkg:
			rest = append(rest, rel)
		case strings.HasSuffix(name, "_test.go"):
			tests = append(tests, rel)
		default:
			src = append(src, rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(src) == 0 {
		return nil, fmt.Errorf("no Go files in -pkg %s", pkg)
	}
	return slices.Concat(src, tests, rest), nil
}

func appendTo(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
