package scip

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Indexer is a SCIP indexer cos runs itself (cos index --precise). cos
// never installs one: it is found on PATH or in a folder the user names
// (Find).
type Indexer struct {
	// Name is the command, also the name of its npm package's binary.
	Name string
	// Package is the npm package that installs it.
	Package string
	// Exts are the file extensions (lower case, with the dot) it indexes.
	Exts []string
}

// The indexers cos runs.
var (
	// Python is scip-python (pyright underneath). It is run with an
	// --environment file that lists no package, so it never runs pip.
	Python = Indexer{Name: "scip-python", Package: "@sourcegraph/scip-python", Exts: []string{".py", ".pyi"}}
	// TypeScript is scip-typescript (tsc underneath); it indexes
	// JavaScript too.
	TypeScript = Indexer{Name: "scip-typescript", Package: "@sourcegraph/scip-typescript",
		Exts: []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}}
	// Indexers lists them.
	Indexers = []Indexer{Python, TypeScript}
)

// Indexes reports whether the indexer indexes files named like p.
func (ix Indexer) Indexes(p string) bool {
	ext := strings.ToLower(filepath.Ext(p))
	for _, e := range ix.Exts {
		if e == ext {
			return true
		}
	}
	return false
}

// Find returns the path of the indexer's executable: in dir when dir is
// set (dir/NAME, dir/node_modules/.bin/NAME, dir/bin/NAME — so a folder
// given to npm install --prefix works), else on PATH.
//
// Errors: ErrNoToolsFolder when dir is set and is not a folder (a typo is
// not hidden by an indexer on PATH); ErrIndexerMissing, saying where it
// looked and how to install it.
func Find(ix Indexer, dir string) (string, error) {
	if dir != "" {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			what := "does not exist"
			if err == nil {
				what = "is not a folder"
			}
			return "", fmt.Errorf("%w: %s %s", ErrNoToolsFolder, dir, what)
		}
		for _, p := range []string{filepath.Join(dir, ix.Name), filepath.Join(dir, "node_modules", ".bin", ix.Name), filepath.Join(dir, "bin", ix.Name)} {
			if exe, err := exec.LookPath(p); err == nil {
				return exe, nil
			}
		}
	}
	if exe, err := exec.LookPath(ix.Name); err == nil {
		return exe, nil
	}
	where := "on PATH"
	if dir != "" {
		where = fmt.Sprintf("in %s (nor its node_modules/.bin or bin) or on PATH", dir)
	}
	return "", fmt.Errorf("%w: %s is not %s; install it with npm install -g %s (or npm install --prefix DIR %s and pass --scip-tools DIR)",
		ErrIndexerMissing, ix.Name, where, ix.Package, ix.Package)
}

// DefaultTimeout bounds one indexer run.
const DefaultTimeout = 10 * time.Minute

// maxOutput is how much of an indexer's output (the end of it) an error
// quotes.
const maxOutput = 4 << 10

// RunOptions tune RunIndexer. The zero value is valid.
type RunOptions struct {
	// Timeout bounds the run; 0 means DefaultTimeout. On timeout the
	// indexer and its children are killed.
	Timeout time.Duration
	// Exclude are folder base names the tsconfig cos writes for
	// scip-typescript leaves out (node_modules always).
	Exclude []string
}

