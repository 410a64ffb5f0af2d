package tools

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/cos-dev/cos/internal/cosbin"
)

// cosBin is the cos binary TestMain builds once for the tests that run
// real cos processes.
var cosBin string

// TestMain builds the binary, runs the tests and then checks that every
// state a test opened was closed: no goroutine of ours (tailer, snapshot
// loop, search follower, bus) outlives them.
func TestMain(m *testing.M) {
	cosbin.Main(m, &cosBin, func() error {
		// bleve's analysis workers start with its package and live for
		// the whole process.
		return goleak.Find(goleak.IgnoreTopFunction("github.com/blevesearch/bleve_index_api.AnalysisWorker"))
	})
}
