package extract

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/cos-dev/cos/graph"
)

func TestTmpGOROOT(t *testing.T) {
	cache := t.TempDir()
	prev := map[string]string{}
	for round := 0; round < 2; round++ {
		start := time.Now()
		n := 0
		st, err := Run(context.Background(), runtime.GOROOT()+"/src", Options{CacheDir: cache}, prev, func(b []graph.FileExtracted, rm []string) error {
			for _, p := range b {
				prev[p.Path] = p.ContentHash
				n++
			}
			return nil
		})
		t.Logf("round %d: %v err=%v emitted=%d stats=%+v", round, time.Since(start), err, n, st.FilesChanged)
		t.Logf("nodes %d edges %d parseerr %d skipped %d failed %d slow %v", st.Nodes, st.Edges, st.FilesWithParseErrors, st.FilesSkipped, st.FilesFailed, st.Slowest[:min(3, len(st.Slowest))])
	}
}
