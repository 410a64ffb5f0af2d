package tools

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/cos-dev/cos/internal/cosbin"
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
		return m.Run()
	}()
	os.Exit(code)
}
