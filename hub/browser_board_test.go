package hub_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// bigBoardTasks is how many tasks the big board holds: more than one page
// of a column, and more than the 200 the board once loaded in all.
const bigBoardTasks = 243

// bigTask is task n's (1-based) status, labels and title on the big board.
func bigTask(n int) (status string, labels []string, title string) {
	status = "todo"
	switch {
	case n%25 == 0:
		status = "review"
	case n%40 == 1 && n < bigBoardTasks:
		status = "done"
	case n%60 == 7:
		status = "in_progress"
	}
	labels = []string{[]string{"perf", "area/api", "area/ui"}[n%3]}
	title = fmt.Sprintf("Big board task %d", n)
	if n%10 == 7 {
		title += " zebra"
	}
	return status, labels, title
}

// postTask creates a task through the Hub's HTTP API and returns its id.
func postTask(t *testing.T, hubURL string, args map[string]any) string {
	t.Helper()
	b, _ := json.Marshal(args)
	resp, err := http.Post(hubURL+"/api/tasks", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var env struct {
		OK   bool `json:"ok"`
		Data struct {
			Task struct {
				ID string `json:"task_id"`
			} `json:"task"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil || !env.OK {
		t.Fatalf("POST /api/tasks %s: %d %s", b, resp.StatusCode, body)
	}
	return env.Data.Task.ID
}

// columnJS is the count text, data-total and data-shown of a column.
func columnJS(status string) string {
	return fmt.Sprintf(`(() => { const c = document.querySelector('.column[data-status=%q]');
		return c ? [c.querySelector('.count').textContent, c.dataset.total, c.dataset.shown] : null; })()`, status)
}

// browserBigBoard is a board of 243 tasks on a state folder of its own,
// at 1200×800: every column's count is true, scrolling (and the "Load
// more" button) loads the rest, a deep link to the newest task shows and
// focuses it, and a live move of a task no loaded page holds appears.
func browserBigBoard(t *testing.T, f *browserFixture, browser context.Context) {
	dir := t.TempDir()
	h := startCosHub(t, f.Bin, dir, f.Root)
	want := map[string]int{}
	zebraUI := map[string]int{} // zebra in the title, an area/ label: per status
	for n := 1; n <= bigBoardTasks; n++ {
		st, labels, title := bigTask(n)
		want[st]++
		if strings.Contains(title, "zebra") && strings.HasPrefix(labels[0], "area/") {
			zebraUI[st]++
		}
		if id := postTask(t, h.URL, map[string]any{"title": title, "status": st, "labels": labels}); id != fmt.Sprintf("TASK-%03d", n) {
			t.Fatalf("task %d created as %s", n, id)
		}
	}

	p := openTab(t, browser)
	p.do(chromedp.EmulateViewport(1200, 800))
	p.open(h.URL + "/#/board")
	for _, st := range []string{"todo", "in_progress", "blocked", "review", "done", "cancelled"} {
		n := want[st]
		text := fmt.Sprint(n)
		if n > 50 {
			text = fmt.Sprintf("50 of %d", n)
		}
		p.wait(fmt.Sprintf(`JSON.stringify(%s) === %q`, columnJS(st), fmt.Sprintf(`[%q,"%d","%d"]`, text, n, min(n, 50))),
			fmt.Sprintf("the %s column counting %q", st, text))
	}
	p.screenshot("board-243-1200")
	if w := evalJS[int](p, `Math.max(document.documentElement.scrollWidth - innerWidth, document.querySelector('#board').scrollWidth - document.querySelector('#board').clientWidth)`); w > 1 {
		t.Errorf("at 1200 px the board is %d px wider than its space: not every column is visible", w)
	}
	if evalJS[bool](p, `!!document.querySelector('[data-task-id="TASK-243"]')`) {
		t.Fatal("TASK-243 is on the board before the todo column is scrolled: the first page should stop at 50")
	}

	// Scrolling the todo column loads the rest, a page at a time.
	scroll := `(() => { const c = document.querySelector('.column[data-status=todo] .cards'); c.scrollTop = c.scrollHeight;
		return c.parentElement.dataset.shown === c.parentElement.dataset.total; })()`
	p.waitFor(scroll, "every todo task loaded by scrolling", 30*time.Second)
	p.wait(fmt.Sprintf(`document.querySelector('.column[data-status=todo] .count').textContent === "%d"`, want["todo"]), "the todo count without 'of'")
	p.wait(`document.querySelector('.column[data-status=todo] [data-task-id="TASK-243"]')`, "TASK-243 in todo once scrolled")
	p.wait(`document.querySelector('button[data-more=todo]').hidden`, "no Load more once all are loaded")
	if n := evalJS[int](p, `document.querySelectorAll('.column[data-status=todo] .card').length`); n != want["todo"] {
		t.Errorf("todo holds %d cards, want %d", n, want["todo"])
	}

	// The Load more button, by keyboard.
	k := openTab(t, browser)
	k.open(h.URL + "/#/board?status=todo")
	k.wait(`document.querySelector('.column[data-status=todo]') && document.querySelector('.column[data-status=todo]').dataset.shown === "50"`, "the first todo page")
	k.do(chromedp.SendKeys(chromedp.CSS(`button[data-more=todo]`), "\r"))
	k.wait(`Number(document.querySelector('.column[data-status=todo]').dataset.shown) >= 100`, "a second page by Enter on Load more")

	// A deep link to the newest task shows and focuses it.
	d := openTab(t, browser)
	d.open(h.URL + "/#/board?task=TASK-243")
	d.wait(`document.querySelector('.column[data-status=todo] [data-task-id="TASK-243"].focused')`, "TASK-243 shown, highlighted, by its deep link")
	d.wait(`document.querySelector('#task-panel').open && document.querySelector('#task-panel').dataset.taskId === "TASK-243"`, "TASK-243's page open by its deep link")
	d.screenshot("board-243-deeplink")
	d.do(chromedp.KeyEvent(kb.Escape))
	d.wait(`document.activeElement && document.activeElement.dataset.taskId === "TASK-243"`, "TASK-243's card focused once its page is closed")

	// A live move, from another process, of a task no loaded page holds.
	l := openTab(t, browser)
	l.open(h.URL + "/#/board")
	l.wait(`document.querySelector('.column[data-status=todo]').dataset.shown === "50"`, "the first todo page")
	l.wait(`document.body.dataset.live === "1"`, "the event stream open")
	if evalJS[bool](l, `!!document.querySelector('[data-task-id="TASK-242"]')`) {
		t.Fatal("TASK-242 loaded on the first page")
	}
	_ = binCall(t, f.Bin, dir, "cos_task_update", map[string]any{"task_id": "TASK-242", "patch": map[string]any{"status": "review"}})
	l.wait(`document.querySelector('.column[data-status=review] [data-task-id="TASK-242"]')`, "TASK-242 in review, moved by another process")
	l.wait(fmt.Sprintf(`document.querySelector('.column[data-status=review]').dataset.total === "%d"`, want["review"]+1), "review's count grown by one")
	l.wait(fmt.Sprintf(`document.querySelector('.column[data-status=todo] .count').textContent === "50 of %d"`, want["todo"]-1), "todo's count down by one")

	// Filters: in the URL, restored on load.
	q := openTab(t, browser)
	q.open(h.URL + "/#/board?q=ZEBRA&label=area/&status=todo,review")
	q.wait(`document.querySelectorAll('.column').length === 2`, "two columns: todo and review")
	for _, st := range []string{"todo", "review"} {
		q.wait(fmt.Sprintf(`document.querySelector('.column[data-status=%s]').dataset.total === "%d"`, st, zebraUI[st]),
			fmt.Sprintf("%s counting %d zebra tasks with an area/ label", st, zebraUI[st]))
	}
	if v := evalJS[[]string](q, `[document.querySelector('#board-q').value, document.querySelector('#board-label').value]`); v[0] != "ZEBRA" || v[1] != "area/" {
		t.Errorf("the filters restored from the URL: %v", v)
	}
	q.screenshot("board-243-filtered")
	q.setValue("#board-q", "nothing-matches-this")
	q.wait(`!document.querySelector('#board-empty').hidden && document.querySelector('#board-empty button[data-clear]')`, "the no-match hint with a clear button")
	q.wait(`location.hash.includes('q=nothing-matches-this') && location.hash.includes('status=todo,review')`, "the filters in the URL")
	q.screenshot("board-no-match")
	q.click(`a[data-view=feed]`)
	q.waitReady()
	q.click(`a[data-view=board]`)
	q.waitReady()
	q.wait(`document.querySelector('#board-q').value === 'nothing-matches-this' && location.hash.includes('q=nothing-matches-this')`, "the filters kept on the way back from the feed")
	q.click(`#board-empty button[data-clear]`)
	q.wait(`document.querySelectorAll('.column').length === 6 && !location.hash.includes('q=') && document.querySelector('#board-empty').hidden`, "filters cleared")

	// An empty board says how to make a task.
	e := startCosHub(t, f.Bin, t.TempDir(), f.Root)
	ep := openTab(t, browser)
	ep.open(e.URL + "/#/board")
	ep.wait(`!document.querySelector('#board-empty').hidden && document.querySelector('#board-empty').textContent.includes('cos_task_create')`, "the empty-board hint")
	ep.screenshot("board-empty")
	ep.click(`#board-empty button[data-new]`)
	ep.wait(`document.querySelector('#new-task').open`, "the hint's New task opening the form")
}
