package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cos-dev/cos/scripts/internal/acc"
)

// cobraModule is the third-party module measured by default: a real
// module with dependencies (pflag) outside the standard library.
const cobraModule = "github.com/spf13/cobra@v1.8.1"

// target is one folder to measure.
type target struct {
	Name string
	// Dir is the folder; empty when Module is set.
	Dir string
	// Module is a module@version fetched with go mod download and copied
	// to a temporary folder (the module cache is read-only).
	Module string
	// Env holds KEY=VALUE pairs set for both sides.
	Env []string
}

func defaultTargets(goroot string) []target {
	src := filepath.Join(goroot, "src")
	return []target{
		{Name: "net/http", Dir: filepath.Join(src, "net", "http")},
		{Name: "encoding/json", Dir: filepath.Join(src, "encoding", "json")},
		{Name: "encoding/json (jsonv2)", Dir: filepath.Join(src, "encoding", "json"), Env: []string{"GOEXPERIMENT=jsonv2"}},
		{Name: "go/types", Dir: filepath.Join(src, "go", "types")},
		{Name: "cobra", Module: cobraModule},
	}
}

// selectTargets keeps the targets named in names (exact names, or a name
// that is a prefix up to a space: "encoding/json" selects both runs).
func selectTargets(all []target, names []string) []target {
	var out []target
	for _, t := range all {
		for _, n := range names {
			n = strings.TrimSpace(n)
			if t.Name == n || strings.HasPrefix(t.Name, n+" ") {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// resolve returns the folder to index and a cleanup function.
func (t target) resolve(ctx context.Context) (string, func(), error) {
	if t.Module == "" {
		return t.Dir, func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "cos-accuracy-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { _ = os.RemoveAll(tmp) }
	dir, err := fetchModule(ctx, t.Module, tmp)
	if err != nil {
		cleanup()
		return "", nil, err
	}
	return dir, cleanup, nil
}

// fetchModule downloads module@version into the module cache, copies it
// under tmp (writable) and downloads its dependencies there, so that go
// list resolves every import.
func fetchModule(ctx context.Context, module, tmp string) (string, error) {
	out, err := goCmd(ctx, tmp, "mod", "download", "-json", module)
	if err != nil {
		return "", err
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil {
		return "", fmt.Errorf("go mod download -json %s: %w", module, err)
	}
	if info.Error != "" || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", module, info.Error)
	}
	path, _, _ := strings.Cut(module, "@")
	dst := filepath.Join(tmp, filepath.Base(path))
	if err := acc.CopyTree(info.Dir, dst, nil); err != nil {
		return "", err
	}
	if _, err := goCmd(ctx, dst, "mod", "download"); err != nil {
		return "", err
	}
	return dst, nil
}

// goCmd runs the go command in dir and returns its stdout.
func goCmd(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("go %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// goEnv returns one go env variable.
func goEnv(ctx context.Context, name string) (string, error) {
	out, err := goCmd(ctx, ".", "env", name)
	if err != nil {
		return "", err
	}
	v := strings.TrimSpace(string(out))
	if v == "" {
		return "", fmt.Errorf("go env %s is empty", name)
	}
	return v, nil
}
