package hub_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowser drives the real Hub page in headless Chromium against a real
// `cos serve --http` over an indexed copy of net/http/httptest, with writes
// from other cos processes, and asserts through the page's DOM: ids and
// data attributes the page documents for tests. One server and one browser
// serve every subtest (each in its own tab, on tasks of its own); any
// console error, uncaught exception or failed load fails the subtest.
func TestBrowser(t *testing.T) {
	f := newBrowserFixture(t)
	browser := newBrowser(t)

	t.Run("BoardRendersAndClaims", func(t *testing.T) { browserBoardClaim(t, f, browser) })
	t.Run("BoardMarksOverlaps", func(t *testing.T) { browserCoordMark(t, f, browser) })
	t.Run("LiveWriteFromAnotherProcess", func(t *testing.T) { browserLiveWrite(t, f, browser) })
	t.Run("GraphSearchContextExpand", func(t *testing.T) { browserGraph(t, f, browser) })
	t.Run("GraphByKeyboard", func(t *testing.T) { browserGraphKeyboard(t, f, browser) })
	t.Run("GraphMap", func(t *testing.T) { browserGraphMap(t, f, browser) })
	t.Run("GraphNeighboursCut", func(t *testing.T) { browserGraphNeighboursCut(t, f, browser) })
	t.Run("GraphExactName", func(t *testing.T) { browserGraphExactName(t, f, browser) })
	t.Run("GraphLibraryLazy", func(t *testing.T) { browserGraphLibraryLazy(t, f, browser) })
	t.Run("TimeTravelShowsEarlierBoard", func(t *testing.T) { browserTimeTravel(t, f, browser) })
	t.Run("TimeTravelShowsEarlierGraph", func(t *testing.T) { browserTimeTravelGraph(t, f, browser) })
	t.Run("FeedLive", func(t *testing.T) { browserFeed(t, f, browser) })
	t.Run("EvidenceAndHealth", func(t *testing.T) { browserEvidenceHealth(t, f, browser) })
	t.Run("CardOpensTaskPage", func(t *testing.T) { browserCardOpen(t, f, browser) })
	t.Run("Board390x844", func(t *testing.T) { browserMobileBoard(t, f, browser) })
	t.Run("TokenAskedOnce", func(t *testing.T) { browserToken(t, f, browser) })
	t.Run("Accessibility", func(t *testing.T) { browserAccessibility(t, f, browser) })
	t.Run("KeyboardBoard", func(t *testing.T) { browserKeyboardBoard(t, f, browser) })
	t.Run("KeyboardShortcuts", func(t *testing.T) { browserKeyboardShortcuts(t, f, browser) })
	t.Run("TimeTravelEvidence", func(t *testing.T) { browserTimeTravelEvidence(t, f, browser) })
	t.Run("TimeTravelPastHead", func(t *testing.T) { browserTimeTravelPastHead(t, f, browser) })
	t.Run("FeedViewAsOf", func(t *testing.T) { browserFeedViewAsOf(t, f, browser) })
	t.Run("EvidenceLive", func(t *testing.T) { browserEvidenceLive(t, f, browser) })
	t.Run("Metrics", func(t *testing.T) { browserMetrics(t, f, browser) })
	t.Run("BoardOf243Tasks", func(t *testing.T) { browserBigBoard(t, f, browser) })
	t.Run("TaskPanelOpen", func(t *testing.T) { browserTaskOpen(t, f, browser) })
	t.Run("TaskPanelDeepLink", func(t *testing.T) { browserTaskDeepLink(t, f, browser) })
	t.Run("TaskPanelEditEveryField", func(t *testing.T) { browserTaskEditEveryField(t, f, browser) })
	t.Run("TaskPanelStaleEdit", func(t *testing.T) { browserTaskStaleEdit(t, f, browser) })
	t.Run("TaskPanelHistoryTimeTravel", func(t *testing.T) { browserTaskHistoryTimeTravel(t, f, browser) })
	t.Run("TaskPanelNew", func(t *testing.T) { browserTaskNew(t, f, browser) })
	t.Run("TaskPanelRelease", func(t *testing.T) { browserTaskRelease(t, f, browser) })
	t.Run("TaskPanelLiveAndPaged", func(t *testing.T) { browserTaskLiveAndPaged(t, f, browser) })
	t.Run("LogoutEndsTheSession", func(t *testing.T) { browserLogout(t, f, browser) })
	t.Run("BidiTitleRefusedAndMarked", func(t *testing.T) { browserBidiTitle(t, f, browser) })
}

