package hub_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// coordMarkJS is the text of task id's coordination mark and its title,
// "" when the card has none.
func coordMarkJS(id string) string {
	return fmt.Sprintf(`(() => { const e = document.querySelector('[data-task-id=%q] .coord'); return e ? e.textContent + ' | ' + e.title : ''; })()`, id)
}

// browserCoordMark: two tasks touching the same file are each marked with
// one overlap naming the other; the mark survives a claim from the page
// (the write's answer), and a third task created by another process shows
// up live with two overlaps; a task without touches has no mark.
func browserCoordMark(t *testing.T, f *browserFixture, browser context.Context) {
	a := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Record headers", "touches": []string{"recorder.go"}})
	b := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Record trailers", "touches": []string{"recorder.go"}})
	plain := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "No code named"})

	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/board")
	p.wait(inColumnJS(plain, "todo"), plain+" on the board")
	p.wait(cardTextJS(a, ".coord", "⚠ 1 overlap"), a+"'s mark of one overlap")
	if got := evalJS[string](p, coordMarkJS(a)); !strings.Contains(got, "Overlaps "+b) {
		t.Errorf("%s's mark %q does not name %s in its title", a, got, b)
	}
	p.wait(cardTextJS(b, ".coord", "⚠ 1 overlap"), b+"'s mark of one overlap")
	if got := evalJS[string](p, coordMarkJS(plain)); got != "" {
		t.Errorf("%s (no touches) is marked: %q", plain, got)
	}
	p.screenshot("board-coord")

	p.setValue("#assignee-input", "carol")
	p.click(fmt.Sprintf(`[data-task-id=%q] button[data-action=claim]`, a))
	p.wait(cardTextJS(a, ".holder", "carol"), a+" claimed from the page")
	if got := evalJS[string](p, coordMarkJS(a)); !strings.Contains(got, "⚠ 1 overlap") {
		t.Errorf("%s's mark after the claim: %q", a, got)
	}

	p.wait(`document.body.dataset.live === "1"`, "the event stream open")
	c := binCreateTask(t, f.Bin, f.State, map[string]any{"title": "Record bodies", "touches": []string{"recorder.go"}})
	p.wait(cardTextJS(c, ".coord", "⚠ 2 overlaps"), c+", created by another process, marked with two overlaps")
	// The cards it overlaps are marked again without a reload.
	p.wait(cardTextJS(a, ".coord", "⚠ 2 overlaps"), a+"'s mark, now of two overlaps, after "+c+" was created elsewhere")
	p.wait(cardTextJS(b, ".coord", "⚠ 2 overlaps"), b+"'s mark, now of two overlaps, after "+c+" was created elsewhere")

	// An index by another process changes a function of the claimed
	// task's footprint: its card counts the change without a reload.
	src := filepath.Join(f.Root, "recorder.go")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	const flush = "func (rw *ResponseRecorder) Flush() {\n"
	edited := strings.Replace(string(data), flush, flush+"\t_ = rw.wroteHeader\n", 1)
	if edited == string(data) {
		t.Fatalf("recorder.go has no %q", flush)
	}
	if err := os.WriteFile(src, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	binIndex(t, f.Bin, f.State, f.Root)
	p.wait(cardTextJS(a, ".coord", "1 change"), a+"'s mark counting the change an index made under it")
	if got := evalJS[string](p, coordMarkJS(plain)); got != "" {
		t.Errorf("%s (no touches) is marked after the index: %q", plain, got)
	}
}
