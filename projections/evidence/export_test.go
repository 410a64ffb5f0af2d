package evidence

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cos-dev/cos/internal/testutil"
)

// bundlesUpTo returns the session's bundle at revisions 1…n, built by one
// projection; each record carries 2 KB so that a torn write would show.
func bundlesUpTo(t testing.TB, session string, n int) []Bundle {
	l := new(testutil.FakeLog)
	p := NewBundles()
	out := make([]Bundle, 0, n)
	for i := 0; i < n; i++ {
		ev := record(t, l, session, "", RoleTester, `{"passed": 1, "failed": 0, "notes": "`+strings.Repeat("x", 2000)+`"}`)
		if err := p.Apply(ev); err != nil {
			t.Fatal(err)
		}
		b, err := p.Get(session)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func bundleAt(t testing.TB, session string, rev int) Bundle {
	return bundlesUpTo(t, session, rev)[rev-1]
}

func TestExport_WritesValidJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agent") // created by Export
	b := bundleAt(t, "s-1", 3)
	path, err := Export(context.Background(), dir, b)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "evidence_bundle_s-1.json") {
		t.Errorf("path %s", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var back Bundle
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("export is not valid JSON: %v", err)
	}
	if back.SessionID != "s-1" || back.Revision != 3 || len(back.Roles[RoleTester]) != 3 {
		t.Errorf("exported %+v", back)
	}
	assertNoTempFiles(t, dir)
}

func TestExport_NeverGoesBackwards(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	if _, err := Export(ctx, dir, bundleAt(t, "s", 5)); err != nil {
		t.Fatal(err)
	}
	if _, err := Export(ctx, dir, bundleAt(t, "s", 2)); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(ExportPath(dir, "s"))
	var back Bundle
	if err := json.Unmarshal(data, &back); err != nil || back.Revision != 5 {
		t.Errorf("revision on disk %d (%v), want 5", back.Revision, err)
	}
}

// TestExport_Atomic rewrites a bundle many times while readers poll the
// file: every read sees a complete bundle, never a partial one.
func TestExport_Atomic(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	bundles := bundlesUpTo(t, "s", 30)
	if _, err := Export(ctx, dir, bundles[0]); err != nil {
		t.Fatal(err)
	}
	var done atomic.Bool
	var reads atomic.Int64
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for !done.Load() {
				data, err := os.ReadFile(ExportPath(dir, "s"))
				if err != nil {
					t.Errorf("read: %v", err)
					return
				}
				var b Bundle
				if err := json.Unmarshal(data, &b); err != nil {
					t.Errorf("partial file seen (%d bytes): %v", len(data), err)
					return
				}
				if b.Count() != int(b.Revision) {
					t.Errorf("bundle of revision %d holds %d records", b.Revision, b.Count())
					return
				}
				reads.Add(1)
			}
		})
	}
	for _, b := range bundles[1:] {
		if _, err := Export(ctx, dir, b); err != nil {
			t.Fatal(err)
		}
	}
	done.Store(true)
	wg.Wait()
	if reads.Load() == 0 {
		t.Error("readers never read the file")
	}
	assertNoTempFiles(t, dir)
}

func TestExport_Errors(t *testing.T) {
	if _, err := Export(context.Background(), t.TempDir(), Bundle{SessionID: "../etc"}); !errors.Is(err, ErrInvalidSession) {
		t.Errorf("bad session: %v", err)
	}
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Export(context.Background(), filepath.Join(file, "sub"), Bundle{SessionID: "s"}); err == nil {
		t.Error("export under a regular file succeeded")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	dir := t.TempDir()
	// Hold the session's lock as another exporter would.
	release := holdLock(t, dir, "s")
	defer release()
	if _, err := Export(ctx, dir, Bundle{SessionID: "s"}); err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("export while another holds the lock past the deadline: %v", err)
	}
}

func TestExportDir(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got := ExportDir("/state", getenv); got != filepath.Join("/state", DefaultAgentSubdir) {
		t.Errorf("default %s", got)
	}
	env[AgentDirEnv] = "/agents"
	if got := ExportDir("/state", getenv); got != "/agents" {
		t.Errorf("override %s", got)
	}
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
}