// inColumnJS is true when task id's card sits in the column of status.
func inColumnJS(id, status string) string {
	return fmt.Sprintf(`document.querySelector('[data-status=%q] [data-task-id=%q]')`, status, id)
}

// cardTextJS is true when the text of sel inside task id's card (the card
// itself for "") contains want.
func cardTextJS(id, sel, want string) string {
	return fmt.Sprintf(`(() => { const e = document.querySelector(('[data-task-id=%q] ' + %q).trim()); return !!e && e.textContent.includes(%q); })()`, id, sel, want)
}

func browserBoardClaim(t *testing.T, f *browserFixture, browser context.Context) {
	parser := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Write the parser", "labels": []string{"hub"}})
	review := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Review the lexer", "status": "in_progress"})
	ship := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Ship it", "depends_on": []string{parser}})

	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/board")
	p.wait(inColumnJS(parser, "todo"), parser+" in the todo column")
	p.wait(inColumnJS(review, "in_progress"), review+" in the in_progress column")
	p.wait(inColumnJS(ship, "todo"), ship+" in the todo column")
	p.wait(cardTextJS(ship, ".deps", parser), ship+"'s .deps naming "+parser)
	p.screenshot("board")

	p.setValue("#assignee-input", "alice")
	p.click(fmt.Sprintf(`[data-task-id=%q] button[data-action=claim]`, parser))
	p.wait(cardTextJS(parser, ".holder", "alice"), parser+"'s .holder showing alice")
	p.wait(fmt.Sprintf(`!document.querySelector('[data-task-id=%q] button[data-action=release]').disabled`, parser), "release offered to the holder")

	// The claim is in the log, as another process reads it.
	got := f.call(t, "cos_task_get", map[string]any{"task_id": parser})
	if task, _ := got["task"].(map[string]any); task["assignee"] != "alice" {
		t.Fatalf("cos_task_get %s after the page's claim: assignee %v, want alice (%v)", parser, task["assignee"], got)
	}
	hist := f.call(t, "cos_history", map[string]any{"task_id": parser})
	if b, _ := json.Marshal(hist); !strings.Contains(string(b), "task.claimed") {
		t.Fatalf("cos_history %s has no task.claimed event: %s", parser, b)
	}
	// Released from the page, the task has no holder again.
	p.click(fmt.Sprintf(`[data-task-id=%q] button[data-action=release]`, parser))
	p.wait(fmt.Sprintf(`!document.querySelector('[data-task-id=%q] .holder').textContent.includes("alice")`, parser), parser+"'s .holder cleared by a release")
	got = f.call(t, "cos_task_get", map[string]any{"task_id": parser})
	if task, _ := got["task"].(map[string]any); task["assignee"] != nil && task["assignee"] != "" {
		t.Fatalf("cos_task_get %s after the page's release: assignee %v, want none", parser, task["assignee"])
	}

	// The claim name is remembered for the next visit.
	if s := evalJS[string](p, `JSON.stringify(Object.assign({}, localStorage))`); !strings.Contains(s, "alice") {
		t.Errorf("the claim name is not kept in localStorage: %s", s)
	}
}

func browserLiveWrite(t *testing.T, f *browserFixture, browser context.Context) {
	id := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Watched from afar"})
	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/board")
	p.wait(inColumnJS(id, "todo"), id+" on the board")
	p.wait(`document.body.dataset.live === "1"`, "the event stream open (body[data-live=1])")
	_ = evalJS[int](p, `window.__cosNoReload = 1`)

	f.call(t, "cos_task_claim", map[string]any{"task_id": id, "assignee": "bob"})
	p.wait(cardTextJS(id, ".holder", "bob"), id+"'s .holder showing bob, claimed by another process")
	f.call(t, "cos_task_update", map[string]any{"task_id": id, "assignee": "bob", "patch": map[string]any{"status": "review"}})
	p.wait(inColumnJS(id, "review"), id+" moved to review by another process")
	added := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Born elsewhere"})
	p.wait(inColumnJS(added, "todo"), added+", created by another process, on the board")
	if got := evalJS[bool](p, `window.__cosNoReload === 1`); !got {
		t.Fatal("the page reloaded to show the writes; want them applied live")
	}
}

