package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/projections/evidence"
)

// TestRecordOutput_ExportFailsAfterCommit: a record that committed but whose
// bundle export failed (the export folder cannot be created) answers ok
// with a warning in meta; a resend with the same request_id is a replay,
// not a second record.
func TestRecordOutput_ExportFailsAfterCommit(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "not-a-folder")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(evidence.AgentDirEnv, filepath.Join(blocker, "agent"))
	s := openServer(t, "")
	args := `{"request_id":"rec-1","session_id":"s","role":"planner","output":{"summary":"x","steps":["a"]}}`
	e := call(t, s, "cos_supervise_record_output", args)
	if !e.OK {
		t.Fatalf("committed record answered %s: %s", e.Error.Code, e.Error.Message)
	}
	warns, _ := graphMeta(e)["warnings"].([]any)
	if len(warns) != 1 || !strings.Contains(warns[0].(string), "export") {
		t.Fatalf("meta.warnings = %v, want one naming the failed export", graphMeta(e)["warnings"])
	}
	if e.Data["export_path"] != nil && e.Data["export_path"] != "" {
		t.Fatalf("export_path = %v, want none when the export failed", e.Data["export_path"])
	}
	head1, err := s.Log().Head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	again := call(t, s, "cos_supervise_record_output", args)
	if !again.OK || again.Data["replayed"] != true {
		t.Fatalf("resend: ok=%v replayed=%v (%s)", again.OK, again.Data["replayed"], again.Error.Code)
	}
	head2, _ := s.Log().Head(context.Background())
	if head2.Seq != head1.Seq {
		t.Fatalf("resend moved the log from seq %d to %d", head1.Seq, head2.Seq)
	}
	b := call(t, s, "cos_evidence_bundle", `{"session_id":"s"}`)
	if b.Data["count"] != float64(1) {
		t.Fatalf("bundle count = %v, want 1", b.Data["count"])
	}
}
