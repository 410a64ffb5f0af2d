package hub_test

// The accessibility checks of the browser tests: axe-core run on every
// view of the page (zero violations), and the keyboard — shortcuts, the
// skip link, and few Tab stops on the board.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// axeEnv names axe.min.js (axe-core); unset, the copy .ci/run installs
// beside the MCP SDK is used.
const axeEnv = "COS_AXE"

// axeSource is the text of axe.min.js: $COS_AXE, else
// $HOME/.cache/cos-ci-npm/node_modules/axe-core/axe.min.js. Missing, the
// test is skipped, except under CI=true where it fails.
func axeSource(tb testing.TB) string {
	tb.Helper()
	p := os.Getenv(axeEnv)
	if p == "" {
		home, _ := os.UserHomeDir()
		p = filepath.Join(home, ".cache", "cos-ci-npm", "node_modules", "axe-core", "axe.min.js")
	}
	b, err := os.ReadFile(p)
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("axe-core: %v (set %s; .ci/run installs it)", err, axeEnv)
		}
		tb.Skipf("axe-core not found (%v); set %s to run the accessibility checks", err, axeEnv)
	}
	return string(b)
}

// axeViolation is one failed axe rule with the elements that fail it.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target  []any  `json:"target"`
		Summary string `json:"failureSummary"`
	} `json:"nodes"`
}

