package extract

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/extract/lang"

	"github.com/cos-dev/cos/graph"
)

// quoteBomb is n nested blockquote markers on one line (a '>' each).
func quoteBomb(n int) []byte { return bytes.Repeat([]byte(">"), n) }

// Nested ordered lists and lists in quotes are capped the same way.
func TestMarkdown_NestedListsLinear(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "lists.md", []byte(strings.Repeat("1. ", 100_000)))
	writeFile(t, root, "mixed.md", []byte(strings.Repeat("> - ", 100_000)))
	start := time.Now()
	res := index(t, root, Options{FileTimeout: 10 * time.Minute}, nil)
	if d := time.Since(start); d > 10*time.Second || len(res.Payloads) != 2 {
		t.Fatalf("nested lists: %d files in %v", len(res.Payloads), d)
	}
}

// Deeply nested blockquotes extract in time linear in the file: 400 KB of
// '>' took 77 s when the nesting reached the parser, and takes milliseconds
// with the nesting capped. The bound is far above the linear figure and far
// below the quadratic one.
func TestMarkdown_NestedBlockquotesLinear(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "bomb.md", quoteBomb(400_000))
	writeFile(t, root, "ok.md", []byte("# Title\n\nSee [bomb](bomb.md).\n"))
	start := time.Now()
	res := index(t, root, Options{FileTimeout: 10 * time.Minute}, nil)
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("400 KB of nested blockquotes took %v to index", d)
	}
	if _, ok := res.Payloads["bomb.md"]; !ok || res.Stats.FilesSkipped != 0 {
		t.Fatalf("bomb.md not extracted: %+v", res.Stats.Skipped)
	}
}

// The cap keeps headings and links at any depth, and line numbers, through
// a whole run (the cap itself: TestCapNesting of package markdown).
func TestMarkdown_CapNestingKeepsHeadingsAndLinks(t *testing.T) {
	deep := strings.Repeat("> ", 40)
	src := "# Top\n" + deep + "# Deep [x](ok.md)\n\n" + strings.Repeat(">", 5) + " # Shallow\n"
	root := t.TempDir()
	writeFile(t, root, "doc.md", []byte(src))
	writeFile(t, root, "ok.md", []byte("# ok\n"))
	pl := index(t, root, Options{}, nil).Payloads["doc.md"]
	lines := map[string]int{}
	for _, n := range pl.Nodes {
		if n.Kind == graph.KindHeading {
			lines[n.Label] = n.Line
		}
	}
	if lines["Top"] != 1 || lines["Deep x"] != 2 || lines["Shallow"] != 4 {
		t.Fatalf("headings and lines: %v", lines)
	}
	if !hasEdge(pl, "doc:file:doc.md", "doc:file:ok.md") {
		t.Fatal("the link inside the deep quote is lost")
	}
}

// A file whose extraction runs past Options.FileTimeout is recorded as
// skipped with reason timeout; the other files are extracted.
func TestRun_FileTimeout(t *testing.T) {
	root := t.TempDir()
	var b strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&b, "def f%d(x):\n    return f%d(x) + g(x)\n\n", i, max(i-1, 0))
	}
	writeFile(t, root, "slow.py", []byte(b.String()))
	writeFile(t, root, "fast.md", []byte("# Fast\n"))
	res := index(t, root, Options{FileTimeout: time.Millisecond}, nil)
	if _, ok := res.Payloads["slow.py"]; ok {
		t.Fatal("slow.py emitted past its time limit")
	}
	// fast.md is tiny, but on a loaded machine even it may pass 1 ms: it
	// must then be reported with slow.py, not lost.
	want := []FileNote{{Path: "slow.py", Reason: SkipTimeout}}
	if _, ok := res.Payloads["fast.md"]; !ok {
		want = []FileNote{{Path: "fast.md", Reason: SkipTimeout}, {Path: "slow.py", Reason: SkipTimeout}}
	}
	got := slices.Clone(res.Stats.Skipped)
	slices.SortFunc(got, func(a, b FileNote) int { return strings.Compare(a.Path, b.Path) })
	if !slices.Equal(got, want) || res.Stats.FilesSkipped != len(want) {
		t.Fatalf("skipped %d %+v, want %+v", res.Stats.FilesSkipped, res.Stats.Skipped, want)
	}
	if err := (Options{FileTimeout: -time.Second}).Validate(); !errors.Is(err, ErrOptions) {
		t.Fatalf("negative FileTimeout: %v, want ErrOptions", err)
	}
}

// BenchmarkMarkdown_NestedBlockquotes measures extraction of n nested
// blockquote markers; time per byte stays flat as n grows.
func BenchmarkMarkdown_NestedBlockquotes(b *testing.B) {
	for _, n := range []int{100_000, 400_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			data := quoteBomb(n)
			e := &lang.Env{Files: map[string]bool{}}
			b.SetBytes(int64(n))
			for b.Loop() {
				extractFile("bomb.md", data, "", e)
			}
		})
	}
}
