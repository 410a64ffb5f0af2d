package cli

// Benchmarks of the watcher (`cos serve` keeping the graph current), run
// against real cos processes on copies of the Go source tree. They are
// slow (minutes) and skipped unless COS_BENCH_WATCH=1:
//
//	COS_BENCH_WATCH=1 go test -run '^$' -bench '^BenchmarkWatch_' -benchtime 1x -timeout 60m ./cli
//
// COS_BENCH_WATCH_CACHE names a folder that keeps the git copy of
// GOROOT/src, its indexed state folder and the fresh-index digests across
// runs (default: a folder under the user cache dir); COS_TEST_BIN runs
// another cos binary instead of building this tree's.

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/internal/cosbin"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/state"
)

// benchWatchBin skips b unless COS_BENCH_WATCH=1 and returns the cos
// binary to run.
func benchWatchBin(b *testing.B) string {
	b.Helper()
	if os.Getenv("COS_BENCH_WATCH") != "1" {
		b.Skip("set COS_BENCH_WATCH=1 to run the watcher benchmarks (minutes, real processes)")
	}
	if bin := os.Getenv("COS_TEST_BIN"); bin != "" {
		return bin
	}
	bin, err := cosbin.Build(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	return bin
}

// goroot is `go env GOROOT`.
func goroot(b *testing.B) string {
	b.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// benchGit runs git in dir with a fixed author and no user or system
// configuration.
func benchGit(b *testing.B, dir string, args ...string) string {
	b.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// gitCopy copies src to dst (which must not exist) and commits it on
// branch main.
func gitCopy(b *testing.B, src, dst string) {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not on PATH")
	}
	if out, err := exec.Command("cp", "-R", src, dst).CombinedOutput(); err != nil {
		b.Fatalf("cp -R %s %s: %v\n%s", src, dst, err, out)
	}
	benchGit(b, dst, "init", "-q", "-b", "main")
	benchGit(b, dst, "add", "-A")
	benchGit(b, dst, "commit", "-q", "-m", "copy of "+src)
}

// cosRun runs the cos binary and fails b when it exits non-zero.
func cosRun(b *testing.B, bin, dir string, args ...string) string {
	b.Helper()
	cmd := exec.Command(bin, append([]string{"--state-dir", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("cos %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// serveProc is a running `cos serve --stdio` process.
type serveProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *testutil.SyncBuffer
	nextID int
}

// benchServe starts `cos serve` on the state folder dir with args (NATS
// off, debug logs on stderr) and stops it when b ends.
func benchServe(b *testing.B, bin, dir string, args ...string) *serveProc {
	b.Helper()
	cmd := exec.Command(bin, append([]string{"--state-dir", dir, "serve", "--nats", "off", "--index=false", "--debug"}, args...)...)
	stdin, err := cmd.StdinPipe() // held open: the server runs until stopped
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe() // read only by mcpCall: the server writes only answers
	if err != nil {
		b.Fatal(err)
	}
	p := &serveProc{cmd: cmd, stdin: stdin, stdout: bufio.NewReaderSize(stdout, 1<<20), stderr: &testutil.SyncBuffer{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.stop)
	return p
}

// stop ends the server (stdin closed, then killed after 10 s).
func (p *serveProc) stop() {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.stdin.Close()
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

// waitLog waits until the server's stderr holds want, failing b after
// timeout.
func (p *serveProc) waitLog(b *testing.B, want string, timeout time.Duration) time.Duration {
	b.Helper()
	start := time.Now()
	for !strings.Contains(p.stderr.String(), want) {
		if time.Since(start) > timeout {
			b.Fatalf("after %v the server logged no %q; stderr:\n%s", timeout, want, p.stderr.String())
		}
		if p.cmd.ProcessState != nil {
			b.Fatalf("the server exited; stderr:\n%s", p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Since(start)
}

// mcpRequest sends one JSON-RPC request (a notification when id is 0)
// and returns the result of its answer.
func (p *serveProc) mcpRequest(b *testing.B, method string, params any, notify bool) json.RawMessage {
	b.Helper()
	req := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		req["params"] = params
	}
	if !notify {
		p.nextID++
		req["id"] = p.nextID
	}
	line, err := json.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := p.stdin.Write(append(line, '\n')); err != nil {
		b.Fatalf("%s: %v; stderr:\n%s", method, err, p.stderr.String())
	}
	if notify {
		return nil
	}
	for {
		raw, err := p.stdout.ReadBytes('\n')
		if err != nil {
			b.Fatalf("%s: reading the answer: %v; stderr:\n%s", method, err, p.stderr.String())
		}
		var resp struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(raw, &resp); err != nil {
			b.Fatalf("%s: not JSON-RPC: %v: %s", method, err, raw)
		}
		if resp.ID == nil || *resp.ID != p.nextID {
			continue // a notification
		}
		if len(resp.Error) > 0 {
			b.Fatalf("%s: %s", method, resp.Error)
		}
		return resp.Result
	}
}

// mcpInit performs the MCP initialize handshake.
func (p *serveProc) mcpInit(b *testing.B) {
	b.Helper()
	p.mcpRequest(b, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "watch-bench", "version": "0"}}, false)
	p.mcpRequest(b, "notifications/initialized", nil, true)
}

// mcpTool calls a tool and returns the text of its answer; a tool error
// fails b.
func (p *serveProc) mcpTool(b *testing.B, name, args string) string {
	b.Helper()
	res := p.mcpRequest(b, "tools/call", map[string]any{"name": name, "arguments": json.RawMessage(args)}, false)
	var r struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		b.Fatalf("%s: %v: %s", name, err, res)
	}
	var text strings.Builder
	for _, c := range r.Content {
		text.WriteString(c.Text)
	}
	if r.IsError {
		b.Fatalf("%s %s: %s", name, args, text.String())
	}
	return text.String()
}

// firstRunLine is what `cos serve --debug` logs when the watcher's first
// (full) run is over.
const firstRunLine = `msg="indexed changed files"`

// openReader opens the state folder dir in this process, as a second
// reader beside the server.
func openReader(b *testing.B, dir string) *state.State {
	b.Helper()
	st, err := state.Open(context.Background(), state.Options{Dir: dir, NATS: bus.ModeOff, NoBackgroundSnapshots: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close(context.Background()) })
	return st
}

// percentile returns the p-th percentile (0..100, nearest rank) of sorted
// durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p/100+0.999999) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// BenchmarkWatch_EditVisibleInAnotherProcess: `cos serve` (the real
// binary, watcher on) watches a git copy of GOROOT/src/net/http; this
// process, a second reader of the same state folder, polls the graph
// every 2 ms until a function moved by an edit is on its new line. The
// figure is the time from the editor's last write (os.WriteFile returned)
// to the reader seeing the new line. COS_BENCH_WATCH_SAMPLES sets the
// number of edits (default 60).
//
// The reader polls the graph (state.Read), not a tool: a tool call would
// also check the files its answer names and re-index them itself.
func BenchmarkWatch_EditVisibleInAnotherProcess(b *testing.B) {
	bin := benchWatchBin(b)
	samples := 60
	if s := os.Getenv("COS_BENCH_WATCH_SAMPLES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("COS_BENCH_WATCH_SAMPLES=%q: want a positive number", s)
		}
		samples = n
	}
	repo := filepath.Join(b.TempDir(), "http")
	gitCopy(b, filepath.Join(goroot(b), "src", "net", "http"), repo)
	dir := b.TempDir()
	b.Logf("%s", cosRun(b, bin, dir, "index", "--no-progress", repo))
	// COS_BENCH_WATCH_SERVE_ARGS="--watch=false" gives the figure
	// without the watcher (every edit missed).
	extra := strings.Fields(os.Getenv("COS_BENCH_WATCH_SERVE_ARGS"))
	srv := benchServe(b, bin, dir, extra...)
	if !slices.Contains(extra, "--watch=false") {
		b.Logf("watcher's first run over after %v", srv.waitLog(b, firstRunLine, 60*time.Second))
	}
	st := openReader(b, dir)

	const file = "header.go"
	orig, err := os.ReadFile(filepath.Join(repo, file))
	if err != nil {
		b.Fatal(err)
	}
	var uid string
	var line0 int
	if err := st.Read(context.Background(), func(v state.View) {
		v.Graph.Nodes(func(n graph.Node) bool {
			if n.Path == file && (n.Kind == "function" || n.Kind == "method") && n.Line > 0 && (line0 == 0 || n.Line < line0) {
				uid, line0 = n.UID, n.Line
			}
			return true
		})
	}); err != nil {
		b.Fatal(err)
	}
	if uid == "" {
		b.Fatalf("no function of %s in the graph", file)
	}
	lineOf := func() int {
		var l int
		if err := st.Read(context.Background(), func(v state.View) {
			if n, ok := v.Graph.Node(uid); ok {
				l = n.Line
			}
		}); err != nil {
			b.Fatal(err)
		}
		return l
	}
	b.Logf("edits move %s (line %d of %s); load average %s", uid, line0, file, loadavg())
	rng := rand.New(rand.NewPCG(1, 1))
	load := loadavg()
	b.ResetTimer()
	for b.Loop() {
		var lat []time.Duration
		missed := 0
		for i := range samples {
			pad := 1 + (i*7)%23 // never the previous sample's pad
			content := strings.Repeat("// pad\n", pad) + string(orig)
			if err := os.WriteFile(filepath.Join(repo, file), []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
			wrote := time.Now()
			for lineOf() != line0+pad {
				if time.Since(wrote) > 10*time.Second {
					missed++
					b.Logf("edit %d: %s not on line %d after 10 s", i, uid, line0+pad)
					break
				}
				time.Sleep(2 * time.Millisecond)
			}
			lat = append(lat, time.Since(wrote))
			// Edits apart from each other by 100–300 ms, as a person or
			// an agent saves.
			time.Sleep(100*time.Millisecond + time.Duration(rng.IntN(200))*time.Millisecond)
		}
		slices.Sort(lat)
		b.ReportMetric(ms(percentile(lat, 50)), "p50-ms")
		b.ReportMetric(ms(percentile(lat, 99)), "p99-ms")
		b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
		b.ReportMetric(float64(missed), "missed")
		b.Logf("%d edits: p50 %v, p90 %v, p99 %v, min %v, max %v, missed %d; load average before/after %s / %s",
			len(lat), percentile(lat, 50), percentile(lat, 90), percentile(lat, 99), lat[0], lat[len(lat)-1], missed, load, loadavg())
	}
	if err := os.WriteFile(filepath.Join(repo, file), orig, 0o644); err != nil {
		b.Fatal(err)
	}
}

// goSrcCache returns the cache folder of the GOROOT/src benchmarks:
// src/ a git copy of GOROOT/src on branch main, with a branch bench-500
// that touches 500 of its Go files (400 edited, 50 deleted, 50 added),
// and state/ a state folder indexed from src/ at main. Made once (the
// index takes minutes on 2 cores); later runs re-index incrementally.
func goSrcCache(b *testing.B, bin string) (repo, dir string) {
	b.Helper()
	cache := os.Getenv("COS_BENCH_WATCH_CACHE")
	if cache == "" {
		uc, err := os.UserCacheDir()
		if err != nil {
			b.Fatalf("no cache folder (set COS_BENCH_WATCH_CACHE): %v", err)
		}
		cache = filepath.Join(uc, "cos-bench", "watch-"+runtime.Version())
	}
	repo, dir = filepath.Join(cache, "src"), filepath.Join(cache, "state")
	if _, err := os.Stat(filepath.Join(repo, ".git", "refs", "heads", "bench-500")); err != nil {
		b.Logf("making the git copy of GOROOT/src in %s", repo)
		_ = os.RemoveAll(cache)
		if err := os.MkdirAll(cache, 0o755); err != nil {
			b.Fatal(err)
		}
		gitCopy(b, filepath.Join(goroot(b), "src"), repo)
		makeBench500(b, repo)
	}
	benchGit(b, repo, "checkout", "-q", "-f", "main")
	benchGit(b, repo, "clean", "-q", "-fd")
	start := time.Now()
	b.Logf("%s (%v)", cosRun(b, bin, dir, "index", "--no-progress", repo), time.Since(start).Round(time.Millisecond))
	return repo, dir
}

// makeBench500 commits branch bench-500 in repo: 450 Go files outside
// testdata, evenly spread, of which 50 are deleted and 400 edited (a line
// above the package clause, one function more), and 50 new files beside
// edited ones: 500 files in all. main stays checked out.
func makeBench500(b *testing.B, repo string) {
	b.Helper()
	var goFiles []string
	err := filepath.WalkDir(repo, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == ".git" || d.Name() == "vendor") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			goFiles = append(goFiles, p)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	slices.Sort(goFiles)
	step := len(goFiles) / 450
	if step < 1 {
		b.Fatalf("only %d Go files in %s", len(goFiles), repo)
	}
	benchGit(b, repo, "checkout", "-q", "-b", "bench-500")
	for i := range 450 {
		p := goFiles[i*step]
		if i%9 == 8 { // 50 deleted
			if err := os.Remove(p); err != nil {
				b.Fatal(err)
			}
			continue
		}
		// 400 edited, 50 of them with a new file beside
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		pkg := "main"
		for l := range strings.Lines(string(src)) {
			if f := strings.Fields(l); len(f) == 2 && f[0] == "package" {
				pkg = f[1]
				break
			}
		}
		edited := "// edited on bench-500\n" + string(src) + fmt.Sprintf("\nfunc benchAdded%d() int { return %d }\n", i, i)
		if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
			b.Fatal(err)
		}
		if i%9 == 0 {
			added := fmt.Sprintf("package %s\n\nfunc benchNew%d() int { return benchAdded%d() }\n", pkg, i, i)
			if err := os.WriteFile(strings.TrimSuffix(p, ".go")+"_bench500.go", []byte(added), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	benchGit(b, repo, "add", "-A")
	benchGit(b, repo, "commit", "-q", "-m", "bench-500: 500 files touched")
	n := strings.Count(benchGit(b, repo, "diff", "--name-only", "main", "bench-500"), "\n") + 1
	b.Logf("branch bench-500 touches %d files", n)
	benchGit(b, repo, "checkout", "-q", "main")
}

// graphContentDigest is the graph's content: every file's extraction
// (path, extractor, content hash), every node with its lines and every
// edge with its line. It is the state hash less what differs between two
// state folders by construction (the seqs and times of index runs, each
// file's extraction time). Nodes, edges and files are counted too.
type graphContent struct {
	Digest               string
	Nodes, Edges, Files  int
	DuplicateUIDsAtLines int // nodes sharing (path, label, kind, line) under different uids
}

func contentOf(b *testing.B, st *state.State) graphContent {
	b.Helper()
	var lines []string
	var c graphContent
	seen := map[string]int{}
	if err := st.Read(context.Background(), func(v state.View) {
		for _, f := range v.Graph.Files() {
			lines = append(lines, "file "+f.Path+" "+f.Extractor+" "+f.ContentHash)
			c.Files++
		}
		v.Graph.Nodes(func(n graph.Node) bool {
			c.Nodes++
			lines = append(lines, fmt.Sprintf("node %s %s %s %s %d %d %s %v", n.UID, n.Kind, n.Label, n.Path, n.Line, n.EndLine, n.Extractor, n.Metadata))
			if n.Path != "" && n.Line > 0 {
				seen[fmt.Sprintf("%s %s %s %d", n.Path, n.Kind, n.Label, n.Line)]++
			}
			for _, e := range v.Graph.Out(n.UID) {
				c.Edges++
				lines = append(lines, fmt.Sprintf("edge %s %s %s %s %d %v", e.Source, e.Target, e.Type, e.Extractor, e.Line, e.Metadata))
			}
			return true
		})
	}); err != nil {
		b.Fatal(err)
	}
	for _, n := range seen {
		if n > 1 {
			c.DuplicateUIDsAtLines += n - 1
		}
	}
	slices.Sort(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	c.Digest = hex.EncodeToString(h.Sum(nil))
	return c
}

// freshContent is the content of a fresh index of repo at branch, cached
// in the cache folder by commit and binary (a fresh GOROOT/src index takes
// minutes).
func freshContent(b *testing.B, bin, repo, branch string) graphContent {
	b.Helper()
	commit := benchGit(b, repo, "rev-parse", branch)
	binSum, err := fileSHA(bin)
	if err != nil {
		b.Fatal(err)
	}
	cacheFile := filepath.Join(filepath.Dir(repo), "fresh-"+commit[:12]+"-"+binSum[:12]+".txt")
	if raw, err := os.ReadFile(cacheFile); err == nil {
		var c graphContent
		if _, err := fmt.Sscan(string(raw), &c.Digest, &c.Nodes, &c.Edges, &c.Files, &c.DuplicateUIDsAtLines); err == nil {
			return c
		}
	}
	benchGit(b, repo, "checkout", "-q", branch)
	defer benchGit(b, repo, "checkout", "-q", "main")
	dir := b.TempDir()
	start := time.Now()
	b.Logf("fresh index of %s: %s (%v)", branch, cosRun(b, bin, dir, "index", "--no-progress", repo), time.Since(start).Round(time.Millisecond))
	st := openReader(b, dir)
	c := contentOf(b, st)
	_ = st.Close(context.Background())
	if err := os.WriteFile(cacheFile, fmt.Appendf(nil, "%s %d %d %d %d\n", c.Digest, c.Nodes, c.Edges, c.Files, c.DuplicateUIDsAtLines), 0o644); err != nil {
		b.Fatal(err)
	}
	return c
}

func fileSHA(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, bufio.NewReader(f)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// BenchmarkWatch_BranchSwitch500: `cos serve` (watcher on) on a git copy
// of GOROOT/src at main; `git checkout bench-500` (500 Go files touched),
// then back to main. The figure is the time from the end of the checkout
// until this process, a second reader of the state folder, sees the index
// run at the new commit finished; the graph is then compared with a fresh
// index of that checkout (content digest: files, nodes with lines, edges)
// and, when it differs, polled until it matches (60 s at most).
func BenchmarkWatch_BranchSwitch500(b *testing.B) {
	bin := benchWatchBin(b)
	repo, dir := goSrcCache(b, bin)
	want := map[string]graphContent{}
	for _, br := range []string{"bench-500", "main"} {
		want[br] = freshContent(b, bin, repo, br)
		b.Logf("fresh index of %s: %d nodes, %d edges, %d files", br, want[br].Nodes, want[br].Edges, want[br].Files)
	}
	srv := benchServe(b, bin, dir)
	b.Logf("watcher's first run over after %v", srv.waitLog(b, firstRunLine, 10*time.Minute))
	st := openReader(b, dir)
	if got := contentOf(b, st); got != want["main"] {
		b.Logf("before the checkout the graph already differs from a fresh index of main: %+v, want %+v", got, want["main"])
	}
	lastRun := func() (commit string, finished uint64) {
		if err := st.Read(context.Background(), func(v state.View) {
			if r, ok := v.Graph.LastIndex(); ok {
				commit, finished = r.Commit, r.Finished.Seq
			}
		}); err != nil {
			b.Fatal(err)
		}
		return commit, finished
	}
	load := loadavg()
	b.ResetTimer()
	for b.Loop() {
		for _, br := range []string{"bench-500", "main"} {
			_, before := lastRun()
			commit := benchGit(b, repo, "rev-parse", br)
			start := time.Now()
			benchGit(b, repo, "checkout", "-q", br)
			checkedOut := time.Now()
			for {
				c, fin := lastRun()
				if c == commit && fin > before {
					break
				}
				if time.Since(checkedOut) > 2*time.Minute {
					b.Fatalf("checkout %s: no finished index run at %s after 2 min; server stderr:\n%s", br, commit, srv.stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			runAt := time.Since(checkedOut)
			got := contentOf(b, st)
			converged := got == want[br]
			for !converged && time.Since(checkedOut) < 60*time.Second {
				time.Sleep(500 * time.Millisecond)
				got = contentOf(b, st)
				converged = got == want[br]
			}
			total := time.Since(checkedOut)
			if !converged {
				b.Errorf("checkout %s: the graph differs from a fresh index 60 s after the checkout: %+v, want %+v", br, got, want[br])
			}
			b.ReportMetric(ms(runAt), br+"-run-ms")
			b.Logf("checkout %s: git checkout took %v; index run at the new commit seen %v after it; graph equals a fresh index: %v (checked %v after it); %d nodes (fresh %d), %d edges (fresh %d), duplicates at one line %d",
				br, checkedOut.Sub(start).Round(time.Millisecond), runAt.Round(time.Millisecond), converged, total.Round(time.Millisecond),
				got.Nodes, want[br].Nodes, got.Edges, want[br].Edges, got.DuplicateUIDsAtLines)
		}
	}
	b.Logf("load average before/after: %s / %s", load, loadavg())
}

// procStat returns a process's resident set size and its peak (bytes, from
// /proc/<pid>/status) and the CPU time it used (utime+stime).
func procStat(b *testing.B, pid int) (rss, hwm int64, cpu time.Duration) {
	b.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	for l := range strings.Lines(string(raw)) {
		f := strings.Fields(l)
		if len(f) >= 2 && (f[0] == "VmRSS:" || f[0] == "VmHWM:") {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			if f[0] == "VmRSS:" {
				rss = kb << 10
			} else {
				hwm = kb << 10
			}
		}
	}
	raw, err = os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// Fields after the command name (which may hold spaces): state is
	// field 3, utime 14, stime 15, in clock ticks (USER_HZ, 100 on Linux).
	rest := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	ut, _ := strconv.ParseInt(rest[11], 10, 64)
	stt, _ := strconv.ParseInt(rest[12], 10, 64)
	return rss, hwm, time.Duration(ut+stt) * 10 * time.Millisecond
}

// settle waits until pid uses under 20 ms of CPU per second for 3 seconds
// in a row (5 minutes at most).
func settle(b *testing.B, pid int) time.Duration {
	b.Helper()
	start := time.Now()
	quiet := 0
	_, _, last := procStat(b, pid)
	for quiet < 3 && time.Since(start) < 5*time.Minute {
		time.Sleep(time.Second)
		_, _, now := procStat(b, pid)
		if now-last < 20*time.Millisecond {
			quiet++
		} else {
			quiet = 0
		}
		last = now
	}
	return time.Since(start)
}

// BenchmarkWatch_ServeMemoryIdle: `cos serve --watch=false`, then `cos
// serve` (watcher on) on the state folder indexed from a git copy of
// GOROOT/src; once each is idle, its resident memory, its peak, and the
// CPU it uses in 30 idle seconds.
func BenchmarkWatch_ServeMemoryIdle(b *testing.B) {
	bin := benchWatchBin(b)
	_, dir := goSrcCache(b, bin)
	load := loadavg()
	b.ResetTimer()
	for b.Loop() {
		type figure struct {
			rss, hwm int64
			idle     time.Duration
		}
		measure := func(watch bool) figure {
			srv := benchServe(b, bin, dir, "--watch="+strconv.FormatBool(watch))
			if watch {
				b.Logf("watch on: first run over after %v", srv.waitLog(b, firstRunLine, 10*time.Minute))
			}
			pid := srv.cmd.Process.Pid
			b.Logf("watch %v: idle after %v", watch, settle(b, pid).Round(time.Second))
			_, _, cpu0 := procStat(b, pid)
			time.Sleep(30 * time.Second)
			rss, hwm, cpu1 := procStat(b, pid)
			srv.stop()
			return figure{rss, hwm, cpu1 - cpu0}
		}
		// Twice each, alternating: the first server also brings the
		// search slot up to date, which the later ones find done.
		var offs, ons []figure
		for range 2 {
			offs = append(offs, measure(false))
			ons = append(ons, measure(true))
		}
		mb := func(n int64) float64 { return float64(n) / (1 << 20) }
		mean := func(fs []figure) (f figure) {
			for _, x := range fs {
				f.rss += x.rss / int64(len(fs))
				f.hwm += x.hwm / int64(len(fs))
				f.idle += x.idle / time.Duration(len(fs))
			}
			return f
		}
		off, on := mean(offs), mean(ons)
		for i := range offs {
			b.Logf("round %d: watch off RSS %.1f MB (peak %.1f), %v CPU in 30 idle s; watch on RSS %.1f MB (peak %.1f), %v CPU in 30 idle s",
				i+1, mb(offs[i].rss), mb(offs[i].hwm), offs[i].idle, mb(ons[i].rss), mb(ons[i].hwm), ons[i].idle)
		}
		b.ReportMetric(mb(on.rss-off.rss), "rss-delta-MB")
		b.ReportMetric(mb(on.hwm-off.hwm), "peak-delta-MB")
		b.ReportMetric(ms(on.idle), "idle-cpu-ms/30s")
		b.Logf("mean of the rounds: delta RSS %.1f MB, delta peak %.1f MB; idle CPU over 30 s: watch on %v, off %v",
			mb(on.rss-off.rss), mb(on.hwm-off.hwm), on.idle, off.idle)
	}
	b.Logf("load average before/after: %s / %s", load, loadavg())
}

// BenchmarkWatch_GraphChangesMCP: `cos serve` (watcher on) on a git copy
// of GOROOT/src/net/http, one function body edited in each of 20 files
// and indexed by the watcher; the figure is the round trip of a
// cos_graph_changes call over MCP (stdio, JSON-RPC, the real binary),
// whole: request written to answer read. The first call is reported
// apart. Then, for scale, the round trip of a cos_graph_context answer
// naming 20 files or more (read-your-edits checks each of them).
func BenchmarkWatch_GraphChangesMCP(b *testing.B) {
	bin := benchWatchBin(b)
	repo := filepath.Join(b.TempDir(), "http")
	gitCopy(b, filepath.Join(goroot(b), "src", "net", "http"), repo)
	dir := b.TempDir()
	b.Logf("%s", cosRun(b, bin, dir, "index", "--no-progress", repo))
	srv := benchServe(b, bin, dir)
	srv.waitLog(b, firstRunLine, 60*time.Second)
	srv.mcpInit(b)
	st := openReader(b, dir)

	entries, err := os.ReadDir(repo)
	if err != nil {
		b.Fatal(err)
	}
	want := map[string]string{}
	for _, e := range entries {
		if len(want) == 20 {
			break
		}
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(repo, name))
		if err != nil {
			b.Fatal(err)
		}
		lines := strings.SplitAfter(string(raw), "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "func ") && strings.HasSuffix(l, "{\n") {
				lines = slices.Insert(lines, i+1, "\t_ = 0 // edited\n")
				content := strings.Join(lines, "")
				if err := os.WriteFile(filepath.Join(repo, name), []byte(content), 0o644); err != nil {
					b.Fatal(err)
				}
				sum := sha256.Sum256([]byte(content))
				want[name] = hex.EncodeToString(sum[:])
				break
			}
		}
	}
	start := time.Now()
	for {
		indexed := 0
		if err := st.Read(context.Background(), func(v state.View) {
			h := v.Graph.FileHashes()
			for p, sum := range want {
				if h[p] == sum {
					indexed++
				}
			}
		}); err != nil {
			b.Fatal(err)
		}
		if indexed == len(want) {
			break
		}
		if time.Since(start) > 10*time.Second {
			b.Fatalf("the watcher indexed %d of the %d edited files in 10 s", indexed, len(want))
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Logf("%d files edited; the watcher indexed them in %v", len(want), time.Since(start).Round(time.Millisecond))

	const changesArgs = `{}`
	t0 := time.Now()
	text := srv.mcpTool(b, "cos_graph_changes", changesArgs)
	first := time.Since(t0)
	var answer struct {
		Data struct {
			Changed []json.RawMessage `json:"changed"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(text), &answer); err != nil {
		b.Fatalf("cos_graph_changes answer: %v: %.500s", err, text)
	}
	contextArgs := `{"uid_or_name": "code:external:strings.HasPrefix"}` // named from 21 files
	ctxText := srv.mcpTool(b, "cos_graph_context", contextArgs)
	paths := map[string]bool{}
	for _, part := range strings.Split(ctxText, `"path":"`)[1:] {
		paths[part[:strings.IndexByte(part, '"')]] = true
	}
	load := loadavg()
	b.ResetTimer()
	for b.Loop() {
		var changes, contexts []time.Duration
		for range 50 {
			t := time.Now()
			srv.mcpTool(b, "cos_graph_changes", changesArgs)
			changes = append(changes, time.Since(t))
			t = time.Now()
			srv.mcpTool(b, "cos_graph_context", contextArgs)
			contexts = append(contexts, time.Since(t))
		}
		slices.Sort(changes)
		slices.Sort(contexts)
		b.ReportMetric(ms(first), "changes-first-ms")
		b.ReportMetric(ms(percentile(changes, 50)), "changes-p50-ms")
		b.ReportMetric(ms(percentile(changes, 99)), "changes-p99-ms")
		b.ReportMetric(ms(percentile(contexts, 50)), "context-p50-ms")
		b.Logf("cos_graph_changes over MCP (%d changed symbols, %d bytes): first %v, then p50 %v p99 %v; cos_graph_context (%d files named, %d bytes): p50 %v p99 %v; load average before/after %s / %s",
			len(answer.Data.Changed), len(text), first.Round(time.Microsecond), percentile(changes, 50), percentile(changes, 99),
			len(paths), len(ctxText), percentile(contexts, 50), percentile(contexts, 99), load, loadavg())
	}
}
