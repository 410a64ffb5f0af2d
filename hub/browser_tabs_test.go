package hub_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// hubTabs is how many Hub tabs TestBrowserManyTabsOneProfile opens in one
// browser profile: more than the 6 HTTP/1.1 connections Chromium keeps per
// host and profile, so a page holding a connection of its own for its
// event stream could not load them all.
const hubTabs = 10

// TestBrowserManyTabsOneProfile opens hubTabs board tabs in ONE browser
// profile against a real `cos serve --http`: every tab loads, goes live
// and shows a write another cos process makes; exactly one tab holds the
// event stream (body[data-live-role=leader]), the others follow it. The
// leader tab is then closed: a second write still reaches every other tab,
// a tab opened after it follows the new leader, and no tab's feed shows an
// event twice or skips one.
func TestBrowserManyTabsOneProfile(t *testing.T) {
	f := newBrowserFixture(t)
	browser := newBrowser(t)
	id := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Seen by every tab"})

	tabs := make([]*browserPage, 0, hubTabs)
	for i := range hubTabs {
		p := openTab(t, browser)
		// A tab whose page cannot get a connection never fires its load
		// event: bound the navigation well below the test's timeout.
		ctx, cancel := context.WithTimeout(p.Ctx, browserWait)
		err := chromedp.Do(ctx, chromedp.Navigate(f.Hub.URL+"/#/board"))
		cancel()
		if err != nil {
			t.Fatalf("tab %d of %d in one profile did not load: %v", i+1, hubTabs, err)
		}
		p.waitReady()
		p.wait(inColumnJS(id, "todo"), fmt.Sprintf("tab %d: %s on the board", i+1, id))
		tabs = append(tabs, p)
	}
	for i, p := range tabs {
		p.wait(`document.body.dataset.live === "1"`, fmt.Sprintf("tab %d: the event stream open (body[data-live=1])", i+1))
		_ = evalJS[int](p, `window.__cosNoReload = 1`)
	}
	leader := oneLeader(t, tabs)

	claim := f.call(t, "cos_task_claim", map[string]any{"task_id": id, "assignee": "bob"})
	for i, p := range tabs {
		p.wait(cardTextJS(id, ".holder", "bob"), fmt.Sprintf("tab %d: %s's .holder showing bob, claimed by another process", i+1, id))
	}

	// Close the tab that holds the stream: another takes it over.
	if err := chromedp.Cancel(tabs[leader].Ctx); err != nil {
		t.Fatalf("closing the leader tab (tab %d): %v", leader+1, err)
	}
	rest := append(append([]*browserPage{}, tabs[:leader]...), tabs[leader+1:]...)
	update := f.call(t, "cos_task_update", map[string]any{"task_id": id, "assignee": "bob", "patch": map[string]any{"status": "review"}})
	for i, p := range rest {
		p.wait(inColumnJS(id, "review"), fmt.Sprintf("tab %d of the rest: %s moved to review by another process after the leader tab closed", i+1, id))
	}
	deadline := time.Now().Add(browserWait)
	for oneLeaderOrNone(t, rest) < 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	oneLeader(t, rest)

	// A tab opened after the takeover joins the new leader.
	late := openTab(t, browser)
	late.open(f.Hub.URL + "/#/board")
	late.wait(`document.body.dataset.live === "1"`, "the late tab: the event stream open")
	_ = evalJS[int](late, `window.__cosNoReload = 1`)
	late.wait(inColumnJS(id, "review"), "the late tab: "+id+" in review")
	if role := evalJS[string](late, `document.body.dataset.liveRole`); role != "follower" {
		t.Errorf("the tab opened after the takeover is %q; want follower", role)
	}
	rest = append(rest, late)
	oneLeader(t, rest)

	// Every remaining tab's feed holds both writes, each once, and no
	// seq is missing between its first row and its last.
	want := []int{answerSeq(t, claim), answerSeq(t, update)}
	for i, p := range rest {
		p.wait(fmt.Sprintf(`document.querySelector('#feed li[data-seq="%d"]')`, want[1]), fmt.Sprintf("tab %d: the feed row of seq %d", i+1, want[1]))
		seqs := evalJS[[]int](p, `[...document.querySelectorAll('#feed li[data-seq]')].map(li => Number(li.dataset.seq))`)
		sort.Ints(seqs)
		if i == 0 {
			t.Logf("leader was tab %d; tab 1 of the rest shows %d feed rows, seq %d to %d", leader+1, len(seqs), seqs[0], seqs[len(seqs)-1])
		}
		seen := map[int]bool{}
		for j, s := range seqs {
			if seen[s] {
				t.Errorf("tab %d: the feed shows seq %d twice: %v", i+1, s, seqs)
			}
			seen[s] = true
			if j > 0 && s != seqs[j-1] && s != seqs[j-1]+1 {
				t.Errorf("tab %d: the feed skips from seq %d to %d: %v", i+1, seqs[j-1], s, seqs)
			}
		}
		for _, w := range want {
			if !seen[w] {
				t.Errorf("tab %d: the feed has no row for seq %d: %v", i+1, w, seqs)
			}
		}
		if !evalJS[bool](p, `window.__cosNoReload === 1`) {
			t.Errorf("tab %d reloaded to show the writes; want them applied live", i+1)
		}
	}
}

// oneLeaderOrNone is the index of the one tab holding the event stream
// (body[data-live-role=leader]), -1 when none does; more than one fails
// the test.
func oneLeaderOrNone(t *testing.T, tabs []*browserPage) int {
	t.Helper()
	leader := -1
	for i, p := range tabs {
		if evalJS[string](p, `document.body.dataset.liveRole || ""`) != "leader" {
			continue
		}
		if leader >= 0 {
			t.Fatalf("tabs %d and %d both hold an event stream; want one for the profile", leader+1, i+1)
		}
		leader = i
	}
	return leader
}

// oneLeader is oneLeaderOrNone failing the test when no tab holds the
// stream.
func oneLeader(t *testing.T, tabs []*browserPage) int {
	t.Helper()
	i := oneLeaderOrNone(t, tabs)
	if i < 0 {
		t.Fatalf("none of %d tabs holds the event stream (body[data-live-role=leader])", len(tabs))
	}
	return i
}
