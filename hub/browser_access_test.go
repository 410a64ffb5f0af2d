package hub_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browserLogout: behind a token, the header offers Log out; it ends the
// session on the server (the cookie no longer opens the API) and the page
// asks for the token again; the token signs in again.
func browserLogout(t *testing.T, f *browserFixture, browser context.Context) {
	const token = "browser-logout-s3cret"
	dir := t.TempDir()
	id := binCreateTask(t, f.Bin, dir, map[string]any{"title": "Behind a token, logged out"})
	h := startCosHub(t, f.Bin, dir, f.Root, "--token", token)
	p := openTab(t, browser, chromedp.WithNewBrowserContext())
	p.allow("status of 401")
	p.do(chromedp.Navigate(h.URL + "/#/board"))
	p.wait(`document.querySelector('#token-dialog').open`, "the token dialog")
	p.setValue("#token-input", token)
	p.click("#token-submit")
	p.waitReady()
	p.wait(inColumnJS(id, "todo"), id+" on the board once the token is given")
	p.wait(`!document.querySelector('#logout').hidden`, "the Log out button")
	p.screenshot("access-logged-in")
	p.click("#logout")
	// The page reloads: a poll running across the navigation fails, so
	// poll again on the new document.
	var err error
	for range 5 {
		if err = p.poll(`document.querySelector('#token-dialog') && document.querySelector('#token-dialog').open`, 5*time.Second); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("the token dialog after logging out: %v\n%s", err, p.dump())
	}
	p.screenshot("access-logged-out")
	// The cookie the browser may still send opens nothing.
	p.do(chromedp.Evaluate[chromedp.Void](`fetch('/api/health', {credentials: 'same-origin'}).then(r => { window.__afterLogout = r.status; })`))
	p.wait(`window.__afterLogout === 401`, "GET /api/health answered 401 after logout")
	p.setValue("#token-input", token)
	p.click("#token-submit")
	p.wait(inColumnJS(id, "todo"), id+" on the board after signing in again")
}

// browserBidiTitle: a title with a bidi override is refused when written
// from the page, and the page's shared helper shows any such character an
// older event holds as a visible marker, in an isolated element.
func browserBidiTitle(t *testing.T, f *browserFixture, browser context.Context) {
	id := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Plain title beside a bidi one"})
	p := openTab(t, browser)
	p.allow("status of 400")
	p.open(f.Hub.URL + "/#/board")
	p.wait(inColumnJS(id, "todo"), id+" on the board")
	p.do(chromedp.Evaluate[chromedp.Void](`(async () => {
		const m = await import('./api.js');
		window.__shown = m.visible('invoice\u202Etxt.exe\u0007');
		try {
			await m.api('tasks', {method: 'POST', body: {title: 'fix \u202Etxt.exe'}});
			window.__refused = 'accepted';
		} catch (e) {
			window.__refused = e.code + ' ' + e.status;
			window.__refusedMsg = e.message;
		}
	})()`))
	p.wait(`window.__shown === 'invoice⟨U+202E⟩txt.exe⟨U+0007⟩'`, "visible() marks the override and the bell")
	p.wait(`window.__refused === 'E_ARGUMENT 400'`, "a bidi title refused with E_ARGUMENT")
	iso := evalJS[string](p, `getComputedStyle(document.querySelector('[data-task-id="`+id+`"] .title')).unicodeBidi`)
	if iso != "isolate" {
		t.Fatalf("a card title's unicode-bidi is %q, want isolate", iso)
	}
	// The refusal quotes the title with the override escaped, not raw.
	if msg := evalJS[string](p, `window.__refusedMsg`); strings.ContainsRune(msg, '\u202e') || !strings.Contains(msg, `\u202e`) {
		t.Errorf("the refusal's message %q holds the override raw, or not escaped", msg)
	}
	// A claim and a label written before names were checked (an event
	// appended as is) show their bidi characters marked on the card.
	other := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Held under an odd name"})
	for _, ev := range []struct{ typ, data string }{
		{"task.claimed", `{"assignee": "mal\u202elory"}`},
		{"task.updated", `{"patch": {"labels": ["lab\u2066el"]}}`},
	} {
		cmd := exec.Command(f.Bin, "log", "append", "--state-dir", f.State, "--stream", "task:"+other, "--type", ev.typ, "--data", ev.data)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("cos log append %s: %v\n%s", ev.typ, err, out)
		}
	}
	p.open(f.Hub.URL + "/#/board")
	p.wait(cardTextJS(other, ".holder", "mal⟨U+202E⟩lory"), other+"'s holder with the override marked")
	p.wait(cardTextJS(other, ".labels", "lab⟨U+2066⟩el"), other+"'s label with the isolate marked")
	// Claiming under such a name now is refused.
	env, raw := binCallRaw(t, f.Bin, f.State, "cos_task_claim", map[string]any{"task_id": id, "assignee": "eve\u202e"})
	if env.OK || !strings.Contains(string(raw), "U+202E") {
		t.Fatalf("claim as a name with U+202E: %s, want refused naming U+202E", raw)
	}
}
