package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/internal/cosbin"
	"github.com/cos-dev/cos/state"
)

// TestTruncatedLog_RealBinary: a truncated events.db is a clear E_STORAGE
// error naming the file and the way back from every command — never a
// bbolt panic or a fault (exit 2 and a stack trace). It runs the real
// binary, since a fault would kill the test process.
func TestTruncatedLog_RealBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the cos binary")
	}
	// COS_TEST_BIN runs another build (an older one, to see the test
	// fail) instead of building this tree's.
	bin := os.Getenv("COS_TEST_BIN")
	if bin == "" {
		var err error
		if bin, err = cosbin.Build(t.TempDir()); err != nil {
			t.Fatal(err)
		}
	}
	src := t.TempDir()
	ctx := context.Background()
	l, err := state.OpenLog(ctx, src, state.LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 400 {
		req := eventlog.AppendRequest{StreamPrefix: "task:TASK-", Events: []eventlog.Payload{{Type: "task.created",
			Data: []byte(fmt.Sprintf(`{"title":"t%d %s"}`, i, strings.Repeat("x", 200)))}}}
		if _, err := state.AppendOne(ctx, l, req); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(src, state.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []struct {
		name string
		size int
	}{{"10pct", len(raw) / 10}, {"50pct", len(raw) / 2}, {"midpage", len(raw)/2 + 2048 + 5}, {"onepage", 4096 + 10}} {
		t.Run(cut.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, state.LogFile)
			if err := os.WriteFile(db, raw[:cut.size], 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"verify"},
				{"log", "head"},
				{"call", "cos_health", "{}"},
				{"call", "cos_task_create", `{"title":"x"}`},
			} {
				cmd := exec.Command(bin, append([]string{"--state-dir", dir}, args...)...)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				code := cmd.ProcessState.ExitCode()
				out := stdout.String() + stderr.String()
				if code != 1 || strings.Contains(out, "goroutine ") || strings.Contains(out, "panic") {
					t.Fatalf("cos %v: exit %d (err %v), want 1 and no panic:\n%.2000s", args, code, err, out)
				}
				for _, want := range []string{"E_STORAGE", db, "truncated or damaged", "cos verify --salvage", "cos restore"} {
					if !strings.Contains(out, want) {
						t.Errorf("cos %v: output lacks %q:\n%s", args, want, out)
					}
				}
			}
			// The way back the message names works on what is left.
			cmd := exec.Command(bin, "--state-dir", dir, "verify", "--salvage", filepath.Join(t.TempDir(), "new.db"))
			out, _ := cmd.CombinedOutput()
			if strings.Contains(string(out), "goroutine ") {
				t.Fatalf("cos verify --salvage panicked:\n%s", out)
			}
			t.Logf("salvage: %s", bytes.SplitN(out, []byte("\n"), 2)[0])
		})
	}
}

