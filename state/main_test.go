package state

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no goroutine a State starts (tailer, snapshot loop,
// search follower, bus) outlives the tests, which close every State.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// bleve starts its analysis workers when its package is
		// initialised; they live for the whole process.
		goleak.IgnoreTopFunction("github.com/blevesearch/bleve_index_api.AnalysisWorker"))
}
