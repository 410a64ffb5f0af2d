package boltlog

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs the tests and then checks that no goroutine outlives them
// (every Log's committer stops on Close). The multi-process tests
// re-execute the test binary with COS_EVENTLOG_CHILD set; TestMain then
// runs the child's role instead of the tests.
func TestMain(m *testing.M) {
	if role := os.Getenv("COS_EVENTLOG_CHILD"); role != "" {
		if err := runChild(role, strings.Split(os.Getenv("COS_EVENTLOG_ARGS"), ",")); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m,
		// bleve starts its analysis workers when its package is
		// initialised (the contract suite's state.Log brings package state,
		// and with it search, into this binary); they are bleve's, live for
		// the whole process and hold nothing of ours.
		goleak.IgnoreTopFunction("github.com/blevesearch/bleve_index_api.AnalysisWorker"))
}