// RunIndexer runs the indexer exe over root (an absolute folder) and
// returns the path of the index it wrote, in workDir (a folder of the
// caller's, outside root). Nothing is written inside root, and nothing is
// fetched:
//
//   - scip-python index --cwd ROOT --project-name cos --project-version 0
//     --environment WORKDIR/environment.json --output … --quiet, where
//     environment.json lists no package ("[]"): pyright's bundled typeshed
//     stubs stand for the standard library, and pip is never run.
//   - scip-typescript index --cwd ROOT --output … --no-progress-bar, with
//     ROOT/tsconfig.json (or ROOT/jsconfig.json) when there is one, else
//     with WORKDIR/tsconfig.json, which includes ROOT/**/* with allowJs (so
//     JavaScript is indexed beside TypeScript), bundler module resolution
//     (extensionless and .js specifiers find .ts files), and excludes
//     node_modules and opts.Exclude. (scip-typescript's own --infer-tsconfig would write
//     tsconfig.json into ROOT, and leave JavaScript out of a tree that has
//     any TypeScript.)
//
// Errors: ErrIndexerFailed (it exited with an error, was killed, or wrote
// no index; the error quotes the end of its output), ErrIndexerTimeout,
// ctx.Err().
func RunIndexer(ctx context.Context, ix Indexer, exe, root, workDir string, opts RunOptions) (string, error) {
	out := filepath.Join(workDir, ix.Name+".scip")
	var args []string
	switch ix.Name {
	case Python.Name:
		env := filepath.Join(workDir, "environment.json")
		if err := os.WriteFile(env, []byte("[]\n"), 0o644); err != nil {
			return "", err
		}
		args = []string{"index", "--cwd", root, "--project-name", "cos", "--project-version", "0", "--environment", env, "--output", out, "--quiet"}
	case TypeScript.Name:
		args = []string{"index", "--cwd", root, "--output", out, "--no-progress-bar"}
		switch {
		case fileExists(filepath.Join(root, "tsconfig.json")):
		case fileExists(filepath.Join(root, "jsconfig.json")):
			args = append(args, filepath.Join(root, "jsconfig.json"))
		default:
			cfg, err := writeTSConfig(workDir, root, opts.Exclude)
			if err != nil {
				return "", err
			}
			args = append(args, cfg)
		}
	default:
		return "", fmt.Errorf("%w: cos does not know how to run %s", ErrIndexerFailed, ix.Name)
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, exe, args...)
	cmd.Dir = root
	var tail tailBuffer
	cmd.Stdout, cmd.Stderr = &tail, &tail
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	killGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return "", ctx.Err()
	case runCtx.Err() != nil:
		return "", fmt.Errorf("%w: %s did not finish in %s (killed)%s", ErrIndexerTimeout, ix.Name, timeout, tail.quote())
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("%w: %s: %v%s", ErrIndexerFailed, ix.Name, ee, tail.quote())
		}
		return "", fmt.Errorf("%w: %s: %v", ErrIndexerFailed, ix.Name, err)
	}
	if !fileExists(out) {
		return "", fmt.Errorf("%w: %s exited without writing an index%s", ErrIndexerFailed, ix.Name, tail.quote())
	}
	return out, nil
}

// writeTSConfig writes the tsconfig.json scip-typescript indexes a tree
// without one with.
func writeTSConfig(workDir, root string, exclude []string) (string, error) {
	glob := func(s string) string { return filepath.ToSlash(filepath.Join(root, s)) }
	ex := []string{glob("**/node_modules")}
	for _, d := range exclude {
		if d != "" && d != "node_modules" && !strings.ContainsAny(d, "*?/\\") {
			ex = append(ex, glob("**/"+d))
		}
	}
	cfg := map[string]any{
		"compilerOptions": map[string]any{
			"allowJs": true, "checkJs": false, "noEmit": true, "skipLibCheck": true, "strict": true,
			"target": "esnext", "module": "esnext", "moduleResolution": "bundler", "jsx": "preserve",
			"allowImportingTsExtensions": true, "resolveJsonModule": true, "esModuleInterop": true,
			"experimentalDecorators": true, "maxNodeModuleJsDepth": 0,
		},
		"include": []string{glob("**/*")},
		"exclude": ex,
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return "", err
	}
	p := filepath.Join(workDir, "tsconfig.json")
	return p, os.WriteFile(p, append(b, '\n'), 0o644)
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// tailBuffer keeps the last maxOutput bytes written to it.
type tailBuffer struct {
	// mu guards b: stdout and stderr are copied by two goroutines.
	mu sync.Mutex
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2*maxOutput {
		t.b = append([]byte(nil), t.b[len(t.b)-maxOutput:]...)
	}
	return len(p), nil
}

// quote returns ": <the last lines of output>", "" when there is none.
func (t *tailBuffer) quote() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.b)
	if len(s) > maxOutput {
		s = s[len(s)-maxOutput:]
	}
	s = strings.TrimSpace(strings.ToValidUTF8(s, "?"))
	if s == "" {
		return ""
	}
	return ": " + s
}
