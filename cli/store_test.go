package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/state"
)

// TestStoreFlag_BadValueRefused: a --store (or COS_STORE) that is neither
// a nats:// address nor a file is a usage error naming the accepted forms,
// and nothing is written.
func TestStoreFlag_BadValueRefused(t *testing.T) {
	dir := t.TempDir()
	for _, store := range []string{"http://127.0.0.1:4222", "nats://127.0.0.1", "nats://h:1/no.dots", "nats://u:p@h:1"} {
		code, _, stderr := run(t, dir, "--store", store, "log", "append", "--stream", "s", "--type", "a.b", "--data", "{}")
		if code != ExitUsage || !strings.Contains(stderr, "--store") || !strings.Contains(stderr, "nats://HOST:PORT") {
			t.Errorf("--store %q: exit %d, stderr %q; want a usage error naming the accepted forms", store, code, stderr)
		}
	}
	t.Setenv(StoreEnv, "ftp://x:1")
	if code, _, stderr := run(t, dir, "log", "head"); code != ExitUsage || !strings.Contains(stderr, "ftp://x:1") {
		t.Errorf("COS_STORE=ftp://x:1: exit %d, stderr %q; want a usage error naming it", code, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("a refused store wrote %d files in the state folder", len(entries))
	}
}

// TestStoreFlag_FilePath: --store FILE puts the log in that file, and
// COS_STORE does the same when the flag is absent.
func TestStoreFlag_FilePath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "team.db")
	if code, _, stderr := run(t, dir, "--store", file, "log", "append", "--stream", "s", "--type", "a.b", "--data", "{}"); code != 0 {
		t.Fatalf("append: %d %s", code, stderr)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("--store file not used: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, state.LogFile)); !os.IsNotExist(err) {
		t.Fatalf("the state folder's own log was written: %v", err)
	}
	t.Setenv(StoreEnv, file)
	if code, out, stderr := run(t, dir, "log", "head"); code != 0 || strings.TrimSpace(out) != "1" {
		t.Fatalf("COS_STORE head: %d %q %s; want 1", code, out, stderr)
	}
}

// TestFileCommands_NATSStoreRefused: backup and restore work on a log
// file; with a NATS store they change nothing and say what to use instead
// — before connecting anywhere. (verify --salvage salvages a stream:
// TestStore_ForeignMessageHasAWayBack.)
func TestFileCommands_NATSStoreRefused(t *testing.T) {
	dir := t.TempDir()
	fiveTasks(t, dir)
	backup := filepath.Join(t.TempDir(), "b.db")
	if code, _, stderr := run(t, dir, "backup", backup); code != 0 {
		t.Fatalf("backup of the file: %s", stderr)
	}
	store := "nats://127.0.0.1:1/COS"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"backup", filepath.Join(t.TempDir(), "x.db")}, "nats stream backup COS"},
		{[]string{"restore", backup}, "cos migrate --to nats://127.0.0.1:1/COS"},
	} {
		code, _, stderr := run(t, dir, append([]string{"--store", store}, c.args...)...)
		if code != ExitError || !strings.Contains(stderr, "E_ARGUMENT") || !strings.Contains(stderr, "NATS JetStream stream") || !strings.Contains(stderr, c.want) {
			t.Errorf("cos --store %s %s: exit %d, stderr %q; want E_ARGUMENT naming the stream and %q", store, c.args[0], code, stderr, c.want)
		}
		if strings.Contains(stderr, "connect") {
			t.Errorf("cos %s tried to connect: %s", c.args[0], stderr)
		}
	}
	// restore with --store naming another file replaces nothing either.
	other := filepath.Join(t.TempDir(), "other.db")
	if code, _, stderr := run(t, dir, "--store", other, "restore", backup); code != ExitError || !strings.Contains(stderr, "another log file") {
		t.Errorf("restore with --store FILE: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Errorf("a refused restore created %s", other)
	}
}

// TestMigrate_ToFile copies the state folder's log into a new file: the
// same events, verified, the same head; a second run refuses the file.
func TestMigrate_ToFile(t *testing.T) {
	dir := t.TempDir()
	fiveTasks(t, dir)
	dest := filepath.Join(t.TempDir(), "copy.db")
	code, out, stderr := run(t, dir, "migrate", "--to", dest, "--json")
	if code != 0 {
		t.Fatalf("migrate: %d %s", code, stderr)
	}
	var rep migrateReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report %q: %v", out, err)
	}
	if rep.Events != 5 || rep.Verified != 5 || rep.To != dest {
		t.Fatalf("report = %+v; want 5 events verified into %s", rep, dest)
	}
	if !strings.Contains(stderr, "copied 5 of 5 events") {
		t.Errorf("no progress on stderr: %q", stderr)
	}
	_, srcLog, _ := run(t, dir, "log", "--json")
	_, dstLog, _ := run(t, dir, "--store", dest, "log", "--json")
	if srcLog == "" || srcLog != dstLog {
		t.Fatalf("the copy's events differ:\n%s\nvs\n%s", srcLog, dstLog)
	}
	if code, _, stderr := run(t, dir, "migrate", "--to", dest); code != ExitError || !strings.Contains(stderr, "already exists") {
		t.Fatalf("migrate onto an existing file: exit %d, %q", code, stderr)
	}
	if code, _, stderr := run(t, dir, "migrate", "--to", filepath.Join(dir, state.LogFile)); code != ExitUsage || !strings.Contains(stderr, "is the log being copied") {
		t.Fatalf("migrate onto itself: exit %d, %q", code, stderr)
	}
	if code, _, stderr := run(t, dir, "migrate"); code != ExitUsage || !strings.Contains(stderr, "--to is required") {
		t.Fatalf("migrate without --to: exit %d, %q", code, stderr)
	}
}

// logInit creates the stream of the NATS store with `cos log init`, as an
// operator does once before any other command uses it.
func logInit(t testing.TB, store string) {
	t.Helper()
	if code, out, stderr := run(t, t.TempDir(), "--store", store, "log", "init"); code != 0 || !strings.Contains(out, "created") {
		t.Fatalf("cos log init of %s: exit %d, %q %q", store, code, out, stderr)
	}
}
