package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Indexer commands, as npm installs them.
const (
	scipPythonBin     = "scip-python"
	scipTypescriptBin = "scip-typescript"
)

// tsconfig is written beside (not inside) a TypeScript or JavaScript
// target so that both sides see the same files: the indexer's project
// folder holds it and includes ../target. allowJs makes the same project
// index plain JavaScript (express).
const tsconfig = `{
  "compilerOptions": {
    "target": "es2022",
    "module": "esnext",
    "moduleResolution": "bundler",
    "lib": ["es2022", "dom"],
    "allowJs": true,
    "skipLibCheck": true,
    "noEmit": true,
    "strict": true,
    "experimentalDecorators": true
  },
  "include": ["../target/**/*"]
}
`

// toolSet locates the SCIP indexers.
type toolSet struct {
	// Dir is the folder given with -scip-tools; empty to look on PATH and
	// in the cache, installing with npm there when missing.
	Dir   string
	Cache string
	// NoInstall: a missing indexer is an error (errNoTool) instead of
	// being installed with npm.
	NoInstall bool
	Log       io.Writer
}

// errNoTool is returned when an indexer is not found and may not be
// installed.
var errNoTool = errors.New("SCIP indexer not found")

// find returns the path of an indexer command.
func (ts toolSet) find(ctx context.Context, bin string) (string, error) {
	if ts.Dir != "" {
		for _, p := range []string{bin, filepath.Join("node_modules", ".bin", bin), filepath.Join("bin", bin)} {
			if fi, err := os.Stat(filepath.Join(ts.Dir, p)); err == nil && !fi.IsDir() {
				return filepath.Join(ts.Dir, p), nil
			}
		}
		return "", fmt.Errorf("%s not found in -scip-tools %s (looked for %s, node_modules/.bin/%s, bin/%s)", bin, ts.Dir, bin, bin, bin)
	}
	if p, err := exec.LookPath(bin); err == nil {
		return p, nil
	}
	tools := filepath.Join(ts.Cache, "tools")
	p := filepath.Join(tools, "node_modules", ".bin", bin)
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	if ts.NoInstall {
		return "", fmt.Errorf("%s: %w (not on PATH nor in %s)", bin, errNoTool, tools)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", fmt.Errorf("%s is not on PATH and npm is missing to install it: %w", bin, err)
	}
	fmt.Fprintf(ts.Log, "== installing %s and %s with npm into %s\n", scipPythonPkg, scipTypescriptPkg, tools)
	if err := os.MkdirAll(tools, 0o755); err != nil {
		return "", err
	}
	if _, err := command(ctx, tools, nil, "npm", "install", "--no-audit", "--no-fund", "--prefix", tools, scipPythonPkg, scipTypescriptPkg); err != nil {
		return "", err
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("npm install did not provide %s: %w", bin, err)
	}
	return p, nil
}

// errNoIndex is returned when an indexer exits without writing its index.
var errNoIndex = errors.New("the indexer wrote no index")

// runIndexer runs the SCIP indexer of the target's language on ws.Root and
// returns the index file and the indexer's wall time.
func runIndexer(ctx context.Context, ts toolSet, t target, ws workspace) (string, time.Duration, error) {
	out := filepath.Join(ws.Tmp, "index.scip")
	var args []string
	var bin string
	if t.Lang == langPython {
		bin = scipPythonBin
		env := filepath.Join(ws.Tmp, "environment.json")
		// An empty environment: scip-python asks pip for installed
		// packages when none is given.
		if err := os.WriteFile(env, []byte("[]\n"), 0o644); err != nil {
			return "", 0, err
		}
		args = []string{"index", "--project-name", t.Name, "--project-version", "0", "--output", out, "--environment", env, "--quiet"}
	} else {
		bin = scipTypescriptBin
		proj := filepath.Join(ws.Tmp, "project")
		if err := os.MkdirAll(proj, 0o755); err != nil {
			return "", 0, err
		}
		if err := os.WriteFile(filepath.Join(proj, "tsconfig.json"), []byte(tsconfig), 0o644); err != nil {
			return "", 0, err
		}
		args = []string{"index", "--cwd", ws.Root, "--output", out, "--no-progress-bar", proj}
	}
	path, err := ts.find(ctx, bin)
	if err != nil {
		return "", 0, err
	}
	start := time.Now()
	_, err = command(ctx, ws.Root, nil, path, args...)
	took := time.Since(start)
	if err != nil {
		return "", took, err
	}
	if _, err := os.Stat(out); err != nil {
		return "", took, fmt.Errorf("%s: %w", bin, errNoIndex)
	}
	return out, took, nil
}