// TestIntegrity_DamageBelowSnapshotRefusesWrites: 115 events, a snapshot
// at 115, a byte flipped in seq 98: cos verify names it, a write tool
// fails E_INTEGRITY (before the fix it succeeded at seq 116), a read
// answers.
func TestIntegrity_DamageBelowSnapshotRefusesWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := state.Open(ctx, state.Options{Dir: dir, NATS: "off", NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 115; i++ {
		data := fmt.Sprintf(`{"n":%d}`, i)
		if i == 98 {
			data = `{"n":"MARKER98"}`
		}
		if _, err := s.Append(ctx, eventlog.AppendRequest{Stream: "s", Events: []eventlog.Payload{{Type: "test.added", Data: []byte(data)}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Read(ctx, func(state.View) {}); err != nil {
		t.Fatal(err)
	}
	if pos, err := s.Snapshot(ctx); err != nil || pos.Seq != 115 {
		t.Fatalf("Snapshot = %v, %v", pos, err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	flipMarker(t, dir, "MARKER98")

	if code, _, errs := run(t, dir, "verify"); code != ExitError || !strings.Contains(errs, "seq 98") {
		t.Fatalf("cos verify = %d %q; want exit 1 naming seq 98", code, errs)
	}
	w := callEnv(t, dir, "cos_task_create", `{"title":"x"}`)
	if w.OK || w.Error.Code != "E_INTEGRITY" {
		t.Fatalf("write on a log damaged below its snapshot = %+v, want E_INTEGRITY", w)
	}
	r := callEnv(t, dir, "cos_task_board", `{}`)
	if !r.OK {
		t.Fatalf("read on a damaged log: %+v", r.Error)
	}
	// meta.integrity names seq 98 once the background walk of the chain
	// has finished (state's TestState_DamageBelowSnapshotRefusesWrites);
	// a read does not wait for it, so a one-shot call may answer first.
	if got, ok := r.Data["meta"].(map[string]any)["integrity"]; ok {
		if want := map[string]any{"ok": false, "first_bad_seq": 98.0, "events_after": 17.0}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("meta.integrity = %v, want %v", got, want)
		}
	}
}

// TestLogAppend_RefusesWhatOtherWritesRefuse: `cos log append` writes
// straight to the log, and still makes the checks every other write makes:
// a log shorter than the state folder has seen (its events.db replaced by
// another's) and a log whose chain is broken are refused with E_INTEGRITY,
// and nothing is appended. Fails when log append opens the log and writes.
func TestLogAppend_RefusesWhatOtherWritesRefuse(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	appendArgs := []string{"log", "append", "--stream", "s", "--type", "test.added", "--data", `{"n":"MARKER1"}`}
	for _, d := range []string{dir, dir, dir, other} {
		if code, _, errs := run(t, d, appendArgs...); code != 0 {
			t.Fatalf("append: %s", errs)
		}
	}
	b, err := os.ReadFile(filepath.Join(other, state.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(filepath.Join(dir, state.LogFile+".head"))
	if err := os.WriteFile(filepath.Join(dir, state.LogFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, dir, appendArgs...); code != ExitError || !strings.Contains(errs, "E_INTEGRITY") {
		t.Errorf("log append onto a log shorter than seen = exit %d, %q; want exit 1 with E_INTEGRITY", code, errs)
	}
	if _, out, _ := run(t, dir, "log", "head"); strings.TrimSpace(out) != "1" {
		t.Errorf("head after the refused append = %q; want 1", out)
	}

	// A broken chain below the head: the first event's data changed in
	// place, the second (the head) intact.
	if code, _, errs := run(t, other, "log", "append", "--stream", "s", "--type", "test.added", "--data", `{"n":2}`); code != 0 {
		t.Fatalf("append: %s", errs)
	}
	flipMarker(t, other, "MARKER1")
	if code, _, errs := run(t, other, appendArgs...); code != ExitError || !strings.Contains(errs, "E_INTEGRITY") {
		t.Errorf("log append onto a broken chain = exit %d, %q; want exit 1 with E_INTEGRITY", code, errs)
	}
}

// A log file that verifies by itself but holds less than the state folder
// has seen (an older copy put back by hand) is not "ok" to cos verify.
func TestVerify_OlderLogThanSeenIsNotOK(t *testing.T) {
	dir := t.TempDir()
	appendArgs := []string{"log", "append", "--stream", "s", "--type", "test.added", "--data", `{"n":1}`}
	if code, _, errs := run(t, dir, appendArgs...); code != 0 {
		t.Fatalf("append: %s", errs)
	}
	older, err := os.ReadFile(filepath.Join(dir, state.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if code, _, errs := run(t, dir, appendArgs...); code != 0 {
			t.Fatalf("append: %s", errs)
		}
	}
	if code, out, errs := run(t, dir, "verify"); code != 0 || strings.TrimSpace(out) != "ok 3 events" {
		t.Fatalf("verify before = exit %d, %q %q; want ok 3 events", code, out, errs)
	}
	// The head hint is left as it was: it names seq 3, which the older
	// file does not hold.
	if err := os.WriteFile(filepath.Join(dir, state.LogFile), older, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := run(t, dir, "log", "head"); code != 0 || strings.TrimSpace(out) != "1" {
		t.Errorf("log head of the older file = exit %d, %q %q; want 1 (the head hint names seq 3)", code, out, errs)
	}
	code, out, errs := run(t, dir, "verify")
	if code != ExitError || out != "" || !strings.Contains(errs, "E_INTEGRITY") || !strings.Contains(errs, "seq 3") {
		t.Errorf("verify of an older log than seen = exit %d, out %q, err %q; want exit 1, E_INTEGRITY naming seq 3", code, out, errs)
	}
	t.Logf("%s", errs)
}
