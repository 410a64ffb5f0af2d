package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/cos-dev/cos/graph"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(envChildDir); dir != "" {
		os.Exit(runChild(dir))
	}
	code := m.Run()
	closeBenchFixture()
	if code == 0 {
		if err := goleak.Find(leakOptions...); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

var leakOptions = []goleak.Option{
	// bleve's package init starts a process-wide pool of analysis
	// workers (bleve/v2/config.go: index.NewAnalysisQueue(4)) that lives
	// as long as the process and belongs to no index. Every goroutine an
	// Index starts must still be gone.
	goleak.IgnoreTopFunction("github.com/blevesearch/bleve_index_api.AnalysisWorker"),
}

// memSource is a map-backed NodeSource standing in for the graph projection.
type memSource struct {
	byUID   map[string]graph.Node
	byLabel map[string][]graph.Node
}

var _ NodeSource = (*memSource)(nil)

func newMemSource(nodes []graph.Node) *memSource {
	s := &memSource{byUID: map[string]graph.Node{}, byLabel: map[string][]graph.Node{}}
	for _, n := range nodes {
		s.byUID[n.UID] = n
		s.byLabel[n.Label] = append(s.byLabel[n.Label], n)
	}
	return s
}

func (s *memSource) Node(uid string) (graph.Node, bool) { n, ok := s.byUID[uid]; return n, ok }

func (s *memSource) NodesByLabel(label string) []graph.Node { return s.byLabel[label] }

// openTestIndex opens an index under dir (a fresh temp dir when empty) and
// closes it in t.Cleanup.
func openTestIndex(tb testing.TB, dir string) *Index {
	tb.Helper()
	if dir == "" {
		dir = filepath.Join(tb.TempDir(), "search")
	}
	ix, err := OpenIndex(context.Background(), Options{Dir: dir})
	if err != nil {
		tb.Fatalf("OpenIndex: %v", err)
	}
	tb.Cleanup(func() {
		if err := ix.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return ix
}

// indexWith opens a fresh index holding nodes at seq 1.
func indexWith(tb testing.TB, nodes []graph.Node) *Index {
	tb.Helper()
	ix := openTestIndex(tb, "")
	if err := ix.Apply(context.Background(), nodes, nil, 1); err != nil {
		tb.Fatalf("Apply: %v", err)
	}
	return ix
}
