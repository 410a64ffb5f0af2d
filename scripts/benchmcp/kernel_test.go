package main

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// asBenchmcpEnv makes the test binary act as the benchmcp command, so that
// scripts/bench_kernel.sh can run end to end without a go build.
const asBenchmcpEnv = "BENCHMCP_AS_MAIN"

// tinyKernelTarball writes a linux-source-like tarball (one top folder, a
// .gitignore ending in Debian's ignore-everything block, 12 C files under
// drivers/net calling kmalloc of mm/) and returns its path.
func tinyKernelTarball(t *testing.T) string {
	t.Helper()
	files := map[string]string{
		".gitignore": "*.o\n*.ko\n\n# Rust analyzer configuration\n/rust-project.json\n\n#\n" +
			"# Debian packaging: ignore everything at the top level, since it isn't\n# included in our repository\n#\n/*\n!/debian/\n",
		"include/linux/slab.h": "void *kmalloc(unsigned long size, int flags);\nvoid kfree(const void *p);\n",
		"mm/slab_common.c":     "#include <linux/slab.h>\n\nvoid *kmalloc(unsigned long size, int flags)\n{\n\\treturn 0;\n}\n\nvoid kfree(const void *p)\n{\n}\n",
		"drivers/net/dummy.o":  "not source: ignored by the kept part of .gitignore\n",
	}
	for i := range 12 {
		files[fmt.Sprintf("drivers/net/eth%02d/main.c", i)] = fmt.Sprintf(
			"#include <linux/slab.h>\n\nstatic int eth%02d_alloc(int n)\n{\n\\treturn kmalloc(n, 0) != 0;\n}\n\nint eth%02d_open(int n)\n{\n\\tint ok = eth%02d_alloc(n);\n\\tkfree(0);\n\\treturn ok;\n}\n", i, i, i)
	}
	path := filepath.Join(t.TempDir(), "linux-source-0.0.tar.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		hdr := &tar.Header{Name: "linux-source-0.0/" + name, Mode: 0o644, Size: int64(len(body)), ModTime: time.Unix(1_700_000_000, 0)}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []interface{ Close() error }{tw, zw, f} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// wrapper writes an executable script that runs the test binary with env
// set: the test binary then acts as cos or as benchmcp.
func wrapper(t *testing.T, dir, name, env string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	body := fmt.Sprintf("#!/bin/sh\n%s=1 exec '%s' \"$@\"\n", env, exe)
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBenchKernel_TinyTarball runs scripts/bench_kernel.sh, as bench.sh
// does on Debian's linux-source tarball, on a tiny tarball of the same
// shape, with the test binary acting as cos and as benchmcp: the unpack,
// the .gitignore cut, the index runs, the 10-file edit, the cold reads and
// the MCP reads all run, and the table renders.
func TestBenchKernel_TinyTarball(t *testing.T) {
	if testing.Short() {
		t.Skip("starts cos processes")
	}
	for _, tool := range []string{"bash", "tar", "git", "gzip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not on PATH: bench_kernel.sh needs it", tool)
		}
	}
	tarball := tinyKernelTarball(t)
	bin := t.TempDir()
	cos := wrapper(t, bin, "cos", asCosEnv)
	bm := wrapper(t, bin, "benchmcp", asBenchmcpEnv)
	work := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "../bench_kernel.sh", "--tarball", tarball, "--work", work, "--cos", cos, "--benchmcp", bm,
		"--runs", "1", "--read-runs", "2", "--calls", "5")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bench_kernel.sh: %v\n%s", err, stderr.String())
	}
	rs, err := ReadJSONL(strings.NewReader(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Result{}
	for _, r := range rs {
		got[r.Table+" | "+r.Row+" | "+r.Col] = r
	}
	fig := func(table, row, col string) float64 {
		r, ok := got[table+" | "+row+" | "+col]
		if !ok || len(r.Samples) != 1 {
			t.Errorf("%s / %s / %s: %v, want one sample", table, row, col, r.Samples)
			return -1
		}
		return r.Samples[0]
	}
	editRow := "after 10 files of drivers/net edited"
	for _, row := range []string{rowKernelFull, rowKernelNoChange, editRow, rowKernelColdCall, rowKernelColdServe} {
		if w := fig(tableKernel, row, colWall); w <= 0 {
			t.Errorf("%s: wall %v s", row, w)
		}
		if rss := fig(tableKernel, row, colPeakRSS); rss <= 1 {
			t.Errorf("%s: peak RSS %v MB", row, rss)
		}
	}
	// 12 drivers, mm, the header and .gitignore itself: every file but
	// dummy.o, so the Debian block of .gitignore is gone while the rest of
	// it (*.o) still holds.
	if n := fig(tableKernel, rowKernelFull, "files extracted"); n != 15 {
		t.Errorf("full index extracted %v files, want 15 (.gitignore cut wrong?)", n)
	}
	if n := fig(tableKernel, rowKernelNoChange, "files extracted"); n != 0 {
		t.Errorf("unchanged re-index extracted %v files, want 0", n)
	}
	if n := fig(tableKernel, editRow, "files extracted"); n != 10 {
		t.Errorf("edit re-index extracted %v files, want 10", n)
	}
	for _, col := range []string{"p50", "p95"} {
		if r := got[tableReads+" | kernel: cos_graph_context (depth 1) | "+col]; len(r.Samples) != 2 || r.Median() <= 0 {
			t.Errorf("kernel reads, context %s: %v, want 2 positive samples", col, r.Samples)
		}
	}
	for _, table := range []string{tableKernel, tableReads} {
		if w := got[table+" | "+rowWindow+" | "+colWindow]; !strings.Contains(w.Text, "cores, ") || !strings.Contains(w.Text, "(load ") {
			t.Errorf("%s: window %q", table, w.Text)
		}
	}
	var table strings.Builder
	if err := renderTables(&table, rs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Linux kernel", "| after 10 files of drivers/net edited |", "_Measured on "} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	if entries, _ := os.ReadDir(work); len(entries) != 0 {
		t.Errorf("bench_kernel.sh left %d entries in its work folder", len(entries))
	}
}

// TestCold_TinyTree: `benchmcp cold` on an indexed tiny C tree records
// both cold reads of every run, and fails on a state folder that is not
// there.
func TestCold_TinyTree(t *testing.T) {
	if testing.Short() {
		t.Skip("starts cos processes")
	}
	t.Setenv(asCosEnv, "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	state := indexTiny(ctx, t, map[string]string{
		"slab.c": "void *kmalloc(unsigned long n)\n{\n\treturn 0;\n}\n\nint use(void)\n{\n\treturn kmalloc(1) != 0;\n}\n",
	})
	var jsonl strings.Builder
	if err := run(ctx, []string{"cold", "-cos", exe, "-state", state, "-runs", "2", "-label", "tiny"}, nil, &jsonl); err != nil {
		t.Fatal(err)
	}
	rs, err := ReadJSONL(strings.NewReader(jsonl.String()))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Result{}
	for _, r := range rs {
		got[r.Table+" | "+r.Row+" | "+r.Col] = r
	}
	for _, row := range []string{"tiny: " + rowColdCall, "tiny: " + rowColdServe} {
		for _, col := range []string{colWall, colCPU, colPeakRSS} {
			// CPU time comes in clock ticks: a fast process may show 0.
			if r := got[tableCold+" | "+row+" | "+col]; len(r.Samples) != 2 || r.Min() < 0 || (col != colCPU && r.Min() == 0) {
				t.Errorf("%s / %s: %v, want 2 samples, positive (CPU: not negative)", row, col, r.Samples)
			}
		}
	}
	if err := run(ctx, []string{"cold", "-cos", exe, "-state", filepath.Join(state, "missing")}, nil, &jsonl); err == nil {
		t.Error("cold on a missing state folder succeeded")
	}
}
