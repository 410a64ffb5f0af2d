package markdown

import (
	"bytes"
	"strings"
	"testing"
)

// capNesting caps the nesting a line reaches, keeps the line breaks and
// leaves documents without deep nesting alone.
func TestCapNesting(t *testing.T) {
	deep := strings.Repeat("> ", 40)
	src := "# Top\n" + deep + "# Deep [x](ok.md)\n\n" + strings.Repeat(">", 5) + " # Shallow\n"
	got := capNesting([]byte(src), maxNesting)
	if want := strings.Repeat("> ", maxNesting) + "# Deep [x](ok.md)"; !strings.Contains(string(got), want+"\n") {
		t.Fatalf("capped line not %q:\n%s", want, got)
	}
	if bytes.Count(got, []byte("\n")) != strings.Count(src, "\n") {
		t.Fatal("line breaks changed")
	}
	for _, doc := range []string{"# a\n> b\n", "- a\n  - b\n1. x\n-x\n", "**" + strings.Repeat("*", 40)} {
		if same := capNesting([]byte(doc), maxNesting); string(same) != doc {
			t.Errorf("a document without deep nesting changed: %q", same)
		}
	}
	lists := strings.Repeat("1. ", 30) + "x\n"
	if got, want := string(capNesting([]byte(lists), maxNesting)), strings.Repeat("1. ", maxNesting)+"x\n"; got != want {
		t.Errorf("nested lists capped to %q, want %q", got, want)
	}
}

// TestGithubSlug checks GitHub's anchor rules.
func TestGithubSlug(t *testing.T) {
	seen := map[string]int{}
	for _, c := range []struct{ title, want string }{
		{"Hello World", "hello-world"},
		{"Hello World", "hello-world-1"},
		{"Hello World", "hello-world-2"},
		{"API: `Run()` & friends!", "api-run--friends"},
		{"설치 방법", "설치-방법"},
		{"Ünïcödé Straße", "ünïcödé-straße"},
		{"🎉", "section"},
		{"🎉🎉", "section-1"},
		{"snake_case-and-dash", "snake_case-and-dash"},
		{"hello-world-1", "hello-world-1-1"},
		{"日本語", "日本語"},
	} {
		if got := githubSlug(c.title, seen); got != c.want {
			t.Errorf("githubSlug(%q) = %q, want %q", c.title, got, c.want)
		}
	}
}
