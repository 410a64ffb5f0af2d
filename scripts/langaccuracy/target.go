package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/cos-dev/cos/scripts/internal/acc"
)

// Pinned versions: the indexers and the npm packages measured.
const (
	scipPythonPkg     = "@sourcegraph/scip-python@0.6.6"
	scipTypescriptPkg = "@sourcegraph/scip-typescript@0.4.0"
)

// target is one folder to measure.
type target struct {
	Name string
	Lang lang
	// Package is an npm name@version whose tarball's Sub folder is
	// measured; empty for a Python standard library package.
	Package string
	// Sub is the folder inside the package (npm: relative to the
	// tarball's package/; Python: the stdlib package's name).
	Sub string
}

func defaultTargets() []target {
	return []target{
		{Name: "json", Lang: langPython, Sub: "json"},
		{Name: "http", Lang: langPython, Sub: "http"},
		{Name: "email", Lang: langPython, Sub: "email"},
		{Name: "asyncio", Lang: langPython, Sub: "asyncio"},
		{Name: "rxjs", Lang: langTS, Package: "rxjs@7.8.1", Sub: "src"},
		{Name: "zod", Lang: langTS, Package: "zod@3.25.76", Sub: "src/v4"},
		{Name: "express", Lang: langTS, Package: "express@4.21.2", Sub: "lib"},
	}
}

// selectTargets keeps the targets named in names.
func selectTargets(all []target, names []string) []target {
	var out []target
	for _, t := range all {
		for _, n := range names {
			if strings.TrimSpace(n) == t.Name {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

func (l lang) String() string {
	if l == langPython {
		return "Python"
	}
	return "TypeScript/JavaScript"
}

// workspace is a prepared target: Root is the folder both sides index,
// inside Tmp, which the caller removes.
type workspace struct {
	Tmp  string
	Root string
}

// prepare copies a target to its own temporary folder. Python packages
// keep their name (Root/json/decoder.py, so that imports of json.* stay
// in the target); an npm package's Sub folder becomes Root.
func prepare(ctx context.Context, t target, cache string) (workspace, error) {
	tmp, err := os.MkdirTemp("", "cos-langaccuracy-")
	if err != nil {
		return workspace{}, err
	}
	ws := workspace{Tmp: tmp, Root: filepath.Join(tmp, "target")}
	if t.Package == "" {
		lib, err := pythonStdlib(ctx)
		if err != nil {
			return ws, err
		}
		return ws, copyTree(filepath.Join(lib, t.Sub), filepath.Join(ws.Root, t.Sub))
	}
	pkg, err := npmPackage(ctx, t.Package, filepath.Join(cache, "src"))
	if err != nil {
		return ws, err
	}
	return ws, copyTree(filepath.Join(pkg, filepath.FromSlash(t.Sub)), ws.Root)
}

// pythonStdlib is the folder of this machine's Python standard library.
func pythonStdlib(ctx context.Context) (string, error) {
	out, err := command(ctx, "", nil, "python3", "-c", "import json,os;print(os.path.dirname(os.path.dirname(json.__file__)))")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// npmPackage returns the unpacked package/ folder of name@version under
// dir, fetching the tarball with npm pack on first use.
func npmPackage(ctx context.Context, spec, dir string) (string, error) {
	dst := filepath.Join(dir, strings.ReplaceAll(strings.TrimPrefix(spec, "@"), "/", "+"))
	pkg := filepath.Join(dst, "package")
	if _, err := os.Stat(filepath.Join(pkg, "package.json")); err == nil {
		return pkg, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	out, err := command(ctx, dir, nil, "npm", "pack", "--silent", spec)
	if err != nil {
		return "", err
	}
	lines := strings.Fields(strings.TrimSpace(string(out)))
	if len(lines) == 0 {
		return "", fmt.Errorf("npm pack %s printed no file name", spec)
	}
	tgz := filepath.Join(dir, lines[len(lines)-1])
	tmp := dst + ".partial"
	_ = os.RemoveAll(tmp)
	if err := untar(tgz, tmp); err != nil {
		return "", fmt.Errorf("unpack %s: %w", tgz, err)
	}
	_ = os.RemoveAll(dst)
	if err := os.Rename(tmp, dst); err != nil {
		return "", err
	}
	_ = os.Remove(tgz)
	return pkg, nil
}

// untar unpacks the regular files of a .tgz into dst.
func untar(tgz, dst string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := path.Clean(h.Name)
		if !fs.ValidPath(name) {
			return fmt.Errorf("bad path in archive: %q", h.Name)
		}
		to := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			return err
		}
	}
}

// copyTree copies regular files and folders from src to dst, leaving out
// __pycache__ folders.
func copyTree(src, dst string) error {
	return acc.CopyTree(src, dst, func(d fs.DirEntry) bool { return d.Name() == "__pycache__" })
}

// command runs name in dir and returns its stdout; env entries are added
// to the environment.
func command(ctx context.Context, dir string, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = "..." + msg[len(msg)-2000:]
		}
		return out, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, msg)
	}
	return out, nil
}