func browserGraph(t *testing.T, f *browserFixture, browser context.Context) {
	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/graph")
	p.setValue("#graph-q", "Recorder")
	p.click("#graph-go")
	p.wait(`document.querySelector('#candidates li[data-uid]')`, "candidates listed for an ambiguous search")
	uid := evalJS[string](p, `(() => {
		const li = [...document.querySelectorAll('#candidates li[data-uid]')];
		const pick = li.find(e => /NewRecorder$/.test(e.dataset.uid)) || li[0];
		return pick.dataset.uid;
	})()`)
	p.click(fmt.Sprintf(`#candidates li[data-uid=%q]`, uid))
	p.wait(`window.cosGraph && window.cosGraph.nodes().length > 1`, "the neighbourhood of "+uid+" drawn")
	p.wait(`document.querySelector('#node-detail') && document.querySelector('#node-detail').textContent.trim() !== ""`, "the node detail panel filled")
	p.wait(`document.querySelector('#node-source') && document.querySelector('#node-source').textContent.includes("func")`, "the node's source lines shown")
	p.wait(`document.querySelector('input[data-edge-type]')`, "edge-type filters")
	p.screenshot("graph")

	// Impact: the selected node's dependants highlighted by depth (its
	// callers, the tests, at depth 1).
	p.click("#impact-btn")
	p.wait(`window.cosGraph.nodes('.impact-1').length > 0`, "dependants of "+uid+" highlighted at depth 1")

	before := evalJS[int](p, `window.cosGraph.nodes().length`)
	ids := evalJS[[]string](p, fmt.Sprintf(`window.cosGraph.nodes().map(n => n.id()).filter(id => id !== %q)
		.sort((a, b) => (/ResponseRecorder$/.test(b) ? 1 : 0) - (/ResponseRecorder$/.test(a) ? 1 : 0))`, uid))
	grew, clicked := false, 0
	for _, id := range ids {
		if clicked == 6 {
			break
		}
		if !p.clickNode(id) {
			continue
		}
		clicked++
		if p.poll(fmt.Sprintf(`window.cosGraph.nodes().length > %d`, before), 3*time.Second) == nil {
			grew = true
			break
		}
	}
	if !grew {
		t.Fatalf("clicking %d nodes around %s did not expand the graph (still %d nodes)\n%s", clicked, uid, before, p.dump())
	}
	p.screenshot("graph-expanded")

	// An edge type unticked hides its edges and only those.
	typ := evalJS[string](p, `document.querySelector('input[data-edge-type]').dataset.edgeType`)
	p.click(fmt.Sprintf(`input[data-edge-type=%q]`, typ))
	p.wait(fmt.Sprintf(`(() => { const e = window.cosGraph.edges(); const of = e.filter(x => x.data('type') === %q);
		return of.length > 0 && of.every(x => !x.visible()) && e.filter(x => x.data('type') !== %q).every(x => x.visible()); })()`, typ, typ),
		"the "+typ+" edges hidden by their filter, the others shown")

	// Colour by cluster: the drawing is fetched again with the call-graph
	// communities, nodes take their cluster's colour, and the detail panel
	// names the selected node's cluster.
	// (NewRecorder is called by tests alone, outside every cluster: draw
	// Server.Start, which the call graph places in one.)
	p.click("#colour-clusters")
	evalJS[bool](p, `(location.hash = '#/graph?uid=' + encodeURIComponent('code:function:server.go::Server.Start'), true)`)
	p.wait(`window.cosGraph.nodes().some(n => n.data('cluster') >= 0)`, "nodes coloured by their call-graph cluster")
	p.wait(`(() => { const c = document.querySelector('#node-detail .cluster'); return c && /^Cluster: .+ — \d+ functions$/.test(c.textContent); })()`,
		"the detail panel naming the node's cluster")
	p.screenshot("graph-clusters")
}

