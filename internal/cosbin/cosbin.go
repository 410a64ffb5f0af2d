// Package cosbin builds the cos binary for tests that run it as a real OS
// process (wire tests, multi-process tests).
package cosbin

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// Build compiles ./cmd/cos of the module the working directory belongs to
// into dir and returns the binary's path.
func Build(dir string) (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == "/dev/null" {
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
