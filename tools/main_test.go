package tools

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/cos-dev/cos/internal/cosbin"
	"go.uber.org/goleak"
)

// cosBin is the cos binary TestMain builds once for the tests that run
// real cos processes.
var cosBin string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "cos-tools-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		if cosBin, err = cosbin.Build(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		code := m.Run()
		if code == 0 {
			// Every state a test opened was closed: no goroutine of ours
			// (tailer, snapshot loop, search follower, bus) outlives it.
			if err := goleak.Find(
				// bleve's analysis workers start with its package and live
				// for the whole process.
				goleak.IgnoreTopFunction("github.com/blevesearch/bleve_index_api.AnalysisWorker"),
			); err != nil {
				fmt.Fprintln(os.Stderr, "goleak:", err)
				return 1
			}
		}
		return code
	}()
	os.Exit(code)
}
