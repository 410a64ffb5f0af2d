package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cos-dev/cos/scripts/internal/acc"
	"github.com/cos-dev/cos/scripts/internal/calloracle"
)

// project is a C or C++ project fetched at a fixed commit.
type project struct {
	Name, Language, Repo, Commit string
	// Units are globs (relative to the checkout) of the translation
	// units; Exclude globs match file names left out.
	Units, Exclude []string
	// Args are the compiler arguments of every unit.
	Args []string
}

// projects are the default targets.
var projects = []project{
	{
		Name: "lua", Language: "C", Repo: "lua/lua", Commit: "53b41d0cddd80bf33fdc631bdd32e3ba53842b89",
		Units:   []string{"*.c"},
		Exclude: []string{"onelua.c"}, // #includes every other .c file
		Args:    []string{"-std=c99", "-DLUA_USE_LINUX"},
	},
	{
		Name: "leveldb", Language: "C++", Repo: "google/leveldb", Commit: "78a352f47ed6c1e9d750545e9b242289185b87e1",
		Units:   []string{"db/*.cc", "table/*.cc", "util/*.cc", "helpers/memenv/*.cc"},
		Exclude: []string{"*_test.cc", "*_bench.cc", "env_windows.cc", "testutil.cc"},
		Args:    []string{"-std=c++17", "-I.", "-Iinclude", "-DLEVELDB_PLATFORM_POSIX=1", "-DLEVELDB_IS_BIG_ENDIAN=0"},
	},
}

func main() { acc.Main("clangaccuracy", run) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("clangaccuracy", flag.ContinueOnError)
	fl.SetOutput(stderr)
	verbose := fl.Bool("v", false, "list missed, false-positive and unjudged edges")
	top := fl.Int("top", 10, "edges listed per row with -v")
	jsonOut := fl.String("json", "", "also write the raw numbers to this file")
	only := fl.String("project", "", "comma-separated projects: "+names())
	dir := fl.String("dir", "", "measure this folder instead: its compile_commands.json, else every .c/.cc/.cpp file with -I for each folder holding headers")
	lang := fl.String("lang", "C", "with -dir: the language printed")
	clang := fl.String("clang", "", "the clang to run (default: clang-14, then clang, on PATH)")
	oracleOut := fl.String("oracle-out", "", "also write the oracle's JSON lines to this file (one project)")
	oracleIn := fl.String("oracle-in", "", "read the oracle's JSON lines from this file instead of running clang (one project)")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: clangaccuracy [-v] [-top N] [-json FILE] [-project NAMES] [-dir DIR [-lang C++]] [-clang PATH] [-oracle-out FILE] [-oracle-in FILE]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return acc.ErrUsage
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "clangaccuracy: unexpected argument %q\n", fl.Arg(0))
		return acc.ErrUsage
	}
	targets, err := choose(*only, *dir, *lang)
	if err != nil {
		fmt.Fprintln(stderr, "clangaccuracy:", err)
		return acc.ErrUsage
	}
	bin := *clang
	if bin == "" && *oracleIn == "" {
		if bin, err = findClang(); err != nil {
			return err
		}
	}
	cache, err := calloracle.CacheDir()
	if err != nil {
		return err
	}
	rep := acc.NewReport[calloracle.Result]()
	for _, p := range targets {
		root := p.Repo // -dir
		if p.Commit != "" {
			if root, err = calloracle.Fetch(ctx, cache, p.Name, p.Repo, p.Commit, stderr); err != nil {
				return err
			}
		}
		res, err := measure(ctx, p, bin, root, *oracleIn, *oracleOut, *top, stderr)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Name, err)
		}
		rep.Targets = append(rep.Targets, res)
		calloracle.WriteResult(stdout, res, *verbose)
	}
	calloracle.WriteSummary(stdout, "clang (-ast-dump=json)", rep.Targets)
	if *jsonOut != "" {
		return acc.WriteJSON(*jsonOut, rep)
	}
	return nil
}

func names() string {
	var n []string
	for _, p := range projects {
		n = append(n, p.Name)
	}
	return strings.Join(n, ",")
}

