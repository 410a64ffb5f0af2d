package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/state"
)

// callEnv runs `cos call tool args` in-process and decodes the envelope.
func callEnv(t *testing.T, dir, tool, args string) testutil.Envelope {
	t.Helper()
	_, out, errs := run(t, dir, "call", tool, args)
	var env testutil.Envelope
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatalf("cos call %s: %v\nstdout %s\nstderr %s", tool, err, out, errs)
	}
	return env
}

// flipMarker flips one byte of every copy of marker in the state folder's
// events.db.
func flipMarker(t *testing.T, dir, marker string) {
	t.Helper()
	testutil.FlipEvery(t, filepath.Join(dir, state.LogFile), marker)
}

// fiveTasks creates tasks titled MARKA … MARKE (seqs 1–5).
func fiveTasks(t *testing.T, dir string) {
	t.Helper()
	for i := range 5 {
		env := callEnv(t, dir, "cos_task_create", fmt.Sprintf(`{"title":"MARK%c"}`, 'A'+i))
		if !env.OK {
			t.Fatalf("create task %d: %+v", i, env.Error)
		}
	}
}

// TestIntegrity_DamagedLogIsNeverServedAsHealthy: with a bad record in the
// middle of the log, every answer still reads the state before the damage,
// and says so in meta.integrity; cos_health says so in its data.
func TestIntegrity_DamagedLogIsNeverServedAsHealthy(t *testing.T) {
	dir := t.TempDir()
	fiveTasks(t, dir)
	healthy := callEnv(t, dir, "cos_task_board", `{}`)
	if _, ok := healthy.Data["meta"].(map[string]any)["integrity"]; ok {
		t.Fatalf("a healthy answer carries meta.integrity: %v", healthy.Data["meta"])
	}
	flipMarker(t, dir, "MARKC")

	want := map[string]any{"ok": false, "first_bad_seq": 3.0, "events_after": 2.0}
	for _, tool := range []string{"cos_task_board", "cos_health"} {
		env := callEnv(t, dir, tool, `{}`)
		if !env.OK {
			t.Fatalf("%s on a damaged log: %+v (reads must still work)", tool, env.Error)
		}
		meta := env.Data["meta"].(map[string]any)
		if got, _ := meta["integrity"].(map[string]any); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s meta.integrity = %v, want %v (meta %v)", tool, meta["integrity"], want, meta)
		}
		if meta["log_seq"] != 2.0 {
			t.Errorf("%s meta.log_seq = %v, want 2 (the state before the damage)", tool, meta["log_seq"])
		}
	}
	h := callEnv(t, dir, "cos_health", `{}`)
	integ, _ := h.Data["integrity"].(map[string]any)
	if p, _ := integ["problem"].(string); !strings.Contains(p, "checksum") {
		t.Errorf("cos_health data.integrity.problem = %q, want the damage in words", p)
	}
	delete(integ, "problem")
	if got := fmt.Sprint(integ); got != fmt.Sprint(want) {
		t.Errorf("cos_health data.integrity = %s, want %v", got, want)
	}

	// A write is refused; its message shows the way back, not a loop.
	w := callEnv(t, dir, "cos_task_create", `{"title":"after"}`)
	if w.OK || w.Error.Code != "E_INTEGRITY" {
		t.Fatalf("write on a damaged log = %+v, want E_INTEGRITY", w)
	}
	for _, s := range []string{"cos verify --salvage", "cos restore"} {
		if !strings.Contains(w.Error.Message, s) {
			t.Errorf("E_INTEGRITY message lacks %q: %s", s, w.Error.Message)
		}
	}

	// cos verify names the damage and does not send the reader to itself.
	code, _, errs := run(t, dir, "verify")
	if code != ExitError || !strings.Contains(errs, "seq 3") {
		t.Fatalf("cos verify = %d %q; want exit 1 naming seq 3", code, errs)
	}
	if strings.Contains(errs, "run `cos verify`") || strings.Contains(errs, "(run cos verify)") {
		t.Errorf("cos verify sends the user to cos verify: %s", errs)
	}
	if !strings.Contains(errs, "--salvage") {
		t.Errorf("cos verify does not name the way back: %s", errs)
	}
}
