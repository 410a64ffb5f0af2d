package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
)

// changesGitRepo is a git repository with a function, its caller and its
// test, indexed into a state folder.
func changesGitRepo(t *testing.T) (*testutil.Git, string) {
	t.Helper()
	g := testutil.GitRepo(t, map[string]string{
		"calc.py":      "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
		"app.py":       "from calc import add\n\n\ndef total(xs):\n    return add(xs[0], xs[1])\n",
		"test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
	})
	t.Setenv("HOME", g.Home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	if code, _, errs := run(t, dir, "index", g.Root); code != 0 {
		t.Fatalf("cos index: %d %s", code, errs)
	}
	return g, dir
}

func TestChanges_Text(t *testing.T) {
	g, dir := changesGitRepo(t)
	g.Write("calc.py", "def add(a, b):\n    return b + a\n\n\ndef sub(a, b):\n    return a - b\n")
	code, out, errs := run(t, dir, "changes")
	if code != 0 {
		t.Fatalf("cos changes: exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		"Changes against HEAD", "modified calc.py",
		"modified function add  calc.py:1-2  exported",
		"depth 1 (2):", "total  app.py:4  (calls)", "test_add  test_calc.py:4",
		"Tests (1):", "Tests to run: 1 of 1 tests reach the change", "  pytest test_calc.py\n", "Risk: ",
	} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "sub") {
		t.Errorf("sub did not change but is listed:\n%s", out)
	}
}

func TestChanges_Tests(t *testing.T) {
	g, dir := changesGitRepo(t)
	g.Write("calc.py", "def add(a, b):\n    return b + a\n\n\ndef sub(a, b):\n    return a - b\n")
	code, out, errs := run(t, dir, "changes", "--tests")
	if code != 0 {
		t.Fatalf("cos changes --tests: exit %d\n%s%s", code, out, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "# 1 of 1 tests reach the change") || lines[1] != "pytest test_calc.py" {
		t.Errorf("cos changes --tests:\n%s\nwant the count as a comment, then pytest test_calc.py", out)
	}
	// sub changes: no test reaches it.
	g.Write("calc.py", "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return -b + a\n")
	if code, out, errs := run(t, dir, "changes", "--tests"); code != 0 || !strings.HasPrefix(out, "# 0 of 1 tests reach the change") ||
		strings.Count(out, "\n") != 1 {
		t.Errorf("sub changed: exit %d\n%s%s\nwant only the comment: no test reaches it", code, out, errs)
	}
}

func TestChanges_JSON(t *testing.T) {
	g, dir := changesGitRepo(t)
	g.Write("calc.py", "def add(a, b):\n    return a + b\n")
	code, out, errs := run(t, dir, "changes", "--json", "--depth", "1")
	if code != 0 {
		t.Fatalf("cos changes --json: exit %d %s", code, errs)
	}
	var env testutil.Envelope
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatalf("not an envelope: %v\n%s", err, out)
	}
	changed, _ := env.Data["changed"].([]any)
	if !env.OK || len(changed) != 1 || changed[0].(map[string]any)["change"] != "removed" {
		t.Errorf("changed = %v, want sub removed", env.Data["changed"])
	}
}

func TestChanges_Refusals(t *testing.T) {
	_, dir := changesGitRepo(t)
	// A revision that names nothing: the tool's E_ARGUMENT, exit 1, on stderr.
	code, out, errs := run(t, dir, "changes", "--base", "no-such-branch")
	if code != ExitError || !strings.Contains(errs, "E_ARGUMENT") || !strings.Contains(errs, "no-such-branch") || out != "" {
		t.Errorf("bad revision: exit %d, stdout %q, stderr %q; want 1 and E_ARGUMENT naming it", code, out, errs)
	}
	// Wrong command lines are usage errors before anything opens.
	for _, args := range [][]string{{"changes", "--depth", "0"}, {"changes", "--depth", "9"}, {"changes", "--base", " "}, {"changes", "extra"}} {
		if code, _, errs := run(t, dir, args...); code != ExitUsage {
			t.Errorf("%v: exit %d (%s), want 2", args, code, errs)
		}
	}
}

func TestChanges_OutsideGitProcess(t *testing.T) {
	t.Setenv("GIT_CEILING_DIRECTORIES", os.TempDir())
	root := testutil.WriteTree(t, map[string]string{"a.py": "def a():\n    return 1\n"})
	dir := t.TempDir()
	if code, _, errs := run(t, dir, "index", root); code != 0 {
		t.Fatalf("cos index: %d %s", code, errs)
	}
	cmd := cosProcess(t, "--state-dir", dir, "changes")
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != ExitError || !strings.Contains(string(out), "not inside a git work tree") {
		t.Errorf("cos changes outside git: %v\n%s; want exit 1 saying so", err, out)
	}
	cmd = cosProcess(t, "--state-dir", dir, "changes", "--base", "index")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "Nothing changed.") {
		t.Errorf("cos changes --base index outside git: %v\n%s; want nothing changed", err, out)
	}
}

// TestChanges_Tests_LongCommand: a selection too long to name test by test
// becomes a command that runs its files whole, printed whole by --tests,
// never cut to "…[truncated]" (a shell would run that line, and skip the
// tests).
func TestChanges_Tests_LongCommand(t *testing.T) {
	var tests strings.Builder
	tests.WriteString("from calc import add, sub\n\n\ndef test_sub():\n    assert sub(2, 1) == 1\n")
	const n = 800
	for i := range n {
		fmt.Fprintf(&tests, "\n\ndef test_add_with_a_rather_long_name_%03d():\n    assert add(1, %d) == %d\n", i, i, i+1)
	}
	g := testutil.GitRepo(t, map[string]string{
		"calc.py":      "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
		"test_calc.py": tests.String(),
	})
	t.Setenv("HOME", g.Home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	if code, _, errs := run(t, dir, "index", g.Root); code != 0 {
		t.Fatalf("cos index: %d %s", code, errs)
	}
	g.Write("calc.py", "def add(a, b):\n    return b + a\n\n\ndef sub(a, b):\n    return a - b\n")
	code, out, errs := run(t, dir, "changes", "--tests")
	if code != 0 {
		t.Fatalf("cos changes --tests: exit %d\n%s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], fmt.Sprintf("# %d of %d tests reach the change", n, n+1)) {
		t.Fatalf("cos changes --tests: %.300s\nwant the count, then one command", out)
	}
	// 800 node ids are longer than a command is let grow: the file that
	// holds them runs instead, whole.
	if cmd := lines[1]; cmd != "pytest test_calc.py" {
		t.Errorf("command (%d bytes): %.300s; want pytest test_calc.py", len(cmd), cmd)
	}
}
