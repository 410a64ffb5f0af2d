package envelope

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// storageError is a storage failure that knows its database file, as the
// event log's errors will.
type storageError struct{ path string }

func (e *storageError) Error() string        { return "bbolt: write failed" }
func (e *storageError) DatabasePath() string { return e.path }

var _ DatabasePather = (*storageError)(nil)

// logLines decodes every JSON line in b.
func logLines(t testing.TB, b []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line is not JSON: %v: %q", err, truncateForLog(sc.Bytes()))
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSafe(t *testing.T) {
	secretArgs := `{"query":"very secret argument text"}`
	call := CallInfo{Tool: "cos_graph_context", RequestID: "req-42", ArgBytes: len(secretArgs)}
	tests := []struct {
		name     string
		fn       Handler
		wantCode Code
		wantLog  bool
		wantKind string
		wantDB   string
	}{
		{
			name:     "panic with a string",
			fn:       func(context.Context) (Envelope, error) { panic("nil map write at " + secretArgs) },
			wantCode: CodeInternal, wantLog: true, wantKind: "panic",
		},
		{
			name: "panic with a storage error",
			fn: func(context.Context) (Envelope, error) {
				panic(fmt.Errorf("apply: %w", &storageError{path: "/state/events.db"}))
			},
			wantCode: CodeInternal, wantLog: true, wantKind: "panic", wantDB: "/state/events.db",
		},
		{
			name: "plain error",
			fn: func(context.Context) (Envelope, error) {
				return Envelope{}, errors.New("unexpected EOF")
			},
			wantCode: CodeInternal, wantLog: true, wantKind: "error",
		},
		{
			name: "storage error wrapped in an E_STORAGE",
			fn: func(context.Context) (Envelope, error) {
				return Envelope{}, Wrap(&storageError{path: "/state/events.db"}, CodeStorage, "append failed")
			},
			wantCode: CodeStorage, wantLog: true, wantKind: "error", wantDB: "/state/events.db",
		},
		{
			name: "internal failure envelope",
			fn: func(context.Context) (Envelope, error) {
				return Fail(Errorf(CodeIntegrity, "hash chain broken")), nil
			},
			wantCode: CodeIntegrity, wantLog: true, wantKind: "error",
		},
		{
			name:     "zero envelope",
			fn:       func(context.Context) (Envelope, error) { return Envelope{}, nil },
			wantCode: CodeInternal, wantLog: true, wantKind: "error",
		},
		{
			name: "domain error is not logged",
			fn: func(context.Context) (Envelope, error) {
				return Envelope{}, Errorf(CodeNotFound, "no task TASK-0001")
			},
			wantCode: CodeNotFound,
		},
		{
			name: "deadline is transient and not logged",
			fn: func(ctx context.Context) (Envelope, error) {
				return Envelope{}, fmt.Errorf("search: %w", context.DeadlineExceeded)
			},
			wantCode: CodeTimeout,
		},
		{
			name:     "success passes through",
			fn:       func(context.Context) (Envelope, error) { return OK(map[string]any{"a": 1}, Meta{}, Options{}), nil },
			wantCode: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			log := slog.New(slog.NewJSONHandler(&buf, nil))
			env := Safe(context.Background(), call, log, tt.fn)
			if tt.wantCode == "" {
				if !env.OK() {
					t.Fatalf("got %s", env.JSON())
				}
			} else {
				if env.OK() || env.Err().Code != tt.wantCode {
					t.Fatalf("got %s, want code %s", env.JSON(), tt.wantCode)
				}
				if got, want := env.Err().Retryable, tt.wantCode.Category().Retryable(); got != want {
					t.Errorf("retryable = %v, want %v", got, want)
				}
			}
			wire := string(env.JSON())
			for _, leak := range []string{"goroutine", ".go:", "secret", "/state/", "EOF", "nil map"} {
				if strings.Contains(wire, leak) {
					t.Errorf("envelope leaks %q: %s", leak, wire)
				}
			}
			lines := logLines(t, buf.Bytes())
			if !tt.wantLog {
				if len(lines) != 0 {
					t.Errorf("logged %d lines, want none: %s", len(lines), buf.Bytes())
				}
				return
			}
			if len(lines) != 1 {
				t.Fatalf("logged %d lines, want 1: %s", len(lines), buf.Bytes())
			}
			l := lines[0]
			if l["level"] != "ERROR" || l["tool"] != call.Tool || l["request_id"] != call.RequestID ||
				l["arg_bytes"] != float64(call.ArgBytes) || l["pid"] != float64(os.Getpid()) || l["kind"] != tt.wantKind {
				t.Errorf("log line = %v", l)
			}
			if g, _ := l["goroutine"].(float64); g <= 0 {
				t.Errorf("goroutine = %v", l["goroutine"])
			}
			if s, _ := l["stack"].(string); !strings.Contains(s, "safe_test.go") && !strings.Contains(s, "envelope.Safe") {
				t.Errorf("stack does not name the failing frames: %q", s)
			}
			if tt.wantKind == "panic" && !strings.Contains(l["stack"].(string), "safe_test.go") {
				t.Errorf("panic stack lacks the panicking handler")
			}
			if got, _ := l["db_path"].(string); got != tt.wantDB {
				t.Errorf("db_path = %q, want %q", got, tt.wantDB)
			}
			if strings.Contains(buf.String(), "very secret argument") && tt.name != "panic with a string" {
				t.Errorf("arguments logged")
			}
		})
	}
}

