// Command worktreebench measures worktree mode (package worktree) on a
// real repository: it clones -repo into a temporary folder, indexes it,
// adds -worktrees linked worktrees with -files changed Go files each (a
// function added to each file; one of them calls an existing method), and
// serves each worktree over the main tree's state folder as cos serve
// does (an overlay kept current by its watcher). It reports the heap in
// use (after runtime.GC) each state adds, and the median latency of reads
// (references and impact of a symbol the worktrees change the callers of,
// and of one they do not) through the tool runner, base vs worktree.
//
//	go run ./scripts/worktreebench -repo PATH_OR_URL [-worktrees 4 -files 20 -reads 50]
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
	flag.Parse()
	if *repo == "" {
		fmt.Fprintln(os.Stderr, "worktreebench: -repo is required")
		os.Exit(2)
	}
	if err := run(*repo, *n, *files, *reads, *method, *other, os.Stdout); err != nil {
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

// heap is the heap in use after a collection.
func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func run(repo string, n, nfiles, reads int, method, other string, out io.Writer) error {
	ctx := context.Background()
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

	goFiles, err := goFilesOf(main)
	if err != nil {
		return err
	}
	if len(goFiles) < nfiles {
		return fmt.Errorf("%d Go files, fewer than -files %d", len(goFiles), nfiles)
	}

	h0 := heap()
	base, err := open(false)
	if err != nil {
		return err
	}
	defer func() { _ = base.Close(ctx) }()
	firstHeap := int64(heap()) - int64(h0)
	// The first state also pays for what a process loads once (the
	// extractors' tables, …): a second one is what each further state
	// costs, the figure a worktree state compares with.
	h1 := heap()
	base2, err := open(false)
	if err != nil {
		return err
	}
	defer func() { _ = base2.Close(ctx) }()
	baseHeap := int64(heap()) - int64(h1)
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
		sync  time.Duration
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
		hb := heap()
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
		w := &wtState{name: name, st: wst, svc: svc, r: tools.New(wst, nil, tools.Options{Worktree: svc}), files: res.Files, sync: time.Since(t0)}
		w.heap = int64(heap()) - int64(hb)
		wg.Go(func() { svc.Run(runCtx) })
		wts = append(wts, w)
	}
	time.Sleep(500 * time.Millisecond) // the watchers' first sync

	fmt.Fprintf(out, "\nheap in use added (after GC), MiB:\n  first base state  %8.2f\n  base state        %8.2f\n", mib(firstHeap), mib(baseHeap))
	for _, w := range wts {
		fmt.Fprintf(out, "  %-6s state      %8.2f  (%+.2f MiB over base; overlay %d files, %.1f KiB of payloads; first sync %.0f ms)\n",
			w.name, mib(w.heap), mib(w.heap-baseHeap), w.files, float64(w.svc.Overlay().Bytes())/1024, float64(w.sync.Microseconds())/1000)
	}

	type read struct{ name, tool, args string }
	rs := []read{
		{"references " + method + " (changed callers)", "cos_graph_references", fmt.Sprintf(`{"uid": %q}`, changedUID)},
		{"impact " + method + " (changed callers)", "cos_graph_impact", fmt.Sprintf(`{"uid": %q, "depth": 2}`, changedUID)},
		{"references " + other + " (unchanged)", "cos_graph_references", fmt.Sprintf(`{"uid": %q}`, otherUID)},
		{"impact " + other + " (unchanged)", "cos_graph_impact", fmt.Sprintf(`{"uid": %q, "depth": 2}`, otherUID)},
	}
	fmt.Fprintf(out, "\nread latency, median of %d calls (µs): base | %s | worst ratio\n", reads, strings.Join(names(len(wts)), " | "))
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
		for j, r := range rs {
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

// goFilesOf lists the non-test Go files of the package at the top of dir
// and, after them, its test files: edits that stay in one package.
func goFilesOf(dir string) ([]string, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var src, tests []string
	for _, e := range es {
		switch n := e.Name(); {
		case e.IsDir() || !strings.HasSuffix(n, ".go"):
		case strings.HasSuffix(n, "_test.go"):
			tests = append(tests, n)
		default:
			src = append(src, n)
		}
	}
	return append(src, tests...), nil
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
