package hub_test

// The harness of the browser tests and benchmarks: a real cos process
// serving the Hub over a temporary state folder, seeded and written to by
// other real cos processes (`cos call`), and Debian's Chromium driven
// headless through the DevTools protocol (chromedp). Every page records
// console errors, uncaught exceptions and failed loads; a test fails on any
// it did not expect.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/cos-dev/cos/internal/cosbin"
	"github.com/cos-dev/cos/internal/testutil"
)

// chromiumEnv names the Chromium executable the browser tests drive.
const chromiumEnv = "COS_CHROMIUM"

// screenshotsEnv names a folder the browser tests write their screenshots
// to; unset, they go to a temporary folder of the test.
const screenshotsEnv = "COS_SCREENSHOTS"

// browserWait bounds every wait for the page (a render, a live update):
// generous, for CI's loaded machine; a passing wait takes what it takes.
const browserWait = 20 * time.Second

// commandWait bounds one `cos call` (five times it, one `cos index`): a
// hung process fails the test instead of holding it to go test's timeout.
const commandWait = time.Minute

// chromiumPath is the browser to drive: $COS_CHROMIUM, else the first
// Chromium found. None found skips the test, except under CI=true where it
// fails: CI installs Chromium (.ci/run) and must not skip silently.
func chromiumPath(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv(chromiumEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			tb.Fatalf("%s=%s: %v", chromiumEnv, p, err)
		}
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		tb.Fatalf("no Chromium found and %s is unset: CI must run the browser tests (.ci/run installs chromium)", chromiumEnv)
	}
	tb.Skipf("no Chromium found; set %s to run the browser tests", chromiumEnv)
	return ""
}

// cosBinaryOnce is the cos binary, built on first use (buildCos) into dir,
// which TestMain removes.
var cosBinaryOnce = struct {
	once sync.Once
	dir  string
	path string
	err  error
}{}

// TestMain runs the tests and removes the cos binary if one was built.
func TestMain(m *testing.M) {
	code := m.Run()
	if cosBinaryOnce.dir != "" {
		_ = os.RemoveAll(cosBinaryOnce.dir)
	}
	os.Exit(code)
}

// buildCos returns the path of the cos binary, built on first use: the
// tests that need no process do not wait for a build.
func buildCos(tb testing.TB) string {
	tb.Helper()
	cosBinaryOnce.once.Do(func() {
		dir, err := os.MkdirTemp("", "cos-hub-test-*")
		if err != nil {
			cosBinaryOnce.err = err
			return
		}
		cosBinaryOnce.dir = dir
		cosBinaryOnce.path, cosBinaryOnce.err = cosbin.Build(dir)
	})
	if cosBinaryOnce.err != nil {
		tb.Fatal(cosBinaryOnce.err)
	}
	return cosBinaryOnce.path
}

// hubProcess is a running `cos serve --http` or `cos hub` serving the Hub
// at URL.
type hubProcess struct {
	tb     testing.TB
	bin    string
	state  string
	root   string
	URL    string // http://127.0.0.1:PORT
	cmd    *exec.Cmd
	stderr *testutil.SyncBuffer
	done   chan struct{}
}

// listenAddrRe finds the address a cos process logged it listens on.
var listenAddrRe = regexp.MustCompile(`(?:addr=|http://)(127\.0\.0\.1:[0-9]+)`)

// startHubProc starts `cos serve --http 127.0.0.1:0` on state (indexing root
// allowed) and waits until it serves the Hub page beside /mcp. It is
// stopped (SIGINT, then killed after 10 s) when the test ends.
func startHubProc(tb testing.TB, bin, state, root string, extra ...string) *hubProcess {
	tb.Helper()
	return startServer(tb, bin, state, root, append([]string{"serve", "--state-dir", state, "--nats", "off", "--index=false", "--root", root,
		"--http", "127.0.0.1:0", "--stdio=false", "--watch=false"}, extra...))
}

// startCosHub is startHubProc for `cos hub --http 127.0.0.1:0`: the Hub
// alone.
func startCosHub(tb testing.TB, bin, state, root string, extra ...string) *hubProcess {
	tb.Helper()
	return startServer(tb, bin, state, root, append([]string{"hub", "--state-dir", state, "--nats", "off", "--root", root,
		"--http", "127.0.0.1:0"}, extra...))
}