func choose(only, dir, lang string) ([]project, error) {
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		return []project{{Name: filepath.Base(abs), Language: lang, Repo: abs}}, nil
	}
	if only == "" {
		return projects, nil
	}
	var out []project
	for _, n := range strings.Split(only, ",") {
		found := false
		for _, p := range projects {
			if p.Name == n {
				out = append(out, p)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("-project %q: no such project (%s)", n, names())
		}
	}
	return out, nil
}

// findClang looks for clang-14, then clang.
func findClang() (string, error) {
	for _, n := range []string{"clang-14", "clang"} {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", errors.New("clang is not on PATH: install it (Debian: apt-get install clang-14) or pass -clang")
}

// units lists a project's translation units: its compile_commands.json,
// its globs, or (for -dir) every C/C++ source with a -I per header folder.
func units(p project, root string) ([]unit, error) {
	if us, ok, err := compileCommands(root); ok || err != nil {
		return us, err
	}
	if len(p.Units) > 0 {
		var out []unit
		for _, g := range p.Units {
			ms, err := filepath.Glob(filepath.Join(root, g))
			if err != nil {
				return nil, err
			}
			for _, m := range ms {
				if excluded(filepath.Base(m), p.Exclude) {
					continue
				}
				rel, _ := filepath.Rel(root, m)
				out = append(out, unit{File: rel, Args: p.Args})
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
		return out, nil
	}
	var files []string
	incl := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		switch filepath.Ext(path) {
		case ".c", ".cc", ".cpp", ".cxx":
			files = append(files, rel)
		case ".h", ".hh", ".hpp":
			incl["-I"+filepath.Dir(rel)] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var args []string
	for a := range incl {
		args = append(args, a)
	}
	sort.Strings(args)
	var out []unit
	for _, f := range files {
		out = append(out, unit{File: f, Args: args})
	}
	return out, nil
}

func excluded(name string, globs []string) bool {
	for _, g := range globs {
		if ok, _ := filepath.Match(g, name); ok {
			return true
		}
	}
	return false
}

// measure runs the oracle and cos on root and compares them.
func measure(ctx context.Context, p project, clang, root, oracleIn, oracleOut string, top int, stderr io.Writer) (calloracle.Result, error) {
	res := calloracle.Result{Name: p.Name, Language: p.Language, Oracle: clangVersion(ctx, clang), Source: p.Repo}
	if p.Commit != "" {
		res.Source = p.Repo + "@" + p.Commit[:12] + " " + strings.Join(p.Units, ",")
	}
	var lines []byte
	if oracleIn != "" {
		b, err := os.ReadFile(oracleIn)
		if err != nil {
			return res, err
		}
		lines = b
	} else {
		us, err := units(p, root)
		if err != nil {
			return res, err
		}
		fmt.Fprintf(stderr, "== %s: clang oracle, %d translation units\n", p.Name, len(us))
		start := time.Now()
		var buf bytes.Buffer
		if _, err := runOracle(ctx, clang, root, us, &buf, stderr); err != nil {
			return res, err
		}
		res.OracleSeconds = time.Since(start).Seconds()
		lines = buf.Bytes()
	}
	if oracleOut != "" {
		if err := os.WriteFile(oracleOut, lines, 0o644); err != nil {
			return res, err
		}
	}
	or, err := calloracle.Read(bytes.NewReader(lines))
	if err != nil {
		return res, err
	}
	fmt.Fprintf(stderr, "== %s: cos extraction\n", p.Name)
	g, err := calloracle.RunCos(ctx, root)
	if err != nil {
		return res, err
	}
	res.CosSeconds = g.Duration.Seconds()
	res.CosFiles = g.Files
	res.OracleFiles = len(or.Files)
	res.OracleStats = or.Stats
	res.Comparison = calloracle.Compare(or, g, top)
	return res, nil
}

// clangVersion names the compiler, "clang 14.0.6".
func clangVersion(ctx context.Context, clang string) string {
	if clang == "" {
		return "clang"
	}
	out, err := exec.CommandContext(ctx, clang, "--version").Output()
	if err != nil {
		return "clang"
	}
	first, _, _ := strings.Cut(string(out), "\n")
	if i := strings.Index(first, "clang version "); i >= 0 {
		f := strings.Fields(first[i+len("clang version "):])
		if len(f) > 0 {
			return "clang " + f[0]
		}
	}
	return strings.TrimSpace(first)
}
