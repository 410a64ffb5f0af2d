package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog/store"
	"github.com/cos-dev/cos/state"
)

// TestRecovery_SalvageThenRestore is the documented way back from a
// damaged log: cos verify --salvage writes every event that still verifies
// and names the seqs lost, cos restore puts that log in place, and the
// folder then verifies, reads cleanly and takes writes again.
func TestRecovery_SalvageThenRestore(t *testing.T) {
	dir := t.TempDir()
	fiveTasks(t, dir)
	flipMarker(t, dir, "MARKC")
	before, _ := os.ReadFile(filepath.Join(dir, state.LogFile))

	dest := filepath.Join(t.TempDir(), "salvaged.db")
	code, out, errs := run(t, dir, "verify", "--salvage", dest, "--json")
	if code != 0 {
		t.Fatalf("cos verify --salvage = %d: %s", code, errs)
	}
	var rep store.SalvageReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report %q: %v", out, err)
	}
	if len(rep.Lost) != 1 || rep.Lost[0].Seq != 3 || rep.Kept != 4 {
		t.Fatalf("salvage report = %+v; want exactly seq 3 lost, 4 kept", rep)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, state.LogFile)); string(after) != string(before) {
		t.Fatal("cos verify --salvage changed the state folder's log")
	}
	if code, _, errs := run(t, dir, "verify", "--salvage", dest); code == 0 || !strings.Contains(errs, "already exists") {
		t.Fatalf("a second salvage onto the same file = %d %q; want a refusal", code, errs)
	}
	// The text report names the lost seq too.
	code, out, _ = run(t, dir, "verify", "--salvage", filepath.Join(t.TempDir(), "again.db"))
	if code != 0 || !strings.Contains(out, "lost 1: seq 3") {
		t.Fatalf("text report: %d %q", code, out)
	}

	code, out, errs = run(t, dir, "restore", dest)
	if code != 0 || !strings.Contains(out, "restored 4 events") {
		t.Fatalf("cos restore = %d %q %q", code, out, errs)
	}
	kept, _ := filepath.Glob(filepath.Join(dir, state.LogFile+".replaced-*"))
	if len(kept) != 1 {
		t.Fatalf("the damaged log was not kept beside the restored one: %v", kept)
	}
	if old, _ := os.ReadFile(kept[0]); string(old) != string(before) {
		t.Fatal("the kept log differs from the damaged one")
	}
	if code, out, errs := run(t, dir, "verify"); code != 0 || out != "ok 4 events\n" {
		t.Fatalf("cos verify after restore = %d %q %q", code, out, errs)
	}
	board := callEnv(t, dir, "cos_task_board", `{}`)
	if _, ok := board.Data["meta"].(map[string]any)["integrity"]; ok || !board.OK {
		t.Fatalf("board after restore: %+v", board)
	}
	text := fmt.Sprint(board.Data)
	for _, m := range []string{"MARKA", "MARKB", "MARKD", "MARKE"} {
		if !strings.Contains(text, m) {
			t.Errorf("board after restore lacks %s", m)
		}
	}
	w := callEnv(t, dir, "cos_task_create", `{"title":"after restore"}`)
	if !w.OK {
		t.Fatalf("write after restore: %+v", w.Error)
	}
	if id := w.Data["task"].(map[string]any)["task_id"]; id != "TASK-006" {
		t.Errorf("new task id = %v; want TASK-006 (allocated ids are never reused)", id)
	}
}

// startServe starts `cos serve --nats off` on dir as a real process and
// waits until it answers on stdio; the process is killed at cleanup.
func startServe(t *testing.T, dir string) int {
	t.Helper()
	cmd := cosProcess(t, "--state-dir", dir, "serve", "--nats", "off", "--index=false")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = in.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	got := make(chan bool, 1)
	go func() { got <- bufio.NewScanner(out).Scan() }()
	select {
	case ok := <-got:
		if !ok {
			t.Fatal("cos serve ended before answering")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("cos serve did not answer initialize")
	}
	return cmd.Process.Pid
}

// TestRestore_RefusesWhileAServerRuns: cos restore changes nothing while a
// cos serve holds the folder, and names that process.
func TestRestore_RefusesWhileAServerRuns(t *testing.T) {
	dir := t.TempDir()
	fiveTasks(t, dir)
	backup := filepath.Join(t.TempDir(), "b.db")
	if code, _, errs := run(t, dir, "backup", backup); code != 0 {
		t.Fatal(errs)
	}
	pid := startServe(t, dir)
	before, _ := os.ReadFile(filepath.Join(dir, state.LogFile))
	code, _, errs := run(t, dir, "restore", backup)
	if code == 0 {
		t.Fatal("cos restore succeeded while cos serve ran")
	}
	if !strings.Contains(errs, "process "+strconv.Itoa(pid)) || !strings.Contains(errs, "nothing restored") {
		t.Errorf("refusal does not name the server (pid %d): %s", pid, errs)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, state.LogFile)); string(after) != string(before) {
		t.Fatal("a refused restore changed the log")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.replaced-*")); len(m) != 0 {
		t.Fatalf("a refused restore moved files: %v", m)
	}
}

