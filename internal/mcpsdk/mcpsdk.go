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
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/internal/testutil"
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

// writeScript writes script beside a link to the SDK and returns its path.
func writeScript(t testing.TB, script string) (dir, path string) {
	t.Helper()
	nm := Require(t)
	dir = t.TempDir()
	if err := os.Symlink(nm, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, "script.mjs")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

func run(t testing.TB, timeout time.Duration, script string, args ...string) ([]byte, []byte, error) {
	t.Helper()
	dir, path := writeScript(t, script)
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

// Proc is a script Start runs, for tests that act between its steps (a
// server restart): the script prints a line when it reaches a step and
// reads a line from stdin to go on.
type Proc struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr testutil.SyncBuffer
}

// Start runs script like Run but returns at once; the script is killed
// after timeout, or when the test ends.
func Start(t testing.TB, timeout time.Duration, script string, args ...string) *Proc {
	t.Helper()
	dir, path := writeScript(t, script)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	p := &Proc{t: t, lines: make(chan string, 64)}
	p.cmd = exec.CommandContext(ctx, "node", append([]string{path}, args...)...)
	p.cmd.Dir = dir
	p.cmd.Stderr = &p.stderr
	in, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdin = in
	if err := p.cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		cancel()
		_ = p.cmd.Wait()
	})
	return p
}

// Stderr returns what the script wrote on stderr so far.
func (p *Proc) Stderr() string { return p.stderr.String() }

// Send writes line to the script's stdin.
func (p *Proc) Send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatalf("writing to the script: %v\nstderr:\n%s", err, p.Stderr())
	}
}

// Expect reads stdout lines until one starts with prefix and returns it;
// the script ending first or d passing fails the test.
func (p *Proc) Expect(prefix string, d time.Duration) string {
	p.t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	var seen []string
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("the script ended before printing %q; it printed %q\nstderr:\n%s", prefix, seen, p.Stderr())
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
			seen = append(seen, l)
		case <-timer.C:
			p.t.Fatalf("the script printed no %q in %s; it printed %q\nstderr:\n%s", prefix, d, seen, p.Stderr())
		}
	}
}