func TestSafe_UnshrinkableLogged(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	env := Safe(context.Background(), CallInfo{Tool: "cos_big"}, log, func(context.Context) (Envelope, error) {
		return OK(map[string]any{"node": strings.Repeat("x", 1000)}, Meta{}, Options{BudgetChars: 200}), nil
	})
	if !env.OK() || env.Meta()[KeyUnshrinkable] != true {
		t.Fatalf("got %s", env.JSON())
	}
	lines := logLines(t, buf.Bytes())
	if len(lines) != 1 || lines[0]["msg"] != "envelope unshrinkable" || lines[0]["tool"] != "cos_big" {
		t.Errorf("log = %s", buf.Bytes())
	}
}

func TestSafe_NilLogger(t *testing.T) {
	env := Safe(context.Background(), CallInfo{}, nil, func(context.Context) (Envelope, error) { panic(1) })
	if env.OK() || !errors.Is(env.Err(), ErrPanic) {
		t.Errorf("got %s, cause %v", env.JSON(), env.Err().Cause)
	}
}

func TestSafe_NoEnvelopeCause(t *testing.T) {
	env := Safe(context.Background(), CallInfo{}, nil, func(context.Context) (Envelope, error) { return Envelope{}, nil })
	if !errors.Is(env.Err(), ErrNoEnvelope) {
		t.Errorf("cause = %v, want ErrNoEnvelope", env.Err().Cause)
	}
}

// Multi-process append: children re-executed from this test binary each
// write forensic lines to one .mcp.log concurrently.
const (
	envForensicChild = "COS_ENVELOPE_FORENSIC_CHILD"
	childLines       = 200
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(envForensicChild); dir != "" {
		os.Exit(forensicChild(dir))
	}
	os.Exit(m.Run())
}

// forensicChild panics inside Safe childLines times from two goroutines.
func forensicChild(dir string) int {
	log, closer, err := OpenForensicLog(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer closer.Close()
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			for i := range childLines / 2 {
				Safe(context.Background(), CallInfo{Tool: "cos_child", RequestID: strconv.Itoa(g*1000 + i), ArgBytes: i}, log,
					func(context.Context) (Envelope, error) { panic(strings.Repeat("p", 3000)) })
			}
		})
	}
	wg.Wait()
	return 0
}

func TestOpenForensicLog_MultiProcessAppend(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	const procs = 4
	cmds := make([]*exec.Cmd, procs)
	for i := range cmds {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), envForensicChild+"="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("child stderr: %s", stderr.Bytes())
			}
		})
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child: %v", err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, ForensicLogName))
	if err != nil {
		t.Fatal(err)
	}
	lines := logLines(t, b)
	if len(lines) != procs*childLines {
		t.Fatalf("got %d lines, want %d", len(lines), procs*childLines)
	}
	pids := map[float64]int{}
	for _, l := range lines {
		pids[l["pid"].(float64)]++
		if l["tool"] != "cos_child" || l["kind"] != "panic" {
			t.Fatalf("line = %v", l)
		}
	}
	if len(pids) != procs {
		t.Errorf("lines from %d processes, want %d", len(pids), procs)
	}
	for pid, n := range pids {
		if n != childLines {
			t.Errorf("pid %v wrote %d lines, want %d", pid, n, childLines)
		}
	}
	info, err := os.Stat(filepath.Join(dir, ForensicLogName))
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("mode = %v, want 0600", perm)
	}
}

func TestOpenForensicLog_BadDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := OpenForensicLog(filepath.Join(file, "sub")); err == nil {
		t.Error("opened a log under a regular file")
	}
}
