package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/state"
)

func TestLogAppend_PrintsReceiptAndReplays(t *testing.T) {
	dir := t.TempDir()
	args := []string{"log", "append", "--stream", "task:TASK-001", "--type", "task.created", "--data", `{"title":"x"}`, "--request-id", "r-1", "--expect-revision", "none"}
	code, out, errs := run(t, dir, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rec eventlog.Receipt
	if err := json.Unmarshal([]byte(out), &rec); err != nil || rec.FirstSeq != 1 || rec.Revision != 1 || rec.Replayed {
		t.Fatalf("receipt %q: %v", out, err)
	}
	_, out2, _ := run(t, dir, args...)
	var again eventlog.Receipt
	if err := json.Unmarshal([]byte(out2), &again); err != nil || !again.Replayed || again.Hashes[0] != rec.Hashes[0] {
		t.Fatalf("resend = %q, want the replayed receipt", out2)
	}
}

func TestLogAppend_Failures(t *testing.T) {
	dir := t.TempDir()
	run(t, dir, "log", "append", "--stream", "s", "--type", "a.b", "--data", `{}`, "--request-id", "r-1")
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"stale create", []string{"--stream", "s", "--type", "a.b", "--data", `{}`, "--expect-revision", "none"}, 1, "STALE_REVISION: create target already exists"},
		{"stale revision", []string{"--stream", "s", "--type", "a.b", "--data", `{}`, "--expect-revision", "9"}, 1, "STALE_REVISION"},
		{"reuse", []string{"--stream", "s", "--type", "a.b", "--data", `{"x":1}`, "--request-id", "r-1"}, 1, "E_REQUEST_REUSE"},
		{"empty request id", []string{"--stream", "s", "--type", "a.b", "--data", `{}`, "--request-id", ""}, 1, "E_REQUEST_ID"},
		{"long request id", []string{"--stream", "s", "--type", "a.b", "--data", `{}`, "--request-id", strings.Repeat("r", 129)}, 1, "E_REQUEST_ID"},
		{"bad type", []string{"--stream", "s", "--type", "Created", "--data", `{}`}, 1, "E_ARGUMENT: type"},
		{"bad json", []string{"--stream", "s", "--type", "a.b", "--data", `{`}, 1, "E_ARGUMENT: data"},
		{"empty stream", []string{"--stream", "", "--type", "a.b", "--data", `{}`}, 1, "E_ARGUMENT: stream"},
		{"bad expect", []string{"--stream", "s", "--type", "a.b", "--data", `{}`, "--expect-revision", "soon"}, 2, "--expect-revision"},
		{"missing flag", []string{"--stream", "s", "--type", "a.b"}, 2, "data"},
	}
	for _, c := range cases {
		code, out, errs := run(t, dir, append([]string{"log", "append"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and %q", c.name, code, out, errs, c.code, c.want)
		}
	}
	_, out, _ := run(t, dir, "log", "head")
	if strings.TrimSpace(out) != "1" {
		t.Fatalf("failed appends wrote something: head %q", out)
	}
}

func TestLog_ListFilters(t *testing.T) {
	dir := t.TempDir()
	for i, s := range []string{"task:TASK-001", "graph", "task:TASK-001", "metrics"} {
		typ := map[string]string{"graph": "graph.nodes_upserted", "metrics": "metric.recorded"}[s]
		if typ == "" {
			typ = "task.updated"
		}
		run(t, dir, "log", "append", "--stream", s, "--type", typ, "--data", fmt.Sprintf(`{"i":%d}`, i))
	}
	lines := func(args ...string) []string {
		code, out, errs := run(t, dir, append([]string{"log"}, args...)...)
		if code != 0 {
			t.Fatalf("log %v: %d %s", args, code, errs)
		}
		return strings.Fields(strings.ReplaceAll(strings.TrimSpace(out), "\n", " | "))
	}
	if got := lines("--stream", "task:TASK-001", "--json"); len(got) != 3 { // two JSON lines and a separator
		t.Fatalf("--stream: %v", got)
	}
	_, out, _ := run(t, dir, "log", "--type", "task.*", "--json")
	var seqs []uint64
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev eventlog.Event
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, ev.Seq)
	}
	if fmt.Sprint(seqs) != "[1 3]" {
		t.Fatalf("--type task.* gave %v", seqs)
	}
	_, out, _ = run(t, dir, "log", "--from", "2", "--to", "3")
	if n := strings.Count(out, "\n"); n != 2 || !strings.HasPrefix(out, "2\t") {
		t.Fatalf("--from 2 --to 3:\n%s", out)
	}
	if code, _, _ := run(t, dir, "log", "--from", "3", "--to", "2"); code != ExitUsage {
		t.Fatalf("--to before --from: exit %d", code)
	}
}

