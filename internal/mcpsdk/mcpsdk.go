// Package mcpsdk runs Node.js scripts against the official MCP TypeScript
// SDK's client (@modelcontextprotocol/sdk, pinned at Version), for tests
// that check cos's MCP behaviour with the client most agents use.
//
// The SDK is installed outside the repository (.ci/run installs it with
// npm into the folder COS_MCP_SDK names, beside the SCIP indexers); cos
// itself never installs it. Without it a test skips, or fails when CI is
// set, so CI can never pass without running these tests.
package mcpsdk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Version is the SDK version the tests pin (.ci/run installs it).
const Version = "1.32.2"

// Env names the npm prefix folder whose node_modules holds the SDK.
const Env = "COS_MCP_SDK"

// NodeModules is the node_modules folder holding the pinned SDK, or the
// reason there is none.
func NodeModules() (string, error) {
	prefix := os.Getenv(Env)
	if prefix == "" {
		return "", fmt.Errorf("%s is not set (npm install --prefix DIR @modelcontextprotocol/sdk@%s, then %s=DIR)", Env, Version, Env)
	}
	nm := filepath.Join(prefix, "node_modules")
	b, err := os.ReadFile(filepath.Join(nm, "@modelcontextprotocol", "sdk", "package.json"))
	if err != nil {
		return "", fmt.Errorf("%s: the MCP SDK is not installed there: %w", Env, err)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(b, &pkg); err != nil || pkg.Version != Version {
		return "", fmt.Errorf("%s: MCP SDK version %q, want %s", Env, pkg.Version, Version)
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", fmt.Errorf("node is not on PATH: %w", err)
	}
	return nm, nil
}

// Require is NodeModules for a test: it skips the test without the SDK,
// or fails it when the CI environment variable is set.
func Require(t testing.TB) string {
	t.Helper()
	nm, err := NodeModules()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("MCP SDK client needed under CI: %v", err)
		}
		t.Skipf("MCP SDK client: %v", err)
	}
	return nm
}

// Run writes script (an ES module) into a temporary folder that sees the
// SDK, runs it with node, args after the script's path, and returns its
// stdout. A non-zero exit fails the test with its stderr. The script
// imports the SDK as usual:
//
//	import { Client } from "@modelcontextprotocol/sdk/client/index.js";
//
// and reads its arguments from process.argv.slice(2). It is killed after
// timeout.
func Run(t testing.TB, timeout time.Duration, script string, args ...string) []byte {
	t.Helper()
	out, stderr, err := run(t, timeout, script, args...)
	if err != nil {
		t.Fatalf("node script: %v\nstderr:\n%s\nstdout:\n%s", err, stderr, out)
	}
	return out
}

// RunErr is Run that returns a failed run's error and stderr instead of
// failing the test.
func RunErr(t testing.TB, timeout time.Duration, script string, args ...string) (stdout, stderr []byte, err error) {
	t.Helper()
	return run(t, timeout, script, args...)
}

func run(t testing.TB, timeout time.Duration, script string, args ...string) ([]byte, []byte, error) {
	t.Helper()
	nm := Require(t)
	dir := t.TempDir()
	if err := os.Symlink(nm, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "script.mjs")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{path}, args...)...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("timed out after %s: %w", timeout, ctx.Err())
	}
	return stdout.Bytes(), bytes.TrimSpace(stderr.Bytes()), err
}

// Lines splits a script's stdout into its non-empty lines.
func Lines(out []byte) []string {
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}