// browserGraphKeyboard searches and picks a candidate with keys only.
func browserGraphKeyboard(t *testing.T, f *browserFixture, browser context.Context) {
	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/graph")
	p.do(chromedp.SendKeys(chromedp.CSS("#graph-q"), "Recorder\r"))
	p.wait(`document.querySelector('#candidates li[data-uid]')`, "candidates after Enter in the search box")
	uid := evalJS[string](p, `document.querySelector('#candidates li[data-uid]').dataset.uid`)
	p.do(chromedp.SendKeys(chromedp.CSS("#candidates li[data-uid] button"), "\r"))
	p.wait(fmt.Sprintf(`window.cosGraph && window.cosGraph.getElementById(%q).length === 1 && window.cosGraph.nodes().length > 1`, uid),
		"the neighbourhood of "+uid+" drawn after Enter on its candidate")
}

func browserTimeTravel(t *testing.T, f *browserFixture, browser context.Context) {
	created := f.call(t, "cos_task_create", map[string]any{"title": "Travel back"})
	id := created["task"].(map[string]any)["task_id"].(string)
	seq := answerSeq(t, created)
	f.call(t, "cos_task_update", map[string]any{"task_id": id, "patch": map[string]any{"status": "done"}})

	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/board")
	p.wait(inColumnJS(id, "done"), id+" done now")
	p.setValue("#at-input", strconv.Itoa(seq))
	p.click("#at-apply")
	p.wait(fmt.Sprintf(`(() => { const b = document.querySelector('#readonly-banner');
		return b && !b.hidden && b.offsetParent !== null && b.textContent.includes("read-only") && b.textContent.includes(%q); })()`, strconv.Itoa(seq)),
		"the read-only banner naming seq "+strconv.Itoa(seq))
	p.wait(inColumnJS(id, "todo"), id+" back in todo at seq "+strconv.Itoa(seq))
	p.wait(`(() => { const b = [...document.querySelectorAll('button[data-action=claim]')]; return b.length > 0 && b.every(x => x.disabled); })()`,
		"every claim button disabled in the past")
	p.screenshot("board-time-travel")

	p.click("#at-clear")
	p.wait(`(() => { const b = document.querySelector('#readonly-banner'); return !b || b.hidden || b.offsetParent === null; })()`, "the banner gone")
	p.wait(inColumnJS(id, "done"), id+" done again at the head")

	// A time works as well as a seq: the creation's time shows it todo.
	at := created["task"].(map[string]any)["created_at"].(string)
	p.setValue("#at-input", at)
	p.click("#at-apply")
	p.wait(`(() => { const b = document.querySelector('#readonly-banner'); return b && !b.hidden && b.textContent.includes("read-only"); })()`, "the read-only banner for "+at)
	p.wait(inColumnJS(id, "todo"), id+" in todo at "+at)
	p.click("#at-clear")
}

// browserTimeTravelGraph adds a node after seq S (another process's
// cos_graph_upsert): the graph at S does not have it, the graph now does.
func browserTimeTravelGraph(t *testing.T, f *browserFixture, browser context.Context) {
	const root, added = "code:function:recorder.go::NewRecorder", "code:function:recorder.go::AddedLater"
	before := answerSeq(t, f.call(t, "cos_task_board", map[string]any{}))
	f.call(t, "cos_graph_upsert", map[string]any{
		"nodes": []map[string]any{{"uid": added, "kind": "function", "label": "AddedLater", "path": "recorder.go", "line": 1}},
		"edges": []map[string]any{{"source": root, "target": added, "type": "calls"}},
	})
	has := func(uid string) string {
		return fmt.Sprintf(`window.cosGraph && window.cosGraph.getElementById(%q).length === 1`, uid)
	}
	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/graph?uid=" + root)
	p.wait(has(added), added+" drawn now")
	p.setValue("#at-input", strconv.Itoa(before))
	p.click("#at-apply")
	p.wait(`(() => { const b = document.querySelector('#readonly-banner'); return b && !b.hidden && b.textContent.includes("read-only"); })()`, "the read-only banner")
	p.wait(has(root)+" && !("+has(added)+")", root+"'s neighbourhood at seq "+strconv.Itoa(before)+", without "+added)
	p.screenshot("graph-time-travel")
	p.click("#at-clear")
	p.wait(has(added), added+" drawn again at the head")
}

