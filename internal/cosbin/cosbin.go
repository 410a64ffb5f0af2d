// Package cosbin builds the cos binary for tests that run it as a real OS
// process (wire tests, multi-process tests).
package cosbin

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Build compiles ./cmd/cos of the module the working directory belongs to
// into dir and returns the binary's path.
func Build(dir string) (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside the cos module")
	}
	bin := filepath.Join(dir, "cos")
	build := exec.Command("go", "build", "-o", bin, "./cmd/cos")
	build.Dir = filepath.Dir(mod)
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build cos: %v\n%s", err, out)
	}
	return bin, nil
}

// Main is a TestMain body: it builds the binary once into a temporary
// folder, sets *bin to its path, runs the tests and, when they pass, after
// (nil: nothing; a goroutine-leak check, say), and exits with the result.
func Main(m *testing.M, bin *string, after func() error) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "cos-bin-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer func() { _ = os.RemoveAll(dir) }()
		if *bin, err = Build(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		code := m.Run()
		if code == 0 && after != nil {
			if err := after(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		return code
	}()
	os.Exit(code)
}
