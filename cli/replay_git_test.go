package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
)

// cos replay --until tells which commit the graph was built from at that
// point of the log.
func TestReplay_TellsTheIndexedCommit(t *testing.T) {
	g := testutil.GitRepo(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	state := t.TempDir()
	first := g.Run("rev-parse", "HEAD")
	if code, _, errs := run(t, state, "index", g.Root); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	_, out, _ := run(t, state, "log", "head")
	head := strings.TrimSpace(out)
	if head == "" || head == "0" {
		t.Fatalf("log head %q after an index", out)
	}
	g.Write("main.go", "package main\n\nfunc main() { helper() }\n\nfunc helper() {}\n")
	g.Run("commit", "-q", "-am", "second")
	second := g.Run("rev-parse", "HEAD")
	if code, _, errs := run(t, state, "index", g.Root); code != 0 {
		t.Fatalf("second index: %s", errs)
	}
	for _, c := range []struct {
		until, commit string
	}{{head, first}, {"now", second}} {
		until := c.until
		if until == "now" {
			until = "999999"
		}
		code, out, errs := run(t, state, "replay", "--until", until)
		if code != 0 {
			t.Fatalf("replay --until %s: %d %s", until, code, errs)
		}
		var rep struct {
			Index struct {
				Root   string `json:"root"`
				Commit string `json:"commit"`
				Dirty  bool   `json:"dirty"`
			} `json:"index"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Index.Commit != c.commit || rep.Index.Dirty || rep.Index.Root != g.Root {
			t.Fatalf("replay --until %s: index %+v, want commit %s of %s", until, rep.Index, c.commit, g.Root)
		}
	}
}

// A folder git ignores as a whole indexes no file, and the summary says
// why instead of a bare "0 files seen".
func TestIndex_IgnoredFolderSaysWhy(t *testing.T) {
	g := testutil.GitRepo(t, map[string]string{".gitignore": "scratch/\n", "main.go": "package main\n"})
	g.Write("scratch/a.go", "package scratch\n")
	code, out, errs := run(t, t.TempDir(), "index", g.Root+"/scratch")
	if code != 0 {
		t.Fatalf("index: %d %s", code, errs)
	}
	if !strings.Contains(out, "0 files seen") || !strings.Contains(out, "git keeps no file here") || !strings.Contains(out, g.Root) {
		t.Fatalf("summary %q, want 0 files seen and why", out)
	}
}
