package hub_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The task panel (hub/ui/task.js): one task's page over the board.

// panelOpenJS is true while the panel is open on task id with its fields
// filled.
func panelOpenJS(id string) string {
	return fmt.Sprintf(`(() => { const d = document.querySelector('#task-panel'); return d && d.open && d.dataset.taskId === %q && !document.querySelector('#task-form').hidden; })()`, id)
}

const panelClosedJS = `!document.querySelector('#task-panel').open`

// taskOf is data.task of a cos_task_get answer from another process.
func taskOf(t *testing.T, f *browserFixture, id string) map[string]any {
	t.Helper()
	task, _ := f.call(t, "cos_task_get", map[string]any{"task_id": id})["task"].(map[string]any)
	if task == nil {
		t.Fatalf("cos_task_get %s answered no task", id)
	}
	return task
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// browserTaskOpen: a card's title opens the panel, Esc closes it and
// gives the focus back to the card; Enter on the focused card opens it
// again; the address names the task while it is open.
func browserTaskOpen(t *testing.T, f *browserFixture, browser context.Context) {
	id := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Opened from its card", "description": "the long story", "labels": []string{"ui"}})
	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/board")
	p.wait(inColumnJS(id, "todo"), id+" on the board")
	p.click(fmt.Sprintf(`[data-task-id=%q] .title`, id))
	p.wait(panelOpenJS(id), "the panel open on "+id)
	p.wait(`document.querySelector('#task-description').value === "the long story" && document.querySelector('#task-labels').value === "ui"`, "the panel's fields filled")
	p.wait(`location.hash.includes("task=`+id+`")`, "the address naming "+id)
	p.wait(`document.querySelector('#task-history li[data-seq]')`, "the history listed")
	p.screenshot("task-panel")

	p.do(chromedp.KeyEvent(kb.Escape))
	p.wait(panelClosedJS, "the panel closed by Esc")
	p.wait(fmt.Sprintf(`document.activeElement && document.activeElement.dataset.taskId === %q`, id), "the focus back on "+id+"'s card")
	p.wait(`!location.hash.includes("task=")`, "the address without the task")

	p.do(chromedp.KeyEvent(kb.Enter))
	p.wait(panelOpenJS(id), "the panel open by Enter on the card")
	p.click("#task-panel-close")
	p.wait(panelClosedJS, "the panel closed by its button")
}

// browserTaskDeepLink: #/board?task=ID opens the panel with the task's
// footprint, overlaps, evidence and history.
func browserTaskDeepLink(t *testing.T, f *browserFixture, browser context.Context) {
	id := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Linked to", "touches": []string{"httptest.go"}})
	other := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Shares the file", "touches": []string{"httptest.go"}})
	f.call(t, "cos_supervise_record_output", map[string]any{"session_id": "panel-sess", "kind": "discovery",
		"output": map[string]any{"summary": "the server needs a lock"}, "task_id": id})

	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/board?task=" + id)
	p.wait(panelOpenJS(id), "the panel open on "+id+" from the address")
	p.wait(`document.querySelector('#task-coord').textContent.includes("httptest.go")`, "the footprint's touches")
	p.wait(fmt.Sprintf(`document.querySelector('#task-overlaps li[data-overlap=%q] a[href*=%q]')`, other, other), "the overlap with "+other+" linked")
	p.wait(`(() => { const li = document.querySelector('#task-evidence li[data-session="panel-sess"]');
		return li && li.textContent.includes("the server needs a lock") && li.querySelector('a[href="#/evidence/panel-sess"]'); })()`, "the evidence record linked to its session")
	p.wait(`document.querySelector('#task-history li[data-seq]') && document.querySelector('#task-history').textContent.includes("task.created")`, "the history")
	p.screenshot("task-panel-deep-link")

	// The overlap's link opens the other task's page.
	p.click(fmt.Sprintf(`#task-overlaps li[data-overlap=%q] a`, other))
	p.wait(panelOpenJS(other), "the panel on "+other+" from the overlap link")
}

// browserTaskEditEveryField edits every field from the panel and claims
// the task; another process reads them all.
func browserTaskEditEveryField(t *testing.T, f *browserFixture, browser context.Context) {
	id := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Edit me"})
	dep := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Before it"})
	parent := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Its epic"})

	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/board?task=" + id)
	p.wait(panelOpenJS(id), "the panel on "+id)
	p.setValue("#task-title", "Edited everywhere")
	p.setValue("#task-description", "every field at once")
	p.setValue("#task-status", "blocked")
	p.setValue("#task-priority", "high")
	p.setValue("#task-labels", "ui, panel")
	p.setValue("#task-depends", dep)
	p.setValue("#task-parent", parent)
	p.setValue("#task-touches", "recorder.go")
	p.click("#task-save")
	p.wait(fmt.Sprintf(`document.querySelector('#task-panel').dataset.revision === "2" && document.querySelector('#task-panel-title').textContent === %q`, id+": Edited everywhere"),
		"the panel at revision 2")
	p.wait(`document.querySelector('#task-form-error').hidden`, "no error")
	p.wait(inColumnJS(id, "blocked"), id+"'s card moved to blocked")

	task := taskOf(t, f, id)
	if task["title"] != "Edited everywhere" || task["description"] != "every field at once" || task["status"] != "blocked" || task["priority"] != "high" ||
		!slices.Equal(strs(task["labels"]), []string{"panel", "ui"}) && !slices.Equal(strs(task["labels"]), []string{"ui", "panel"}) ||
		!slices.Equal(strs(task["depends_on"]), []string{dep}) || task["parent"] != parent || !slices.Equal(strs(task["touches"]), []string{"recorder.go"}) {
		t.Fatalf("after the panel's edit: %v", task)
	}

	// The parent cleared: the patch says null.
	p.setValue("#task-parent", "")
	p.click("#task-save")
	p.wait(`document.querySelector('#task-panel').dataset.revision === "3"`, "the panel at revision 3")
	if task := taskOf(t, f, id); task["parent"] != nil && task["parent"] != "" {
		t.Fatalf("parent not cleared: %v", task)
	}

	// The assignee: claimed in the name typed.
	p.setValue("#task-assign-input", "dora")
	p.click("#task-claim")
	p.wait(`document.querySelector('#task-holder').textContent.includes("dora")`, "held by dora")
	if task := taskOf(t, f, id); task["assignee"] != "dora" {
		t.Fatalf("assignee after the panel's claim: %v", task["assignee"])
	}
	p.screenshot("task-panel-edited")

	// Bad input: the server's message in the panel, nothing changed.
	p.allow("status of 404") // the PATCH naming a task that does not exist
	p.setValue("#task-depends", "TASK-999")
	p.click("#task-save")
	p.wait(`!document.querySelector('#task-form-error').hidden && document.querySelector('#task-form-error').textContent.includes("TASK-999")`, "the refusal shown")
	if task := taskOf(t, f, id); !slices.Equal(strs(task["depends_on"]), []string{dep}) {
		t.Fatalf("a refused edit changed depends_on: %v", task["depends_on"])
	}
}

// browserTaskStaleEdit: an edit of a revision another process has moved
// past shows their values beside the person's; applied on top, it lands.
func browserTaskStaleEdit(t *testing.T, f *browserFixture, browser context.Context) {
	id := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Raced"})
	p := openTab(t, browser)
	p.allow("status of 412")
	p.open(f.Hub.URL + "/#/board?task=" + id)
	p.wait(panelOpenJS(id), "the panel on "+id)
	p.wait(`document.body.dataset.live === "1"`, "the event stream open")
	// The edit is under way when another process renames the task: the
	// panel keeps the edit and says the task moved.
	p.setValue("#task-title", "Mine")
	f.call(t, "cos_task_update", map[string]any{"task_id": id, "patch": map[string]any{"title": "Theirs"}})
	p.wait(`document.querySelector('#task-panel-meta').textContent.includes("changed elsewhere") && document.querySelector('#task-title').value === "Mine"`,
		"the panel saying the task changed, the edit kept")
	p.click("#task-save")
	p.wait(`(() => { const c = document.querySelector('#task-conflict'); return !c.hidden && c.querySelector('tr[data-field=title] .theirs').textContent === "Theirs" && c.querySelector('tr[data-field=title] .mine').textContent === "Mine"; })()`,
		"the conflict naming their title and mine")
	p.screenshot("task-panel-conflict")
	if task := taskOf(t, f, id); task["title"] != "Theirs" {
		t.Fatalf("a stale edit changed the task: %v", task["title"])
	}
	p.click("#task-conflict-reapply")
	p.wait(`document.querySelector('#task-conflict').hidden && document.querySelector('#task-panel').dataset.revision === "3"`, "the edit applied on top")
	if task := taskOf(t, f, id); task["title"] != "Mine" || task["revision"] != 3.0 {
		t.Fatalf("after applying on top: %v", task)
	}
}

// browserTaskHistoryTimeTravel: a history row's "view as of" sets the
// page's time travel; the panel then shows the task as it was.
func browserTaskHistoryTimeTravel(t *testing.T, f *browserFixture, browser context.Context) {
	created := f.call(t, "cos_task_create", map[string]any{"title": "Once younger"})
	id := created["task"].(map[string]any)["task_id"].(string)
	seq := strconv.Itoa(answerSeq(t, created))
	f.call(t, "cos_task_update", map[string]any{"task_id": id, "patch": map[string]any{"title": "Now older"}})

	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/board?task=" + id)
	p.wait(panelOpenJS(id), "the panel on "+id)
	p.wait(fmt.Sprintf(`document.querySelector('#task-history li[data-seq=%q] button.as-of')`, seq), "the creation's row with its link")
	p.click(fmt.Sprintf(`#task-history li[data-seq=%q] button.as-of`, seq))
	p.wait(fmt.Sprintf(`document.querySelector('#at-input').value === %q`, seq), "time travel set to seq "+seq)
	p.wait(fmt.Sprintf(`(() => { const b = document.querySelector('#readonly-banner'); return !b.hidden && b.textContent.includes("seq %s"); })()`, seq), "the banner naming seq "+seq)
	p.wait(`document.querySelector('#task-title').value === "Once younger" && document.querySelector('#task-title').disabled && document.querySelector('#task-save').disabled`,
		"the panel showing the old title, read-only")
	p.screenshot("task-panel-as-of")
	p.do(chromedp.KeyEvent(kb.Escape))
	p.wait(panelClosedJS, "the panel closed")
	p.click("#at-clear")
	p.wait(`document.querySelector('#readonly-banner').hidden`, "back to now")
}

// browserTaskNew: "New task" creates a task and opens its page.
func browserTaskNew(t *testing.T, f *browserFixture, browser context.Context) {
	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/board")
	p.click("#board-new")
	p.wait(`document.querySelector('#new-task').open && document.activeElement.id === "new-task-title"`, "the new-task form, its title focused")
	p.setValue("#new-task-title", "Born in the panel")
	p.setValue("#new-task-description", "made from the page")
	p.setValue("#new-task-priority", "critical")
	p.setValue("#new-task-labels", "hub")
	p.screenshot("task-new")
	p.click("#new-task-create")
	p.wait(`(() => { const d = document.querySelector('#task-panel'); return d.open && d.dataset.taskId && document.querySelector('#task-title').value === "Born in the panel"; })()`,
		"the new task's page")
	id := evalJS[string](p, `document.querySelector('#task-panel').dataset.taskId`)
	task := taskOf(t, f, id)
	if task["title"] != "Born in the panel" || task["description"] != "made from the page" || task["priority"] != "critical" || !slices.Equal(strs(task["labels"]), []string{"hub"}) {
		t.Fatalf("the new task: %v", task)
	}
	p.do(chromedp.KeyEvent(kb.Escape))
	p.wait(inColumnJS(id, "todo"), id+" on the board")
}

// browserTaskRelease: the holder gets Release; anyone else only Force
// release, behind a confirmation that can be declined.
func browserTaskRelease(t *testing.T, f *browserFixture, browser context.Context) {
	id := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Held elsewhere"})
	f.call(t, "cos_task_claim", map[string]any{"task_id": id, "assignee": "bob"})
	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/board")
	p.setValue("#assignee-input", "alice")
	evalJS[bool](p, `(location.hash = '#/board?task=`+id+`', true)`)
	p.wait(panelOpenJS(id), "the panel on "+id)
	p.wait(`document.querySelector('#task-release').hidden && !document.querySelector('#task-force-release').hidden`, "only Force release offered to alice")
	p.screenshot("task-force-release")

	p.click("#task-force-release")
	p.wait(`document.querySelector('#force-release-dialog').open && document.querySelector('#force-release-text').textContent.includes("bob")`, "the confirmation naming bob")
	p.screenshot("task-force-release-confirm")
	p.click("#force-release-cancel")
	p.wait(`!document.querySelector('#force-release-dialog').open && document.querySelector('#task-panel').open`, "declined; the panel still open")
	if task := taskOf(t, f, id); task["assignee"] != "bob" {
		t.Fatalf("a declined force release released: %v", task["assignee"])
	}
	p.click("#task-force-release")
	p.wait(`document.querySelector('#force-release-dialog').open`, "the confirmation")
	p.click("#force-release-confirm")
	p.wait(`document.querySelector('#task-holder').textContent.includes("Unclaimed")`, "released by force")
	if task := taskOf(t, f, id); task["assignee"] != nil && task["assignee"] != "" {
		t.Fatalf("after force release: %v", task["assignee"])
	}

	// Claimed by alice, the holder's own Release is offered and works.
	p.setValue("#task-assign-input", "alice")
	p.click("#task-claim")
	p.wait(`!document.querySelector('#task-release').hidden && document.querySelector('#task-force-release').hidden && document.querySelector('#task-holder').textContent.includes("alice (you)")`,
		"Release offered to the holder")
	p.click("#task-release")
	p.wait(`document.querySelector('#task-holder').textContent.includes("Unclaimed")`, "released by its holder")
	if got := taskOf(t, f, id)["assignee"]; got != nil && got != "" {
		t.Fatalf("after release: %v", got)
	}
	if !strings.Contains(evalJS[string](p, `location.hash`), id) {
		t.Errorf("the address lost the task while its page was open")
	}
}

// browserTaskLiveAndPaged: the open page follows another process's
// change of its task, and pages its history 20 at a time.
func browserTaskLiveAndPaged(t *testing.T, f *browserFixture, browser context.Context) {
	id := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Watched closely"})
	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/board?task=" + id)
	p.wait(panelOpenJS(id), "the panel on "+id)
	p.wait(`document.body.dataset.live === "1"`, "the event stream open")
	f.call(t, "cos_task_update", map[string]any{"task_id": id, "patch": map[string]any{"title": "Renamed elsewhere"}})
	p.wait(`document.querySelector('#task-title').value === "Renamed elsewhere" && document.querySelector('#task-panel').dataset.revision === "2"`,
		"the panel following the other process's rename")

	// 22 more events through the HTTP API: 24 in all, 20 on the first page.
	for i := range 22 {
		body := strings.NewReader(fmt.Sprintf(`{"patch":{"description":"take %d"}}`, i))
		req, err := http.NewRequest(http.MethodPatch, f.Hub.URL+"/api/tasks/"+id, body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("PATCH %d: status %d", i, res.StatusCode)
		}
	}
	p.wait(`document.querySelector('#task-description').value === "take 21"`, "the panel at the last description")
	p.wait(`document.querySelectorAll('#task-history li[data-seq]').length === 20 && !document.querySelector('#task-history-more').hidden`, "20 history rows and Load more")
	p.click("#task-history-more")
	p.wait(`document.querySelectorAll('#task-history li[data-seq]').length === 24 && document.querySelector('#task-history-more').hidden`, "all 24 rows after Load more")
	seqs := evalJS[[]int](p, `[...document.querySelectorAll('#task-history li[data-seq]')].map(li => Number(li.dataset.seq))`)
	if !slices.IsSortedFunc(seqs, func(a, b int) int { return b - a }) {
		t.Errorf("history not newest first: %v", seqs)
	}
}
