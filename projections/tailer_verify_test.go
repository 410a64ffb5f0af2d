package projections

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog/boltlog"
)

// logFileOf builds a log of n random events (seeded by seed) in a fresh
// state folder and returns its file and its events' hashes.
func logFileOf(t *testing.T, seed uint64, n int) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	l := openLog(t, dir)
	appendPayloads(t, l, genPayloads(rand.New(rand.NewPCG(seed, seed)), n), 1)
	var hashes []string
	for _, ev := range readEvents(t, l) {
		hashes = append(hashes, ev.Hash)
	}
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "events.db"), hashes
}

// copyOver replaces dst with a copy of src (write a temporary file, then
// rename), as a restore or a hand copy would.
func copyOver(t *testing.T, src, dst string) {
	t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	tmp := dst + ".new"
	if err := os.WriteFile(tmp, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		t.Fatal(err)
	}
}

// VerifyPosition compares the projections' position with the log's record
// at its seq: equal after a catch-up, not equal once the log under the
// tailer is another one (another history, or a shorter one).
func TestTailer_VerifyPosition_LogReplaced(t *testing.T) {
	x, xh := logFileOf(t, 1, 10)
	y, yh := logFileOf(t, 2, 10)
	z, _ := logFileOf(t, 3, 5)

	live := filepath.Join(t.TempDir(), "events.db")
	copyOver(t, x, live)
	l, err := boltlog.Open(context.Background(), live, boltlog.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	tl, _ := startTailer(t, l, TailerOptions{})
	ctx := context.Background()

	pos := tl.Position()
	if pc := tl.VerifyPosition(ctx, Position{}); !pc.Verified || pc.Problem != "" {
		t.Fatalf("nothing applied: %+v, want verified", pc)
	}
	if pc := tl.VerifyPosition(ctx, pos); !pc.Verified || pc.LogHash != xh[9] || pc.Hash != xh[9] || pc.Seq != 10 {
		t.Fatalf("after catch-up: %+v, want verified at seq 10 with hash %s", pc, xh[9])
	}

	copyOver(t, y, live)
	pc := tl.VerifyPosition(ctx, pos)
	if pc.Verified || pc.LogHash != yh[9] || pc.Hash != xh[9] || !strings.Contains(pc.Problem, "seq 10") {
		t.Fatalf("log replaced by another history: %+v, want not verified, log hash %s", pc, yh[9])
	}

	copyOver(t, z, live)
	pc = tl.VerifyPosition(ctx, pos)
	if pc.Verified || pc.LogHash != "" || !strings.Contains(pc.Problem, "no event") {
		t.Fatalf("log replaced by a shorter one: %+v, want not verified, no log hash", pc)
	}

	// The caller's view is what is checked: inside View it takes no
	// tailer lock.
	tl.View(func(p Position) {
		if pc := tl.VerifyPosition(ctx, p); pc.Verified {
			t.Errorf("inside View: %+v, want not verified", pc)
		}
	})
}
