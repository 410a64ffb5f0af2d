package hub_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The time travel of the whole page: every view reads at `at`, the
// address carries it, the banner warns when it is past the head; the
// evidence list follows new sessions live and the metrics view lists
// what `cos call` processes recorded.

// bannerJS is true when the read-only banner shows and contains want.
func bannerJS(want string) string {
	return fmt.Sprintf(`(() => { const b = document.querySelector('#readonly-banner'); return !!b && !b.hidden && b.textContent.includes(%q); })()`, want)
}

const bannerGoneJS = `(() => { const b = document.querySelector('#readonly-banner'); return !b || b.hidden; })()`

// browserTimeTravelEvidence: at a seq between a session's records the
// bundle is the revision of then, before its first record there is none,
// and the address keeps `at` across a reload.
func browserTimeTravelEvidence(t *testing.T, f *browserFixture, browser context.Context) {
	const session = "tt-sess-1"
	before := answerSeq(t, f.call(t, "cos_task_board", map[string]any{}))
	rec := func(summary string) int {
		return answerSeq(t, f.call(t, "cos_supervise_record_output", map[string]any{"session_id": session, "kind": "discovery",
			"output": map[string]any{"summary": summary}}))
	}
	first := rec("first find")
	rec("second find")
	rec("third find")
	then := f.call(t, "cos_evidence_bundle", map[string]any{"session_id": session, "at": first})
	now := f.call(t, "cos_evidence_bundle", map[string]any{"session_id": session})
	revThen := fmt.Sprint(then["bundle"].(map[string]any)["revision"])
	revNow := fmt.Sprint(now["bundle"].(map[string]any)["revision"])
	if revThen == revNow {
		t.Fatalf("revision at seq %d and now are both %s", first, revNow)
	}
	revJS := func(rev string) string {
		return fmt.Sprintf(`(() => { const r = document.querySelector('#bundle-revision'); return !!r && r.dataset.revision === %q; })()`, rev)
	}

	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/evidence/" + session)
	p.wait(revJS(revNow), "the bundle at revision "+revNow+" now")

	p.setValue("#at-input", strconv.Itoa(first))
	p.click("#at-apply")
	p.wait(bannerJS("seq "+strconv.Itoa(first)), "the banner naming seq "+strconv.Itoa(first))
	p.wait(revJS(revThen), "the bundle at revision "+revThen+" at seq "+strconv.Itoa(first))
	p.wait(`(() => { const b = document.querySelector('#bundle'); return b.textContent.includes("first find") && !b.textContent.includes("third find"); })()`,
		"only the first record at seq "+strconv.Itoa(first))
	p.wait(fmt.Sprintf(`location.hash.includes("at=%d")`, first), "at in the address")
	p.screenshot("evidence-time-travel")

	// A reload keeps the past: the address says where.
	p.do(chromedp.Reload())
	p.waitReady()
	p.wait(bannerJS("seq "+strconv.Itoa(first)), "the banner after a reload")
	p.wait(revJS(revThen), "the bundle at revision "+revThen+" after a reload")

	// Before the session's first record: no bundle, and not an error.
	p.allow("status of 404")
	p.do(chromedp.Navigate(f.Hub.URL + "/#/evidence/" + session + "?at=" + strconv.Itoa(before)))
	p.wait(`document.querySelector('#bundle-none')`, "no bundle before the session's first record")
	p.wait(fmt.Sprintf(`!document.querySelector('#sessions li[data-session=%q]')`, session), session+" not listed at seq "+strconv.Itoa(before))
	p.wait(`document.querySelector('#error').hidden`, "no error for a session not yet recorded")
	p.screenshot("evidence-before-session")

	p.click("#at-clear")
	p.wait(bannerGoneJS, "the banner gone")
	p.wait(`!location.hash.includes("at=")`, "at gone from the address")
	p.wait(revJS(revNow), "the bundle at revision "+revNow+" again")
}