func browserFeed(t *testing.T, f *browserFixture, browser context.Context) {
	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/feed")
	p.wait(`document.body.dataset.live === "1"`, "the event stream open")
	created := f.call(t, "cos_task_create", map[string]any{"title": "Fed live"})
	seq := strconv.Itoa(answerSeq(t, created))
	p.wait(fmt.Sprintf(`document.querySelector('#feed li[data-seq=%q]')`, seq), "event "+seq+" in the feed")
	id := created["task"].(map[string]any)["task_id"].(string)
	p.wait(fmt.Sprintf(`[...document.querySelectorAll('#feed li[data-seq=%q] a[href]')].some(a => a.getAttribute('href').startsWith('#/board') && a.getAttribute('href').includes(%q))`, seq, id),
		"event "+seq+" linked to the board's "+id)
	p.screenshot("feed")

	// The filter keeps the rows whose type or stream contains its text.
	other := f.call(t, "cos_task_create", map[string]any{"title": "Fed beside"})
	oseq := strconv.Itoa(answerSeq(t, other))
	ostream := "task:" + other["task"].(map[string]any)["task_id"].(string)
	p.wait(fmt.Sprintf(`document.querySelector('#feed li[data-seq=%q]')`, oseq), "event "+oseq+" in the feed")
	p.setValue("#feed-filter", ostream)
	p.wait(fmt.Sprintf(`(() => { const vis = (q) => { const e = document.querySelector('#feed li[data-seq="' + q + '"]'); return !!e && !e.hidden && e.offsetParent !== null; };
		return vis(%q) && !vis(%q); })()`, oseq, seq), "only "+ostream+"'s event shown under the filter")
	p.setValue("#feed-filter", "")

	p.click("#feed-pause")
	paused := f.call(t, "cos_task_create", map[string]any{"title": "Fed while paused"})
	pseq := strconv.Itoa(answerSeq(t, paused))
	if p.poll(fmt.Sprintf(`document.querySelector('#feed li[data-seq=%q]')`, pseq), time.Second) == nil {
		t.Errorf("event %s reached the feed while it was paused", pseq)
	}
	p.click("#feed-pause")
}

func browserEvidenceHealth(t *testing.T, f *browserFixture, browser context.Context) {
	const session = "browser-sess-1"
	f.call(t, "cos_supervise_record_output", map[string]any{"session_id": session, "role": "planner",
		"output": map[string]any{"summary": "split the parser", "steps": []string{"lexer", "tests"}}})
	f.call(t, "cos_supervise_record_output", map[string]any{"session_id": session, "kind": "backtrack",
		"output": map[string]any{"reason": "the lexer was wrong"}})
	// A record made for a task shows the code it points at.
	task := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Cite the lexer"})
	cited := f.call(t, "cos_supervise_record_output", map[string]any{"session_id": session, "kind": "discovery",
		"output": map[string]any{"summary": "the lexer is shared"}, "task_id": task})
	ref, _ := cited["task"].(map[string]any)
	refSeq, _ := ref["seq"].(float64)
	if refSeq == 0 {
		t.Fatalf("record with task_id answered no reference: %v", cited)
	}

	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/evidence")
	p.wait(fmt.Sprintf(`document.querySelector('#sessions li[data-session=%q]')`, session), "session "+session+" listed")
	p.click(fmt.Sprintf(`#sessions li[data-session=%q] a`, session))
	p.wait(`(() => { const b = document.querySelector('#bundle'); return b && b.textContent.includes("planner") && b.textContent.includes("the lexer was wrong"); })()`,
		"the bundle with its planner slot and backtrack")
	p.wait(`(() => { const a = document.querySelector('a#bundle-download'); return a && a.getAttribute('href'); })()`, "the bundle's download link")
	p.wait(fmt.Sprintf(`(() => { const r = document.querySelector('#bundle [data-section=discoveries] .task-ref[data-task-ref=%q]'); return !!r && r.dataset.seq === %q && r.textContent.includes("seq %d"); })()`,
		task, strconv.Itoa(int(refSeq)), int(refSeq)), "the discovery's task reference")
	p.screenshot("evidence")

	// The bundle has an address of its own.
	q := openTab(t, browser)
	q.open(f.Hub.URL + "/#/evidence/" + session)
	q.wait(`(() => { const b = document.querySelector('#bundle'); return b && b.textContent.includes("planner"); })()`, "the bundle opened by its address")

	p.click(`a[data-view=health]`)
	p.wait(`location.hash.startsWith("#/health")`, "the health view from its nav link")
	for _, field := range []string{"head", "lag", "presence", "integrity", "freshness"} {
		p.wait(fmt.Sprintf(`document.querySelector('#health [data-field=%q]')`, field), "health field "+field)
	}
	p.wait(`/[0-9]/.test(document.querySelector('#health [data-field=head]').textContent)`, "the log head shown")
	p.screenshot("health")
}