func TestVerify_OKAndBroken(t *testing.T) {
	dir := t.TempDir()
	if code, out, _ := run(t, dir, "verify"); code != 0 || out != "ok 0 events\n" {
		t.Fatalf("verify on a fresh folder: %d %q", code, out)
	}
	for i := 0; i < 3; i++ {
		run(t, dir, "log", "append", "--stream", "s", "--type", "a.b", "--data", fmt.Sprintf(`{"marker":"MARK%d"}`, i))
	}
	if code, out, _ := run(t, dir, "verify"); code != 0 || out != "ok 3 events\n" {
		t.Fatalf("verify: %d %q", code, out)
	}
	path := filepath.Join(dir, state.LogFile)
	raw, _ := os.ReadFile(path)
	// bbolt is copy-on-write: stale copies of a page may hold the marker
	// too, so corrupt every copy.
	for i := strings.Index(string(raw), "MARK1"); i >= 0; i = strings.Index(string(raw), "MARK1") {
		raw[i] ^= 0x01
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, dir, "verify")
	if code != ExitError || !strings.Contains(errs, "E_INTEGRITY") || !strings.Contains(errs, "seq 2") {
		t.Fatalf("verify on a corrupted log: exit %d, %q", code, errs)
	}
}

// TestLogAppend_FourShellsAtOnce runs `cos log append` from four OS
// processes at once: nothing lost, nothing duplicated.
func TestLogAppend_FourShellsAtOnce(t *testing.T) {
	dir := t.TempDir()
	const shells, each = 4, 15
	var wg sync.WaitGroup
	var mu sync.Mutex
	receipts := map[uint64]string{}
	for s := 0; s < shells; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				key := fmt.Sprintf("shell%d-%d", s, i)
				out, err := cosProcess(t, "--state-dir", dir, "log", "append", "--stream", "shared", "--type", "test.appended", "--data", `{"key":"`+key+`"}`).Output()
				if err != nil {
					t.Errorf("shell %d: %v", s, err)
					return
				}
				var rec eventlog.Receipt
				if err := json.Unmarshal(out, &rec); err != nil {
					t.Errorf("receipt %q: %v", out, err)
					return
				}
				mu.Lock()
				if prev, dup := receipts[rec.FirstSeq]; dup {
					t.Errorf("seq %d acknowledged to %s and %s", rec.FirstSeq, prev, key)
				}
				receipts[rec.FirstSeq] = key
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	code, out, errs := run(t, dir, "log", "--json")
	if code != 0 {
		t.Fatal(errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != shells*each || len(receipts) != shells*each {
		t.Fatalf("%d events, %d receipts; want %d", len(lines), len(receipts), shells*each)
	}
	for _, l := range lines {
		var ev eventlog.Event
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(ev.Data), receipts[ev.Seq]) {
			t.Fatalf("seq %d holds %s, acknowledged %s", ev.Seq, ev.Data, receipts[ev.Seq])
		}
	}
	if code, out, _ := run(t, dir, "verify"); code != 0 || out != fmt.Sprintf("ok %d events\n", shells*each) {
		t.Fatalf("verify: %q", out)
	}
}