// browserTimeTravelPastHead: a shared address with an `at` past the head
// shows the head and says so.
func browserTimeTravelPastHead(t *testing.T, f *browserFixture, browser context.Context) {
	head := answerSeq(t, f.call(t, "cos_task_board", map[string]any{}))
	far := head + 100000
	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/board?at=" + strconv.Itoa(far))
	p.wait(bannerJS("read-only"), "the read-only banner from the address")
	p.wait(`document.querySelector('#board-new').disabled`, "New task off while the address sets at")
	p.wait(fmt.Sprintf(`(() => { const w = document.querySelector('#readonly-banner #at-warning'); return !!w && w.textContent.includes("seq %d is past the log head"); })()`, far),
		"the banner warning that seq "+strconv.Itoa(far)+" is past the head")
	if v := evalJS[string](p, `document.querySelector('#at-input').value`); v != strconv.Itoa(far) {
		t.Errorf("the at box shows %q, want %d", v, far)
	}
	p.screenshot("time-travel-past-head")
	// Another view keeps the warning and the address keeps at.
	p.click(`a[data-view=health]`)
	p.waitReady()
	p.wait(fmt.Sprintf(`location.hash.startsWith("#/health") && location.hash.includes("at=%d")`, far), "at kept in the address on another view")
	p.wait(`document.querySelector('#health-at')`, "the health view saying what is of the past")
	p.wait(`document.querySelector('#readonly-banner #at-warning')`, "the warning on the health view")
	p.wait(`document.querySelector('#live-status').textContent === 'live · paused'`, "the live label saying the views do not follow")
	p.click("#at-clear")
	p.wait(bannerGoneJS, "the banner gone")
	p.wait(`document.querySelector('#live-status').textContent === 'live'`, "the live label back to live")
	p.wait(`location.hash.startsWith('#/health') && !location.hash.includes('at=')`, "at gone from the address")
	p.click(`a[data-view=board]`)
	p.waitReady()
	p.wait(`!document.querySelector('#board-new').disabled`, "New task on again at now")
}

// browserFeedViewAsOf: a feed row's "view as of" link sets at to its seq;
// the feed then shows the events up to it and holds the live ones.
func browserFeedViewAsOf(t *testing.T, f *browserFixture, browser context.Context) {
	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/feed")
	p.wait(`document.body.dataset.live === "1"`, "the event stream open")
	s1 := strconv.Itoa(answerSeq(t, f.call(t, "cos_task_create", map[string]any{"title": "Felt then"})))
	s2 := strconv.Itoa(answerSeq(t, f.call(t, "cos_task_create", map[string]any{"title": "Felt after"})))
	row := func(seq string) string { return fmt.Sprintf(`document.querySelector('#feed li[data-seq=%q]')`, seq) }
	p.wait(row(s2), "event "+s2+" in the feed")
	p.click(fmt.Sprintf(`#feed li[data-seq=%q] a.asof`, s1))
	p.wait(bannerJS("seq "+s1), "the banner naming seq "+s1)
	if txt := evalJS[string](p, `document.querySelector("#readonly-banner").textContent`); strings.Contains(txt, "null") || strings.Contains(txt, "undefined") {
		t.Errorf("the banner reads %q", txt)
	}
	p.wait(`location.hash.includes("at=`+s1+`")`, "at="+s1+" in the address")
	p.wait(row(s1)+" && !"+row(s2), "the feed up to "+s1+", without "+s2)
	p.wait(`document.querySelector('#feed').children.length > 1`, "the events before "+s1+" shown too")
	// Live events wait while the page shows the past.
	s3 := strconv.Itoa(answerSeq(t, f.call(t, "cos_task_create", map[string]any{"title": "Felt later"})))
	p.wait(`/1 live held/.test(document.querySelector('#feed-count').textContent)`, "the live event counted as held")
	if p.poll(row(s3), time.Second) == nil {
		t.Errorf("event %s reached the feed while it showed seq %s", s3, s1)
	}
	p.screenshot("feed-as-of")
	p.click("#at-clear")
	p.wait(row(s2)+" && "+row(s3), "the live rows back at now, with the held event")
}

