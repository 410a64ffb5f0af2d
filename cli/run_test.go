package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/state"
)

// TestMain lets tests run the test binary as the cos command: with
// COS_CLI_MAIN=1 it behaves like cmd/cos.
func TestMain(m *testing.M) {
	if os.Getenv("COS_CLI_MAIN") == "1" {
		os.Exit(Run(context.Background(), os.Args[1:], IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
	}
	os.Exit(m.Run())
}

// cosProcess returns an exec.Cmd running "cos args..." as a real process.
func cosProcess(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "COS_CLI_MAIN=1")
	return cmd
}

// run runs cos in-process with --state-dir dir and returns exit code,
// stdout and stderr.
func run(t testing.TB, dir string, args ...string) (int, string, string) {
	t.Helper()
	// Synchronised: a NATS connection's callbacks may log to stderr from
	// a goroutine of their own while the command writes.
	var out, errb testutil.SyncBuffer
	code := Run(context.Background(), append([]string{"--state-dir", dir}, args...), IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

func TestRun_StateDir_FlagEnvDefault(t *testing.T) {
	dir := t.TempDir()
	flagDir, envDir := filepath.Join(dir, "flag"), filepath.Join(dir, "env")
	t.Setenv("COS_STATE_DIR", envDir)
	if code, _, errs := run(t, flagDir, "log", "append", "--stream", "s", "--type", "a.b", "--data", "{}"); code != 0 {
		t.Fatalf("append with --state-dir: %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(flagDir, state.LogFile)); err != nil {
		t.Fatalf("--state-dir not used: %v", err)
	}
	var out bytes.Buffer
	if code := Run(context.Background(), []string{"log", "append", "--stream", "s", "--type", "a.b", "--data", "{}"}, IO{Out: &out, Err: &out}); code != 0 {
		t.Fatalf("append with $COS_STATE_DIR: %s", out.String())
	}
	if _, err := os.Stat(filepath.Join(envDir, state.LogFile)); err != nil {
		t.Fatalf("$COS_STATE_DIR not used: %v", err)
	}
	t.Setenv("COS_STATE_DIR", "")
	t.Chdir(dir)
	if code := Run(context.Background(), []string{"log", "append", "--stream", "s", "--type", "a.b", "--data", "{}"}, IO{Out: &out, Err: &out}); code != 0 {
		t.Fatalf("append with the default: %s", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, ".cos", state.LogFile)); err != nil {
		t.Fatalf("./.cos not used: %v", err)
	}
}