// TestRestore_RefusesALogThatDoesNotVerify: a damaged file is never put in
// place.
func TestRestore_RefusesALogThatDoesNotVerify(t *testing.T) {
	src := t.TempDir()
	fiveTasks(t, src)
	flipMarker(t, src, "MARKB")
	dir := t.TempDir()
	code, _, errs := run(t, dir, "restore", filepath.Join(src, state.LogFile))
	if code == 0 || !strings.Contains(errs, "seq 2") {
		t.Fatalf("restore of a damaged log = %d %q; want a refusal naming seq 2", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, state.LogFile)); err == nil {
		t.Fatal("a refused restore wrote a log")
	}
}

// TestBackup_WhileAnotherProcessWrites: backups taken while another cos
// process appends all verify, and each holds a prefix of the final log.
func TestBackup_WhileAnotherProcessWrites(t *testing.T) {
	dir := t.TempDir()
	fiveTasks(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			cmd := cosProcess(t, "--state-dir", dir, "log", "append", "--stream", "s", "--type", "a.b", "--data", fmt.Sprintf(`{"n":%d}`, i))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("append during backup: %v %s", err, out)
				return
			}
		}
	}()
	dest := t.TempDir()
	var seqs []uint64
	// At least five backups, and on until the other process's appends
	// show (a loaded machine can take seconds to start it).
	deadline := time.Now().Add(60 * time.Second)
	for len(seqs) < 5 || (seqs[len(seqs)-1] <= seqs[0] && time.Now().Before(deadline)) {
		code, out, errs := run(t, dir, "backup", dest, "--json")
		if code != 0 {
			t.Fatal(errs)
		}
		var r struct {
			Dest string               `json:"dest"`
			Head struct{ Seq uint64 } `json:"head"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		n, err := store.VerifyFile(context.Background(), r.Dest)
		if err != nil || n != r.Head.Seq {
			t.Fatalf("backup %s: Verify = %d, %v; head %d", r.Dest, n, err, r.Head.Seq)
		}
		seqs = append(seqs, n)
		time.Sleep(100 * time.Millisecond) // let the other process append
	}
	cancel()
	wg.Wait()
	t.Logf("backup heads while another process appended: %v", seqs)
	if seqs[len(seqs)-1] <= seqs[0] {
		t.Errorf("the log did not grow during the backups: %v", seqs)
	}
}

// TestRestore_SaysWhatTheOlderLogLacks: restoring a backup older than what
// the folder has seen clears the seen mark (restoring is the way to accept
// that log) and says which seqs are no longer in the log.
func TestRestore_SaysWhatTheOlderLogLacks(t *testing.T) {
	dir := t.TempDir()
	appendArgs := []string{"log", "append", "--stream", "s", "--type", "test.added", "--data", `{"n":1}`}
	if code, _, errs := run(t, dir, appendArgs...); code != 0 {
		t.Fatal(errs)
	}
	backup := filepath.Join(t.TempDir(), "b.db")
	if code, _, errs := run(t, dir, "backup", backup); code != 0 {
		t.Fatal(errs)
	}
	for range 3 {
		if code, _, errs := run(t, dir, appendArgs...); code != 0 {
			t.Fatal(errs)
		}
	}
	code, out, errs := run(t, dir, "restore", backup)
	if code != 0 || !strings.Contains(out, "seen its log up to seq 4") || !strings.Contains(out, "after seq 1") {
		t.Errorf("restore of an older backup = exit %d, %q %q; want it to say the folder had seen seq 4 and the log ends at 1", code, out, errs)
	}
	if code, _, errs := run(t, dir, appendArgs...); code != 0 {
		t.Errorf("append after the restore = exit %d, %q; the restored log is accepted", code, errs)
	}
	// The mark restarted from the restored log: it now names seq 2.
	if code, out, _ := run(t, dir, "restore", backup); code != 0 || !strings.Contains(out, "seen its log up to seq 2") {
		t.Errorf("second restore = exit %d, %q; want it to say the folder had seen seq 2", code, out)
	}
}
