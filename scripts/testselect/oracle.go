package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// testKey is one test function: its package folder as go test names it
// ("./" or "./doc") and its name.
type testKey struct{ Pkg, Name string }

func (k testKey) String() string { return k.Pkg + " " + k.Name }

// oracle is the per-test coverage truth of one commit.
type oracle struct {
	Commit, Parent string
	Worktree       string `json:"-"`
	// ChangedLines counts the lines the commit added or changed in Go
	// files (new side).
	ChangedLines int
	// Suite lists the test functions of each package.
	Suite map[string][]string
	// Covering maps each test that covers a changed line to those lines
	// ("file:line").
	Covering map[string][]string `json:"Covering"`
	covering map[testKey][]string
}

func (o *oracle) suiteSize() int {
	n := 0
	for _, l := range o.Suite {
		n += len(l)
	}
	return n
}

// oracleOf computes (or reads from cache) the oracle of commit.
func oracleOf(ctx context.Context, repo, commit, cache string) (*oracle, error) {
	dir := filepath.Join(cache, commit[:12])
	wt := filepath.Join(dir, "wt")
	if _, err := os.Stat(wt); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if _, err := command(ctx, repo, "git", "worktree", "add", "--detach", wt, commit); err != nil {
			return nil, err
		}
	}
	saved := filepath.Join(dir, "oracle.json")
	if b, err := os.ReadFile(saved); err == nil {
		var o oracle
		if err := json.Unmarshal(b, &o); err == nil {
			o.Worktree = wt
			o.index()
			return &o, nil
		}
	}
	parent, err := gitLines(ctx, wt, "rev-parse", commit+"^")
	if err != nil {
		return nil, err
	}
	o := &oracle{Commit: commit, Parent: parent[0], Worktree: wt, Suite: map[string][]string{}, covering: map[testKey][]string{}}
	changed, err := changedLines(ctx, wt, o.Parent, commit)
	if err != nil {
		return nil, err
	}
	for _, l := range changed {
		o.ChangedLines += len(l)
	}
	module, err := command(ctx, wt, "go", "list", "-m")
	if err != nil {
		return nil, err
	}
	module = strings.TrimSpace(module)
	pkgs, err := gitLinesCmd(ctx, wt, "go", "list", "-f", "{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}", "./...")
	if err != nil {
		return nil, err
	}
	for _, ip := range pkgs {
		rel := "./" + strings.TrimPrefix(strings.TrimPrefix(ip, module), "/")
		tag := strings.NewReplacer("/", "_", ".", "_").Replace(rel)
		bin := filepath.Join(dir, tag+".test")
		if _, err := os.Stat(bin); err != nil {
			if _, err := command(ctx, wt, "go", "test", "-p", "1", "-c", "-covermode=set", "-coverpkg=./...", "-o", bin, rel); err != nil {
				return nil, err
			}
		}
		pdir := filepath.Join(wt, rel)
		names, err := gitLinesCmd(ctx, pdir, bin, "-test.list", ".*")
		if err != nil {
			return nil, err
		}
		profs := filepath.Join(dir, "prof", tag)
		if err := os.MkdirAll(profs, 0o755); err != nil {
			return nil, err
		}
		for _, name := range names {
			if strings.HasPrefix(name, "Benchmark") || strings.HasPrefix(name, "ok ") || strings.Contains(name, " ") {
				continue
			}
			o.Suite[rel] = append(o.Suite[rel], name)
			prof := filepath.Join(profs, name+".out")
			if _, err := os.Stat(prof); err != nil {
				// A failing test still writes its profile.
				_, _ = command(ctx, pdir, bin, "-test.run", "^"+regexp.QuoteMeta(name)+"$", "-test.count=1",
					"-test.timeout=120s", "-test.coverprofile="+prof)
			}
			lines, err := coveredChanged(prof, module, changed)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", rel, name, err)
			}
			if len(lines) > 0 {
				o.covering[testKey{rel, name}] = lines
			}
		}
	}
	o.Covering = map[string][]string{}
	for k, v := range o.covering {
		o.Covering[k.String()] = v
	}
	b, err := json.MarshalIndent(o, "", " ")
	if err != nil {
		return nil, err
	}
	return o, os.WriteFile(saved, b, 0o644)
}

// index rebuilds covering from its saved form.
func (o *oracle) index() {
	o.covering = map[testKey][]string{}
	for k, v := range o.Covering {
		pkg, name, _ := strings.Cut(k, " ")
		o.covering[testKey{pkg, name}] = v
	}
}

func gitLinesCmd(ctx context.Context, dir, name string, args ...string) ([]string, error) {
	out, err := command(ctx, dir, name, args...)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

var hunkRE = regexp.MustCompile(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@`)

// changedLines returns the lines of each Go file (repo-relative) that the
// diff parent..commit adds or changes, in the commit's version.
func changedLines(ctx context.Context, dir, parent, commit string) (map[string]map[int]bool, error) {
	out, err := command(ctx, dir, "git", "diff", "-U0", "--no-color", parent, commit, "--", "*.go")
	if err != nil {
		return nil, err
	}
	res := map[string]map[int]bool{}
	file := ""
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ "):
			file = strings.TrimPrefix(strings.TrimPrefix(l, "+++ "), "b/")
			if file == "/dev/null" {
				file = ""
			}
		case strings.HasPrefix(l, "@@") && file != "":
			m := hunkRE.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			start, _ := strconv.Atoi(m[1])
			count := 1
			if m[2] != "" {
				count, _ = strconv.Atoi(m[2])
			}
			for i := 0; i < count; i++ {
				if res[file] == nil {
					res[file] = map[int]bool{}
				}
				res[file][start+i] = true
			}
		}
	}
	return res, nil
}

// coveredChanged returns the changed lines ("file:line") a coverage
// profile counts as run: a line inside a block with a non-zero count.
func coveredChanged(prof, module string, changed map[string]map[int]bool) ([]string, error) {
	f, err := os.Open(prof)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // the test binary wrote none (it crashed early)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	hit := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "mode:") {
			continue
		}
		// name.go:line.col,line.col numStmt count
		colon := strings.LastIndex(l, ":")
		if colon < 0 {
			continue
		}
		file := strings.TrimPrefix(strings.TrimPrefix(l[:colon], module), "/")
		lines := changed[file]
		if lines == nil {
			continue
		}
		fields := strings.Fields(l[colon+1:])
		if len(fields) != 3 || fields[2] == "0" {
			continue
		}
		from, to, ok := strings.Cut(fields[0], ",")
		if !ok {
			continue
		}
		a, _ := strconv.Atoi(strings.Split(from, ".")[0])
		b, _ := strconv.Atoi(strings.Split(to, ".")[0])
		for ln := a; ln <= b; ln++ {
			if lines[ln] {
				hit[fmt.Sprintf("%s:%d", file, ln)] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(hit)), sc.Err()
}
