package extract

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/graph"
)

// interruptedRun runs Run over root with batches of one file and cancels
// it once emit has accepted stopAfter batches; the accepted payloads are
// added to graphHashes (path → content hash), as the log would hold them.
func interruptedRun(t *testing.T, root, cacheDir string, graphHashes map[string]string, stopAfter int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	batches := 0
	_, err := Run(ctx, root, Options{CacheDir: cacheDir, BatchFiles: 1, Workers: 1}, clone(graphHashes), func(b []graph.FileExtracted, removed []string) error {
		for _, p := range b {
			graphHashes[p.Path] = p.ContentHash
		}
		batches++
		if batches == stopAfter {
			cancel()
		}
		return nil
	})
	if err == nil {
		t.Fatalf("the run was not interrupted")
	}
}

func clone(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// countingOpen records which files a run reads.
func countingOpen() (func(string) (io.ReadCloser, error), func() map[string]int) {
	var mu sync.Mutex
	reads := map[string]int{}
	return func(name string) (io.ReadCloser, error) {
			mu.Lock()
			reads[filepath.Base(name)]++
			mu.Unlock()
			return os.Open(name)
		}, func() map[string]int {
			mu.Lock()
			defer mu.Unlock()
			return reads
		}
}

// TestRun_ResumeAfterInterruptReadsOnlyTheRest: a run cancelled after it
// emitted N of M files leaves caches under which the next run reads and
// extracts only the M−N files not emitted (the emitted ones are neither
// hashed again nor parsed for their declarations).
func TestRun_ResumeAfterInterruptReadsOnlyTheRest(t *testing.T) {
	const m, n = 20, 7
	root := t.TempDir()
	for i := range m {
		src := fmt.Sprintf("from f%02d import g%02d\n\ndef g%02d():\n    return g%02d()\n", (i+1)%m, (i+1)%m, i, (i+1)%m)
		name := filepath.Join(root, fmt.Sprintf("f%02d.py", i))
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		// Written well before the runs: a stat match is trusted (a file
		// read within 2 s of its last write is read again).
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(name, old, old); err != nil {
			t.Fatal(err)
		}
	}
	cacheDir := t.TempDir()
	graphHashes := map[string]string{}
	interruptedRun(t, root, cacheDir, graphHashes, n)
	if len(graphHashes) != n {
		t.Fatalf("%d files committed, want %d", len(graphHashes), n)
	}
	open, reads := countingOpen()
	o := Options{CacheDir: cacheDir, BatchFiles: 1}
	o.open = open
	var emitted []string
	st, err := Run(context.Background(), root, o, clone(graphHashes), func(b []graph.FileExtracted, _ []string) error {
		for _, p := range b {
			emitted = append(emitted, p.Path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := reads()
	t.Logf("resumed run: %d files changed, %d re-extracted, %d files read (%d reads) of %d", st.FilesChanged, st.FilesReextracted, len(got), total(got), m)
	if st.FilesChanged != m-n || len(emitted) != m-n {
		t.Errorf("resumed run: %d changed, %d emitted; want %d", st.FilesChanged, len(emitted), m-n)
	}
	for i := range n {
		if name := fmt.Sprintf("f%02d.py", i); got[name] > 0 {
			t.Errorf("%s, committed by the interrupted run, was read %d times again", name, got[name])
		}
	}
}

func total(m map[string]int) int {
	s := 0
	for _, v := range m {
		s += v
	}
	return s
}

// TestRun_ResumeKeepsPendingDependents: a changed file whose declarations
// change is emitted, then the run is cancelled before the unchanged file
// that depends on it is emitted again; the next run extracts that
// dependent again although nothing changed since.
func TestRun_ResumeKeepsPendingDependents(t *testing.T) {
	root := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.py", "def old_name():\n    return 1\n")
	write("z.py", "from a import old_name\n\ndef use():\n    return old_name()\n")
	cacheDir := t.TempDir()
	graphHashes := map[string]string{}
	if _, err := Run(context.Background(), root, Options{CacheDir: cacheDir}, nil, func(b []graph.FileExtracted, _ []string) error {
		for _, p := range b {
			graphHashes[p.Path] = p.ContentHash
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	write("a.py", "def new_name():\n    return 1\n")
	// The uninterrupted run emits a.py and then z.py, a dependent.
	interruptedRun(t, root, cacheDir, graphHashes, 1)
	var emitted []string
	st, err := Run(context.Background(), root, Options{CacheDir: cacheDir}, clone(graphHashes), func(b []graph.FileExtracted, _ []string) error {
		for _, p := range b {
			emitted = append(emitted, p.Path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(emitted) != 1 || emitted[0] != "z.py" || st.FilesReextracted != 1 {
		t.Fatalf("resumed run emitted %v (re-extracted %d); want z.py, the dependent the interrupted run did not emit", emitted, st.FilesReextracted)
	}
}
