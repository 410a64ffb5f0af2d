package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/indexing"
)

// A file over the size limit is skipped, and the summary line and the
// JSON report name it with the reason and the limit; --max-file-size
// moves the limit, whose default is extract.DefaultMaxFileSize.
func TestIndex_MaxFileSize(t *testing.T) {
	root := writeIndexRepo(t)
	big := strings.Repeat("x = 1\n", extract.DefaultMaxFileSize/6+1) // just over 2 MiB
	if err := os.WriteFile(filepath.Join(root, "big.py"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "mid.py"), []byte(strings.Repeat("y = 2\n", 500)), 0o644); err != nil {
		t.Fatal(err)
	}

	state := t.TempDir()
	code, out, errs := run(t, state, "index", root)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, ", 1 skipped (big.py: too large, over 2.0 MiB)") {
		t.Fatalf("summary line does not name the skipped file: %q", out)
	}

	state = t.TempDir()
	code, out, errs = run(t, state, "index", "--json", "--max-file-size", "1024", root)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct{ Report indexing.Report }
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	r := got.Report
	if r.FilesSkipped != 2 || r.MaxFileSize != 1024 || len(r.Skipped) != 2 ||
		r.Skipped[0] != (extract.FileNote{Path: "big.py", Reason: extract.SkipTooLarge}) ||
		r.Skipped[1] != (extract.FileNote{Path: "mid.py", Reason: extract.SkipTooLarge}) {
		t.Fatalf("report: skipped %d %v, limit %d", r.FilesSkipped, r.Skipped, r.MaxFileSize)
	}
	for _, bad := range []string{"0", "-5"} {
		if code, _, errs := run(t, t.TempDir(), "index", "--max-file-size", bad, root); code != ExitUsage || !strings.Contains(errs, "--max-file-size") {
			t.Errorf("--max-file-size %s: exit %d, %q", bad, code, errs)
		}
	}
	if code, out, _ := run(t, t.TempDir(), "index", "--help"); code != 0 || !strings.Contains(out, "--max-file-size") || !strings.Contains(out, "2097152") {
		t.Errorf("help does not document --max-file-size and its default: %q", out)
	}
}
