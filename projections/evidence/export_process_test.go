package evidence

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
)

// exportChildEnv, when set, makes TestExport_TwoProcesses act as one of the
// exporting child processes; its value is the export folder.
const (
	exportChildEnv   = "COS_EVIDENCE_EXPORT_CHILD_DIR"
	exportChildOrder = "COS_EVIDENCE_EXPORT_CHILD_ORDER"
	exportRevisions  = 40
)

// TestExport_TwoProcesses runs two OS processes exporting the same session,
// one in ascending and one in descending revision order, while this process
// reads the file: every read is a whole bundle, and the file ends at the
// highest revision.
func TestExport_TwoProcesses(t *testing.T) {
	if dir := os.Getenv(exportChildEnv); dir != "" {
		exportChild(t, dir, os.Getenv(exportChildOrder) == "desc")
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for !done.Load() {
			data, err := os.ReadFile(ExportPath(dir, "s"))
			if os.IsNotExist(err) {
				continue
			}
			var b Bundle
			if err != nil || json.Unmarshal(data, &b) != nil || b.Count() != int(b.Revision) {
				t.Errorf("partial or inconsistent file (%d bytes): %v", len(data), err)
				return
			}
		}
	})
	var children sync.WaitGroup
	for _, order := range []string{"asc", "desc"} {
		children.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestExport_TwoProcesses$", "-test.count=1")
			cmd.Env = append(os.Environ(), exportChildEnv+"="+dir, exportChildOrder+"="+order)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("child %s: %v\n%s", order, err, out)
			}
		})
	}
	children.Wait()
	done.Store(true)
	wg.Wait()
	data, err := os.ReadFile(ExportPath(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	var b Bundle
	if err := json.Unmarshal(data, &b); err != nil || b.Revision != exportRevisions {
		t.Errorf("final revision %d (%v), want %d", b.Revision, err, exportRevisions)
	}
	assertNoTempFiles(t, dir)
}

func exportChild(t *testing.T, dir string, desc bool) {
	bundles := bundlesUpTo(t, "s", exportRevisions)
	for i := range bundles {
		b := bundles[i]
		if desc {
			b = bundles[len(bundles)-1-i]
		}
		if _, err := Export(context.Background(), dir, b); err != nil {
			t.Fatal(err)
		}
	}
}