// axeCheck runs axe-core (src) on the page as it is and fails the test
// with every violation (id, impact, targets, help); view names the state
// checked.
func (p *browserPage) axeCheck(src, view string) {
	p.tb.Helper()
	if !evalJS[bool](p, `typeof window.axe === "object"`) {
		p.do(chromedp.Evaluate[chromedp.Void](src + "\n;undefined"))
	}
	ctx, cancel := context.WithTimeout(p.Ctx, 2*browserWait)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(r.violations))`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		p.tb.Fatalf("axe on %s: %v", view, err)
	}
	var vs []axeViolation
	if err := json.Unmarshal([]byte(raw), &vs); err != nil {
		p.tb.Fatalf("axe on %s: %v: %s", view, err, raw)
	}
	for _, v := range vs {
		var targets []string
		for _, n := range v.Nodes {
			targets = append(targets, fmt.Sprint(n.Target))
		}
		summary := ""
		if len(v.Nodes) > 0 {
			summary = strings.ReplaceAll(v.Nodes[0].Summary, "\n", " ")
		}
		p.tb.Errorf("axe %s: %s (%s) — %s\n    targets: %s\n    first: %s", view, v.ID, v.Impact, v.Help, strings.Join(targets, " "), summary)
	}
}

// a11yView is one state of the page axe checks: open brings the page
// there from anywhere.
type a11yView struct {
	name  string
	title string // document.title there
	open  func(t *testing.T, f *browserFixture, p *browserPage)
}

// openView navigates to hash and waits until the view has rendered.
func openView(p *browserPage, f *browserFixture, hash string) {
	p.tb.Helper()
	p.do(chromedp.Navigate(f.Hub.URL + "/" + hash))
	p.waitReady()
}

// a11yViews are every view of the page in the states worth checking; a new
// view is one line here.
func a11yViews(claimed, other string, claimedSeq int) []a11yView {
	return []a11yView{
		{"board", "Board — cos Hub", func(t *testing.T, f *browserFixture, p *browserPage) {
			openView(p, f, "#/board")
			p.wait(inColumnJS(claimed, "in_progress"), claimed+" on the board")
		}},
		{"board-390x844", "Board — cos Hub", func(t *testing.T, f *browserFixture, p *browserPage) {
			p.do(chromedp.EmulateViewport(390, 844))
			openView(p, f, "#/board")
			p.wait(inColumnJS(claimed, "in_progress"), claimed+" on the board")
		}},
		{"board-task", "Board — cos Hub", func(t *testing.T, f *browserFixture, p *browserPage) {
			openView(p, f, "#/board?task="+other)
			p.wait(inColumnJS(other, "todo"), other+" on the board")
		}},
		{"task-panel", "Board — cos Hub", func(t *testing.T, f *browserFixture, p *browserPage) {
			openView(p, f, "#/board?task="+claimed)
			p.wait(`document.querySelector('#task-panel').open && document.querySelector('#task-history li[data-seq]')`, "the task panel with its history")
		}},
		{"task-force-release", "Board — cos Hub", func(t *testing.T, f *browserFixture, p *browserPage) {
			openView(p, f, "#/board?task="+claimed)
			p.wait(`document.querySelector('#task-panel').open && !document.querySelector('#task-force-release').hidden`, "force release offered")
			p.click("#task-force-release")
			p.wait(`document.querySelector('#force-release-dialog').open`, "the force-release confirm")
		}},
		{"new-task", "Board — cos Hub", func(t *testing.T, f *browserFixture, p *browserPage) {
			openView(p, f, "#/board")
			p.click("#board-new")
			p.wait(`document.querySelector('#new-task').open`, "the new-task form")
		}},
		{"board-shortcuts", "Board — cos Hub", func(t *testing.T, f *browserFixture, p *browserPage) {
			openView(p, f, "#/board")
			p.key("?")
			p.wait(`document.querySelector('#shortcuts').open`, "the shortcuts dialog open")
		}},
		{"graph", "Graph — cos Hub", func(t *testing.T, f *browserFixture, p *browserPage) { openView(p, f, "#/graph") }},
		{"graph-map", "Graph — cos Hub", func(t *testing.T, f *browserFixture, p *browserPage) {
			openView(p, f, "#/graph")
			p.wait(`document.querySelector('#graph-map tr[data-group]')`, "the map's table")
		}},
		{"graph-candidates", "Graph — cos Hub", func(t *testing.T, f *browserFixture, p *browserPage) {
			openView(p, f, "#/graph?q=Recorder")
			p.wait(`document.querySelector('#candidates li[data-uid]')`, "candidates")
		}},
		{"graph-neighbourhood", "Graph — cos Hub", func(t *testing.T, f *browserFixture, p *browserPage) {
			openView(p, f, "#/graph?uid="+"code:function:recorder.go::NewRecorder")
			p.wait(`document.querySelector('#node-source') && document.querySelector('#node-source').textContent.includes("func")`, "the node's source")
		}},
		{"feed", "Feed — cos Hub", func(t *testing.T, f *browserFixture, p *browserPage) {
			openView(p, f, "#/feed")
			p.wait(`document.querySelector('#feed li')`, "feed rows")
		}},
		{"evidence", "Evidence — cos Hub", func(t *testing.T, f *browserFixture, p *browserPage) {
			openView(p, f, "#/evidence/a11y-sess")
			p.wait(`document.querySelector('#bundle').textContent.includes("planner")`, "the bundle open")
		}},
		{"metrics", "Metrics — cos Hub", func(t *testing.T, f *browserFixture, p *browserPage) {
			openView(p, f, "#/metrics")
			p.wait(`document.querySelector('#view-metrics table')`, "a metric's table")
		}},
		{"health", "Health — cos Hub", func(t *testing.T, f *browserFixture, p *browserPage) {
			openView(p, f, "#/health")
			p.wait(`document.querySelector('#health [data-field=head]')`, "health fields")
		}},
		{"time-travel", "Board — cos Hub", func(t *testing.T, f *browserFixture, p *browserPage) {
			openView(p, f, "#/board")
			p.setValue("#at-input", "3")
			p.click("#at-apply")
			p.wait(`!document.querySelector('#readonly-banner').hidden`, "the time-travel banner")
			p.waitReady()
		}},
		// Cards as of a seq: their writes disabled, Open still readable.
		{"time-travel-cards", "Board — cos Hub", func(t *testing.T, f *browserFixture, p *browserPage) {
			openView(p, f, fmt.Sprintf("#/board?at=%d", claimedSeq))
			p.wait(inColumnJS(claimed, "in_progress")+` && !document.querySelector('#readonly-banner').hidden`, claimed+" on the board as of its claim")
		}},
	}
}

// browserAccessibility opens every view (a11yViews) and asserts axe-core
// finds no violation in any, and that each has its own page title.
func browserAccessibility(t *testing.T, f *browserFixture, browser context.Context) {
	src := axeSource(t)
	claimed := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Claimed for axe", "status": "in_progress", "labels": []string{"a11y"}})
	claimedSeq := answerSeq(t, f.call(t, "cos_task_claim", map[string]any{"task_id": claimed, "assignee": "erin-a11y"}))
	other := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Open for axe", "depends_on": []string{claimed}})
	f.call(t, "cos_metric_record", map[string]any{"name": "a11y.latency", "value": 12.5, "unit": "ms"})
	f.call(t, "cos_supervise_record_output", map[string]any{"session_id": "a11y-sess", "role": "planner", "output": map[string]any{"summary": "plan", "steps": []string{"look"}}})
	f.call(t, "cos_supervise_record_output", map[string]any{"session_id": "a11y-sess", "kind": "discovery", "output": map[string]any{"summary": "found"}, "task_id": other})

	for _, v := range a11yViews(claimed, other, claimedSeq) {
		t.Run(v.name, func(t *testing.T) {
			p := openTab(t, browser)
			v.open(t, f, p)
			p.screenshot("a11y-" + v.name)
			p.axeCheck(src, v.name)
			if title := evalJS[string](p, `document.title`); title != v.title {
				t.Errorf("%s: page title %q, want %q", v.name, title, v.title)
			}
		})
	}
}

// key presses one key on the page as a person would (keydown, char,
// keyup) on whatever has focus.
func (p *browserPage) key(k string) {
	p.tb.Helper()
	p.do(chromedp.KeyEvent(k))
}

// patchTask sends PATCH /api/tasks/{id} with body (no If-Match) and fails
// the test unless it succeeds.
func patchTask(t *testing.T, hubURL, id string, body map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequest(http.MethodPatch, hubURL+"/api/tasks/"+id, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(res.Body)
		t.Errorf("PATCH %s %s: %d %s", id, b, res.StatusCode, msg)
	}
}

// activeJS is the focused element described: "#id", "card:TASK-1" for a
// card, or its tag.
const activeJS = `(() => { const a = document.activeElement; if (!a) return '';
	if (a.matches('.card')) return 'card:' + a.dataset.taskId;
	return a.id ? '#' + a.id : a.tagName.toLowerCase(); })()`

// browserKeyboardBoard: with 40 more cards in todo, the Done column is as
// few Tabs away as with none (one stop per column: 80 and more when every
// card's buttons were stops); j/k move between cards; c claims and keeps focus on the card.
func browserKeyboardBoard(t *testing.T, f *browserFixture, browser context.Context) {
	var todo []string
	for i := range 40 {
		todo = append(todo, postTask(t, f.Hub.URL, map[string]any{"title": fmt.Sprintf("Keyboard filler %d", i)}))
	}
	done := postTask(t, f.Hub.URL, map[string]any{"title": "Keyboard done", "status": "done"})
	// The fillers leave todo when the test ends: the subtests after it
	// share the board and expect their own tasks on todo's first page.
	t.Cleanup(func() {
		for _, id := range todo {
			patchTask(t, f.Hub.URL, id, map[string]any{"patch": map[string]any{"status": "cancelled"}, "force": true})
		}
	})

	p := openTab(t, browser)
	// Its own tasks only (the board is shared): the 40 fit todo's first page.
	p.open(f.Hub.URL + "/#/board?q=Keyboard")
	p.wait(inColumnJS(todo[39], "todo")+" && "+inColumnJS(done, "done"), "the keyboard tasks on the board")

	// Tab from the top of the page into the Done column.
	tabs := 0
	for ; tabs < 120; tabs++ {
		if evalJS[bool](p, `!!(document.activeElement && document.activeElement.closest('[data-status=done]'))`) {
			break
		}
		p.key(kb.Tab)
	}
	if tabs > 40 {
		t.Fatalf("%d Tabs to reach the Done column, want at most 40 (one stop per column)", tabs)
	}
	t.Logf("%d Tabs from the top of the page to the Done column", tabs)
	p.screenshot("keyboard-done-focused")

	// j from the top of todo walks down the column, k walks back.
	evalJS[bool](p, `(document.querySelector('[data-status=todo] .card').focus(), true)`)
	first := evalJS[string](p, activeJS)
	p.key("j")
	second := evalJS[string](p, activeJS)
	if !strings.HasPrefix(second, "card:") || second == first {
		t.Fatalf("j from %s focused %q, want the next card", first, second)
	}
	p.key("k")
	if got := evalJS[string](p, activeJS); got != first {
		t.Fatalf("k after j focused %q, want %q back", got, first)
	}
	p.key(kb.ArrowDown)
	if got := evalJS[string](p, activeJS); got != second {
		t.Fatalf("↓ focused %q, want %q", got, second)
	}

	// → goes to the next column holding cards, ← comes back to the
	// column's current card.
	p.key(kb.ArrowRight)
	if col := evalJS[string](p, `document.activeElement.closest('.column').dataset.status`); col == "todo" {
		t.Fatalf("→ from a todo card stayed in todo (%s)", evalJS[string](p, activeJS))
	}
	p.key(kb.ArrowLeft)
	if got := evalJS[string](p, activeJS); got != second {
		t.Fatalf("← back focused %q, want todo's current card %q", got, second)
	}

	// c claims the focused card in the name typed, and focus stays on it.
	p.setValue("#assignee-input", "dora")
	id := todo[3]
	evalJS[bool](p, fmt.Sprintf(`(document.querySelector('[data-task-id=%q]').focus(), true)`, id))
	p.key("c")
	p.wait(cardTextJS(id, ".holder", "dora"), id+" claimed by c")
	p.wait(fmt.Sprintf(`document.activeElement && document.activeElement.dataset.taskId === %q`, id), "focus on "+id+"'s card after the claim")
	p.screenshot("keyboard-claimed")
	got := f.call(t, "cos_task_get", map[string]any{"task_id": id})
	if task, _ := got["task"].(map[string]any); task["assignee"] != "dora" {
		t.Fatalf("after c: assignee %v, want dora", task["assignee"])
	}

	// A mouse click on Claim keeps focus on the card too.
	other := todo[4]
	p.click(fmt.Sprintf(`[data-task-id=%q] button[data-action=claim]`, other))
	p.wait(cardTextJS(other, ".holder", "dora"), other+" claimed by a click")
	p.wait(fmt.Sprintf(`document.activeElement && document.activeElement.dataset.taskId === %q`, other), "focus on "+other+"'s card after a clicked claim")

	// The focused card is the column's Tab stop now.
	if n := evalJS[int](p, `[...document.querySelectorAll('[data-status=todo] .card')].filter(c => c.tabIndex === 0).length`); n != 1 {
		t.Errorf("%d cards of todo are Tab stops, want 1", n)
	}
}

// browserKeyboardShortcuts: the skip link, ?, /, n.
func browserKeyboardShortcuts(t *testing.T, f *browserFixture, browser context.Context) {
	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/board")

	// The first Tab reaches the skip link; Enter moves focus to the content.
	p.key(kb.Tab)
	if got := evalJS[string](p, activeJS); got != "#skip-link" {
		t.Fatalf("the first Tab focused %q, want #skip-link", got)
	}
	p.screenshot("keyboard-skip-link")
	p.key(kb.Enter)
	if got := evalJS[string](p, activeJS); got != "#main" {
		t.Fatalf("Enter on the skip link focused %q, want #main", got)
	}
	if h := evalJS[string](p, `location.hash`); h != "#/board" {
		t.Errorf("the skip link changed the route to %q", h)
	}

	// ? lists the shortcuts; Esc closes the list.
	p.key("?")
	p.wait(`document.querySelector('#shortcuts').open`, "the shortcuts dialog after ?")
	p.screenshot("keyboard-shortcuts")
	p.key(kb.Escape)
	p.wait(`!document.querySelector('#shortcuts').open`, "the shortcuts dialog closed by Esc")

	// / focuses the view's search box.
	p.key("/")
	if got := evalJS[bool](p, `document.activeElement.matches('#view-board [data-shortcut~="/"]')`); !got {
		t.Errorf("/ on the board focused %s, want the board's search box", evalJS[string](p, activeJS))
	}
	// Typed in a field, the keys are text, not shortcuts.
	p.key("?")
	if evalJS[bool](p, `document.querySelector('#shortcuts').open`) {
		t.Error("? typed in a field opened the shortcuts dialog")
	}
	evalJS[bool](p, `(document.activeElement.value = '', document.activeElement.blur(), true)`)

	// n presses the view's "new" control.
	evalJS[bool](p, `(() => { const b = document.createElement('button'); b.type = 'button'; b.id = 'test-new';
		b.dataset.shortcut = 'n'; b.textContent = 'New'; b.addEventListener('click', () => { b.dataset.pressed = '1'; });
		document.querySelector('#view-board').prepend(b); return true; })()`)
	p.key("n")
	p.wait(`document.querySelector('#test-new').dataset.pressed === '1'`, "n pressed the board's new control")

	p.do(chromedp.Navigate(f.Hub.URL + "/#/graph"))
	p.waitReady()
	evalJS[bool](p, `(document.activeElement.blur(), true)`)
	p.key("/")
	if got := evalJS[string](p, activeJS); got != "#graph-q" {
		t.Errorf("/ on the graph focused %q, want #graph-q", got)
	}
}
