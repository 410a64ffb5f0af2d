package search

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// envChildDir makes the test binary act as a child process holding an index
// (see runChild); the multi-process tests re-execute themselves with it.
const envChildDir = "COS_SEARCH_TEST_CHILD_DIR"

// runChild opens an index under dir, applies the fixture at seq 100+slot,
// prints "slot N", and holds the slot until stdin closes.
func runChild(dir string) int {
	ctx := context.Background()
	ix, err := OpenIndex(ctx, Options{Dir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	if err := ix.Apply(ctx, indexFixture, nil, uint64(100+ix.Slot())); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	fmt.Printf("slot %d\n", ix.Slot()) // the test's protocol on the child's stdout
	_, _ = io.Copy(io.Discard, os.Stdin)
	if err := ix.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	slot  int
}

// startChild re-executes the test binary as a child holding a slot under
// dir and waits until it reports the slot.
func startChild(t *testing.T, dir string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChildDir+"="+dir)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin}
	t.Cleanup(func() {
		_ = c.stdin.Close()
		_ = c.cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("child reported nothing: %v", err)
	}
	if _, err := fmt.Sscanf(strings.TrimSpace(line), "slot %d", &c.slot); err != nil {
		t.Fatalf("child said %q: %v", line, err)
	}
	return c
}

func TestIndex_Processes_DifferentSlots(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := filepath.Join(t.TempDir(), "search")
	a := startChild(t, dir)
	b := startChild(t, dir)
	if a.slot == b.slot {
		t.Fatalf("two processes hold slot %d", a.slot)
	}
	// A third opener, in this process, takes neither.
	ix := openTestIndex(t, dir)
	if ix.Slot() == a.slot || ix.Slot() == b.slot {
		t.Errorf("this process got slot %d, held by a child", ix.Slot())
	}
}

func TestIndex_Processes_CrashedSlotReused(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := filepath.Join(t.TempDir(), "search")
	a := startChild(t, dir)
	// The child dies without closing anything: the kernel drops its lock.
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = a.cmd.Wait()

	ix := openTestIndex(t, dir)
	if ix.Slot() != a.slot {
		t.Fatalf("reopened slot %d, want the dead child's %d", ix.Slot(), a.slot)
	}
	if want := uint64(100 + a.slot); ix.Checkpoint() != want {
		t.Errorf("Checkpoint = %d, want the child's %d", ix.Checkpoint(), want)
	}
	if n, _ := ix.docCount(); n != uint64(len(indexFixture)) {
		t.Errorf("docCount = %d, want %d", n, len(indexFixture))
	}
}