// browserCardOpen: a card's Open button opens the task's page (where
// every field is edited; TaskPanelStaleEdit covers a stale edit), at now
// and while time travel is on.
func browserCardOpen(t *testing.T, f *browserFixture, browser context.Context) {
	id := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Opened from its card"})
	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/board")
	p.wait(inColumnJS(id, "todo"), id+" on the board")
	p.click(fmt.Sprintf(`[data-task-id=%q] button[data-action=open]`, id))
	p.wait(fmt.Sprintf(`document.querySelector('#task-panel').open && document.querySelector('#task-panel').dataset.taskId === %q`, id), "the task's page open")
	if v := evalJS[string](p, `document.querySelector('#task-title').value`); v != "Opened from its card" {
		t.Fatalf("#task-title = %q", v)
	}
	p.key(kb.Escape)
	p.wait(`!document.querySelector('#task-panel').open`, "the panel closed")
	// The page belongs to the board: another view closes it.
	p.click(fmt.Sprintf(`[data-task-id=%q] button[data-action=open]`, id))
	p.wait(`document.querySelector('#task-panel').open`, "the task's page open again")
	p.do(chromedp.Evaluate[chromedp.Void](`location.hash = '#/feed'`))
	p.wait(`document.body.dataset.view === 'feed' && !document.querySelector('#task-panel').open`, "the task's page closed on the feed")
	if n := evalJS[int](p, `document.querySelectorAll('#edit-dialog, #conflict').length`); n != 0 {
		t.Errorf("%d old edit dialogs left in the page", n)
	}
}

func browserMobileBoard(t *testing.T, f *browserFixture, browser context.Context) {
	id := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Seen on a phone"})
	p := openTab(t, browser)
	p.do(chromedp.EmulateViewport(390, 844))
	p.open(f.Hub.URL + "/#/board")
	p.wait(inColumnJS(id, "todo"), id+" on the board")
	p.screenshot("board-390x844")
	if w := evalJS[int](p, `document.documentElement.scrollWidth - window.innerWidth`); w > 1 {
		t.Errorf("at 390×844 the page is %d px wider than the screen (it scrolls sideways)", w)
	}
}

// browserToken runs `cos hub` on a state folder of its own with a token:
// the page asks for it once, and a reload needs no second asking.
func browserToken(t *testing.T, f *browserFixture, browser context.Context) {
	const token = "browser-s3cret"
	dir := t.TempDir()
	id := binCreateTask(t, f.Bin, dir, map[string]any{"title": "Behind a token"})
	h := startCosHub(t, f.Bin, dir, f.Root, "--token", token)
	p := openTab(t, browser, chromedp.WithNewBrowserContext()) // no cookie of another test
	p.allow("status of 401")                                   // the reads before the token is given
	p.do(chromedp.Navigate(h.URL + "/#/board"))
	p.wait(`document.querySelector('#token-dialog').open`, "the token dialog")
	p.setValue("#token-input", token)
	p.click("#token-submit")
	p.waitReady()
	p.wait(inColumnJS(id, "todo"), id+" on the board once the token is given")
	p.screenshot("token-board")
	p.do(chromedp.Reload())
	p.waitReady()
	p.wait(inColumnJS(id, "todo"), id+" on the board after a reload")
	if open := evalJS[bool](p, `document.querySelector('#token-dialog').open`); open {
		t.Fatal("the page asked for the token again after a reload")
	}
}