// browserEvidenceLive: a session recorded by another process appears at
// the top of the list without a reload; not while time travel is on.
func browserEvidenceLive(t *testing.T, f *browserFixture, browser context.Context) {
	f.call(t, "cos_supervise_record_output", map[string]any{"session_id": "live-sess-0", "kind": "discovery", "output": map[string]any{"summary": "plan"}})
	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/evidence")
	p.wait(`document.querySelector('#sessions li[data-session="live-sess-0"]')`, "the first session listed")
	p.wait(`document.body.dataset.live === "1"`, "the event stream open")
	_ = evalJS[int](p, `window.__cosNoReload = 1`)
	f.call(t, "cos_supervise_record_output", map[string]any{"session_id": "live-sess-1", "kind": "discovery", "output": map[string]any{"summary": "plan two"}})
	p.wait(`(() => { const li = document.querySelector('#sessions li[data-session]'); return !!li && li.dataset.session === "live-sess-1"; })()`,
		"live-sess-1, recorded by another process, at the top of the list")
	p.screenshot("evidence-live")

	// In the past the list stays as it was then.
	seq := answerSeq(t, f.call(t, "cos_task_board", map[string]any{}))
	p.setValue("#at-input", strconv.Itoa(seq))
	p.click("#at-apply")
	p.wait(bannerJS("seq "+strconv.Itoa(seq)), "the banner")
	f.call(t, "cos_supervise_record_output", map[string]any{"session_id": "live-sess-2", "kind": "discovery", "output": map[string]any{"summary": "plan three"}})
	if p.poll(`document.querySelector('#sessions li[data-session="live-sess-2"]')`, 1500*time.Millisecond) == nil {
		t.Error("a session recorded after the seq shown reached the list while time travel was on")
	}
	p.click("#at-clear")
	p.wait(`(() => { const li = document.querySelector('#sessions li[data-session]'); return !!li && li.dataset.session === "live-sess-2"; })()`,
		"live-sess-2 on top back at now")
	if !evalJS[bool](p, `window.__cosNoReload === 1`) {
		t.Fatal("the page reloaded; want the sessions followed live")
	}
}

// browserMetrics: the metrics view lists what `cos call` processes
// recorded, follows new points live and reads at `at`.
func browserMetrics(t *testing.T, f *browserFixture, browser context.Context) {
	const name = "browser.build_seconds"
	rec := func(v float64) int {
		return answerSeq(t, f.call(t, "cos_metric_record", map[string]any{"name": name, "value": v, "unit": "s", "tags": map[string]string{"os": "linux"}}))
	}
	rec(41)
	second := rec(37.5)
	latestJS := func(v string) string {
		return fmt.Sprintf(`(() => { const m = document.querySelector('#metrics [data-metric=%q] .latest'); return !!m && m.dataset.value === %q; })()`, name, v)
	}
	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/metrics")
	p.wait(latestJS("37.5"), name+" with its latest value 37.5")
	p.wait(fmt.Sprintf(`document.querySelectorAll('#metrics [data-metric=%q] tbody tr').length === 2`, name), "a row per point")
	p.wait(`document.querySelector('a[data-view=metrics]').getAttribute('aria-current') === 'page'`, "the nav link current")
	p.wait(`document.body.dataset.live === "1"`, "the event stream open")
	rec(52)
	p.wait(latestJS("52"), "the point recorded by another process shown live")
	p.screenshot("metrics")

	// A point's seq link: the page as of then.
	p.click(fmt.Sprintf(`#metrics [data-metric=%q] tr[data-seq="%d"] a`, name, second))
	p.wait(bannerJS("seq "+strconv.Itoa(second)), "the banner naming seq "+strconv.Itoa(second))
	p.wait(latestJS("37.5"), name+" at seq "+strconv.Itoa(second)+": 37.5")
	p.screenshot("metrics-time-travel")
	p.click("#at-clear")
	p.wait(latestJS("52"), name+" at now again")

	// On a phone the view does not scroll sideways.
	p.do(chromedp.EmulateViewport(390, 844))
	p.wait(latestJS("52"), name+" at 390×844")
	p.screenshot("metrics-390x844")
	if w := evalJS[int](p, `document.documentElement.scrollWidth - window.innerWidth`); w > 1 {
		t.Errorf("at 390×844 the metrics view is %d px wider than the screen", w)
	}
}