// startServer runs bin with args in root until it has logged the address
// it listens on and GET / answers 200.
func startServer(tb testing.TB, bin, state, root string, args []string) *hubProcess {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = root
	h := &hubProcess{tb: tb, bin: bin, state: state, root: root, cmd: cmd, stderr: &testutil.SyncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = h.stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(h.done) }()
	tb.Cleanup(h.stop)
	deadline := time.Now().Add(30 * time.Second)
	for h.URL == "" {
		if m := listenAddrRe.FindStringSubmatch(h.stderr.String()); m != nil {
			h.URL = "http://" + m[1]
			break
		}
		select {
		case <-h.done:
			tb.Fatalf("cos %s ended before listening:\n%s", args[0], h.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			tb.Fatalf("cos %s logged no listen address in 30 s:\n%s", args[0], h.stderr.String())
		}
	}
	for {
		resp, err := http.Get(h.URL + "/")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
			if time.Now().After(deadline) {
				tb.Fatalf("GET / = %d: %s\n%s", resp.StatusCode, body, h.stderr.String())
			}
		} else if time.Now().After(deadline) {
			tb.Fatalf("GET /: %v\n%s", err, h.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return h
}

// stop asks the process to end and waits for it.
func (h *hubProcess) stop() {
	select {
	case <-h.done:
		return
	default:
	}
	_ = h.cmd.Process.Signal(os.Interrupt)
	select {
	case <-h.done:
	case <-time.After(10 * time.Second):
		_ = h.cmd.Process.Kill()
		<-h.done
		h.tb.Errorf("%v did not end within 10 s of SIGINT:\n%s", h.cmd.Args, h.stderr.String())
	}
}

// binAnswer is the part of a tool's answer the tests read.
type binAnswer struct {
	OK    bool            `json:"ok"`
	Data  json.RawMessage `json:"data"`
	Error json.RawMessage `json:"error"`
}

// binCall runs `cos call TOOL ARGS` on state as a process of its own and
// returns the envelope; it fails the test when the tool did not succeed.
func binCall(tb testing.TB, bin, state, tool string, args any) map[string]any {
	tb.Helper()
	env, raw := binCallRaw(tb, bin, state, tool, args)
	if !env.OK {
		tb.Fatalf("cos call %s: %s", tool, raw)
	}
	var data map[string]any
	if err := json.Unmarshal(env.Data, &data); err != nil {
		tb.Fatalf("cos call %s: data: %v\n%s", tool, err, raw)
	}
	return data
}

// binCallRaw runs `cos call TOOL ARGS` and returns the envelope as parsed
// and as printed, whether or not the tool succeeded.
func binCallRaw(tb testing.TB, bin, state, tool string, args any) (binAnswer, []byte) {
	tb.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), commandWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "call", "--state-dir", state, tool, "-")
	cmd.Stdin = bytes.NewReader(b)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		tb.Fatalf("cos call %s: %v\n%s", tool, err, stderr.String())
	}
	var env binAnswer
	if jerr := json.Unmarshal(out, &env); jerr != nil {
		tb.Fatalf("cos call %s: not an envelope (%v): %s\n%s", tool, jerr, out, stderr.String())
	}
	return env, out
}

// answerSeq is an answer's meta.log_seq.
func answerSeq(tb testing.TB, data map[string]any) int {
	tb.Helper()
	meta, _ := data["meta"].(map[string]any)
	seq, ok := meta["log_seq"].(float64)
	if !ok {
		tb.Fatalf("no meta.log_seq in %v", data)
	}
	return int(seq)
}

// binCreateTask creates a task through `cos call` and returns its id.
func binCreateTask(tb testing.TB, bin, state string, args map[string]any) string {
	tb.Helper()
	data := binCall(tb, bin, state, "cos_task_create", args)
	task, _ := data["task"].(map[string]any)
	id, _ := task["task_id"].(string)
	if id == "" {
		tb.Fatalf("cos_task_create answered no task id: %v", data)
	}
	return id
}

// copyFiles copies the regular files of src (recursively) into dst.
func copyFiles(tb testing.TB, src, dst string) {
	tb.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		tb.Fatalf("copy %s: %v", src, err)
	}
}

// gorootDir is $(go env GOROOT).
func gorootDir(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Fatalf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// binIndex runs `cos index` on root into state as a process of its own.
func binIndex(tb testing.TB, bin, state, root string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*commandWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "index", "--state-dir", state, "--nats", "off", "--no-progress", root)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("cos index %s: %v\n%s", root, err, out)
	}
}

