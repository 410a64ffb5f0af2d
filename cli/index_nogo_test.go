package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/internal/cosbin"
)

// Without go on PATH (a GUI client's minimal PATH) the real binary says so:
// in the index summary, in cos_health's warnings and in the completeness
// of a Go answer (go_unavailable), not as "1 load error".
func TestIndex_GoNotOnPATH_RealBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the cos binary")
	}
	bin := os.Getenv("COS_TEST_BIN")
	if bin == "" {
		var err error
		if bin, err = cosbin.Build(t.TempDir()); err != nil {
			t.Fatal(err)
		}
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	path := t.TempDir() // holds git and nothing else: no go
	if err := os.Symlink(git, filepath.Join(path, "git")); err != nil {
		t.Fatal(err)
	}
	root, dir := writeIndexRepo(t), t.TempDir()
	cos := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--state-dir", dir}, args...)...)
		cmd.Env = append(os.Environ(), "PATH="+path)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("cos %v: %v\n%s", args, err, stderr.String())
		}
		return stdout.String()
	}
	if out := cos("index", root); !strings.Contains(out, "1 by syntax (1 go unavailable); go not found on PATH: Go files read by syntax only") {
		t.Errorf("summary %q does not say go is missing", out)
	}
	if out := cos("call", "cos_health", "{}"); !strings.Contains(out, "go not found on PATH: 1 Go files read by syntax only") {
		t.Errorf("cos_health %s does not warn that go is missing", out)
	}
	if out := cos("call", "cos_graph_references", `{"uid":"code:function:main.go::helper"}`); !strings.Contains(out, `"go_unavailable":1`) {
		t.Errorf("references %s: completeness does not name go_unavailable", out)
	}
}
