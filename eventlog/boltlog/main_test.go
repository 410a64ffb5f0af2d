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
	goleak.VerifyTestMain(m)
}