// browserFixture is a state folder with an indexed copy of
// GOROOT/src/net/http/httptest (real Go code, a few hundred nodes) and a
// cos process serving the Hub over it.
type browserFixture struct {
	Bin   string
	State string
	Root  string
	Hub   *hubProcess
}

// newBrowserFixture builds the fixture; the Hub is started last, so every
// seeded fact is in the log before it opens.
func newBrowserFixture(tb testing.TB) *browserFixture {
	tb.Helper()
	bin := buildCos(tb)
	dir := tb.TempDir()
	f := &browserFixture{Bin: bin, State: filepath.Join(dir, "state"), Root: filepath.Join(dir, "repo")}
	copyFiles(tb, filepath.Join(gorootDir(tb), "src", "net", "http", "httptest"), f.Root)
	binIndex(tb, bin, f.State, f.Root)
	f.Hub = startHubProc(tb, bin, f.State, f.Root)
	return f
}

// call runs a tool on the fixture's state folder in another process.
func (f *browserFixture) call(tb testing.TB, tool string, args any) map[string]any {
	tb.Helper()
	return binCall(tb, f.Bin, f.State, tool, args)
}

// newBrowser starts headless Chromium with a fresh profile, a 1280×800
// window, and the flags that keep it from reaching the network or opening
// anything on a screen. It is closed when the test ends.
func newBrowser(tb testing.TB) context.Context {
	tb.Helper()
	exe := chromiumPath(tb)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(tb.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		// Twenty open pages must all stay live: no timer throttling of
		// background tabs.
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.WindowSize(1280, 800),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	if err := chromedp.Do(bctx); err != nil { // starts the browser
		cancelBrowser()
		cancelAlloc()
		tb.Fatalf("start %s: %v", exe, err)
	}
	tb.Cleanup(func() { cancelBrowser(); cancelAlloc() })
	return bctx
}

// browserPage is one browser tab whose console errors, uncaught exceptions and
// failed loads are recorded.
type browserPage struct {
	tb  testing.TB
	Ctx context.Context
	// mu guards problems and allowed.
	mu       sync.Mutex
	problems []string
	allowed  []string
}

// openTab opens a tab in the browser (chromedp.WithNewBrowserContext
// among opts: in a profile of its own, as another person's browser); at
// the end of the test it fails the
// test on any console error, uncaught exception or failed load the test
// did not allow.
func openTab(tb testing.TB, browser context.Context, opts ...chromedp.ContextOption) *browserPage {
	tb.Helper()
	p := &browserPage{tb: tb}
	ctx, cancel := chromedp.NewContext(browser, append(opts, chromedp.WithListener(p.listen))...)
	p.Ctx = ctx
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, pr := range p.problems {
			tb.Errorf("browser: %s", pr)
		}
		cancel()
	})
	return p
}

// listen records the problems among the tab's events. It runs on the
// tab's reading goroutine: it only appends under the lock.
func (p *browserPage) listen(ev any) {
	switch ev := ev.(type) {
	case *cdpruntime.EventConsoleAPICalled:
		if ev.Type == cdpruntime.ConsoleAPICalledTypeError || ev.Type == cdpruntime.ConsoleAPICalledTypeAssert {
			var parts []string
			for _, a := range ev.Args {
				if len(a.Value) > 0 {
					parts = append(parts, string(a.Value))
				} else {
					parts = append(parts, a.Description)
				}
			}
			p.record("console." + string(ev.Type) + ": " + strings.Join(parts, " "))
		}
	case *cdpruntime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			msg += " " + d.Exception.Description
		}
		p.record(fmt.Sprintf("uncaught exception at %s:%d: %s", d.URL, d.LineNumber+1, msg))
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.EntryLevelError {
			p.record(fmt.Sprintf("log %s: %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
		}
	}
}

// record keeps one problem unless it contains an allowed text.
func (p *browserPage) record(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, a := range p.allowed {
		if strings.Contains(s, a) {
			return
		}
	}
	p.problems = append(p.problems, s)
}

// allow lets problems containing text pass: a failed load the test
// provokes on purpose (a 412 answer, say).
func (p *browserPage) allow(text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.allowed = append(p.allowed, text)
}

// do runs actions on the page, failing the test on error.
func (p *browserPage) do(actions ...chromedp.Action[chromedp.Void]) {
	p.tb.Helper()
	ctx, cancel := context.WithTimeout(p.Ctx, 2*browserWait)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.tb.Fatalf("browser: %v\n%s", err, p.dump())
	}
}

// open navigates to url and waits until the view has rendered
// (body[data-ready="1"]).
func (p *browserPage) open(url string) {
	p.tb.Helper()
	p.do(chromedp.Navigate(url))
	p.waitReady()
}

// waitReady waits for body[data-ready="1"].
func (p *browserPage) waitReady() {
	p.tb.Helper()
	p.wait(`document.body && document.body.dataset.ready === "1"`, "the view rendered (body[data-ready=1])")
}

// wait polls expr (a JavaScript expression) until it is truthy, failing the
// test with what after browserWait.
func (p *browserPage) wait(expr, what string) {
	p.tb.Helper()
	p.waitFor(expr, what, browserWait)
}

// waitFor is wait with its own bound.
func (p *browserPage) waitFor(expr, what string, d time.Duration) {
	p.tb.Helper()
	if err := p.poll(expr, d); err != nil {
		p.tb.Fatalf("waiting for %s (%s): %v\n%s", what, expr, err, p.dump())
	}
}

// poll polls expr until it is truthy or d has passed.
func (p *browserPage) poll(expr string, d time.Duration) error {
	ctx, cancel := context.WithTimeout(p.Ctx, d+2*time.Second)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool]("!!("+expr+")",
		chromedp.WithPollingTimeout(d), chromedp.WithPollingInterval(20*time.Millisecond)))
	return err
}

// evalJS evaluates expr on the page and decodes its value.
func evalJS[T any](p *browserPage, expr string) T {
	p.tb.Helper()
	ctx, cancel := context.WithTimeout(p.Ctx, browserWait)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.tb.Fatalf("evaluate %s: %v\n%s", expr, err, p.dump())
	}
	return v
}

// dump is the page's URL, body attributes and the start of its text, for a
// failure message.
func (p *browserPage) dump() string {
	ctx, cancel := context.WithTimeout(p.Ctx, 3*time.Second)
	defer cancel()
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + "\nbody: " + JSON.stringify(Object.assign({}, document.body && document.body.dataset)) + "\n" + (document.body ? document.body.innerText.slice(0, 2000) : "")`))
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.problems) > 0 {
		s += "\nbrowser problems so far:\n  " + strings.Join(p.problems, "\n  ")
	}
	return s
}

// screenshot writes a PNG of the viewport to $COS_SCREENSHOTS (else a
// temporary folder of the test) and logs its path.
func (p *browserPage) screenshot(name string) string {
	p.tb.Helper()
	dir := os.Getenv(screenshotsEnv)
	if dir == "" {
		dir = p.tb.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(p.Ctx, browserWait)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.tb.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.tb.Fatal(err)
	}
	p.tb.Logf("screenshot %s", path)
	return path
}

// click clicks the first element matching a CSS selector.
func (p *browserPage) click(sel string) {
	p.tb.Helper()
	p.do(chromedp.Click(chromedp.CSS(sel)))
}

// setValue sets an input's value and fires its input and change events,
// as typing would.
func (p *browserPage) setValue(sel, value string) {
	p.tb.Helper()
	p.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const el = document.querySelector(%q);
		if (!el) throw new Error("no element " + %q);
		el.focus();
		el.value = %q;
		el.dispatchEvent(new Event("input", {bubbles: true}));
		el.dispatchEvent(new Event("change", {bubbles: true}));
	})()`, sel, sel, value)))
}

// clickNode clicks a node of the Cytoscape graph (window.cosGraph) with the
// mouse at its rendered position, the canvas scrolled into view first. It
// reports false, clicking nothing, when the node lies outside the window
// or under another node.
func (p *browserPage) clickNode(id string) bool {
	p.tb.Helper()
	pos := evalJS[struct {
		X, Y float64
		OK   bool
	}](p, fmt.Sprintf(`(() => {
		const cy = window.cosGraph;
		cy.container().scrollIntoView({block: "center"});
		const n = cy.getElementById(%q);
		const r = cy.container().getBoundingClientRect();
		const q = n.renderedPosition();
		const x = r.left + q.x, y = r.top + q.y;
		const inside = x > r.left && x < r.right && y > r.top && y < r.bottom && x < innerWidth && y < innerHeight;
		const alone = cy.nodes().every(m => m === n || Math.hypot(m.renderedPosition().x - q.x, m.renderedPosition().y - q.y) > 12);
		return {X: x, Y: y, OK: inside && alone};
	})()`, id))
	if !pos.OK {
		return false
	}
	p.do(chromedp.MouseClickXY(pos.X, pos.Y))
	return true
}
