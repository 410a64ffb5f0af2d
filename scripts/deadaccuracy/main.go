package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/query"
	"github.com/cos-dev/cos/scripts/internal/acc"
	"github.com/cos-dev/cos/scripts/internal/calloracle"
)

// project is one measured Go tree.
type project struct {
	Name string
	// Repo and Commit name a GitHub project fetched with git; GoRoot a
	// folder of $(go env GOROOT)/src measured in place.
	Repo, Commit, GoRoot string
	// Filter is deadcode's -filter (empty: the module of the folder).
	Filter string
}

var projects = []project{
	{Name: "cobra", Repo: "spf13/cobra", Commit: "adbc8813901bba65827259daa8e22ff94ec1f30e"},
	{Name: "nethttp", GoRoot: "net/http", Filter: `^net/http(_test)?($|/)`},
}

func main() { acc.Main("deadaccuracy", run) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("deadaccuracy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "list the disagreements")
	top := fs.Int("top", 10, "disagreements listed per reason with -v")
	jsonOut := fs.String("json", "", "also write the raw numbers to this file")
	only := fs.String("project", "", "comma-separated projects: cobra,nethttp")
	dir := fs.String("dir", "", "measure this Go module folder instead")
	filter := fs.String("filter", "", "with -dir: deadcode's -filter")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return acc.ErrUsage
	}
	bin, err := os.MkdirTemp("", "cos-deadaccuracy")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(bin) }()
	deadcode := filepath.Join(bin, "deadcode")
	build := exec.CommandContext(ctx, "go", "build", "-o", deadcode, "golang.org/x/tools/cmd/deadcode")
	build.Stderr = stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build deadcode: %w", err)
	}
	type target struct {
		p    project
		root string
	}
	var targets []target
	if *dir != "" {
		abs, err := filepath.Abs(*dir)
		if err != nil {
			return err
		}
		targets = append(targets, target{project{Name: filepath.Base(abs), Filter: *filter}, abs})
	} else {
		for _, p := range projects {
			if *only != "" && !slices.Contains(strings.Split(*only, ","), p.Name) {
				continue
			}
			var root string
			if p.GoRoot != "" {
				out, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
				if err != nil {
					return fmt.Errorf("go env GOROOT: %w", err)
				}
				root = filepath.Join(strings.TrimSpace(string(out)), "src", filepath.FromSlash(p.GoRoot))
			} else {
				cache, err := calloracle.CacheDir()
				if err != nil {
					return err
				}
				if root, err = calloracle.Fetch(ctx, cache, p.Name, p.Repo, p.Commit, stderr); err != nil {
					return err
				}
			}
			targets = append(targets, target{p, root})
		}
	}
	rep := acc.NewReport[result]()
	for _, t := range targets {
		res, err := measure(ctx, deadcode, t.p, t.root, *top)
		if err != nil {
			return fmt.Errorf("%s: %w", t.p.Name, err)
		}
		writeResult(stdout, res, *verbose)
		rep.Targets = append(rep.Targets, res)
	}
	if *jsonOut != "" {
		return acc.WriteJSON(*jsonOut, rep)
	}
	return nil
}

// result is one project's comparison.
type result struct {
	Name       string  `json:"name"`
	Judged     int     `json:"judged"`
	OracleDead int     `json:"oracle_dead"`
	CosDead    int     `json:"cos_dead"`
	Both       int     `json:"both_dead"`
	Agreement  float64 `json:"agreement"`
	Precision  acc.Ratio
	Recall     acc.Ratio
	// Uncertain counts cos's dead findings marked uncertain.
	Uncertain int `json:"uncertain"`
	// CertainAgreement, CertainPrecision and CertainRecall count only
	// cos's certain findings as dead.
	CertainAgreement float64             `json:"certain_agreement"`
	CertainPrecision acc.Ratio           `json:"certain_precision"`
	CertainRecall    acc.Ratio           `json:"certain_recall"`
	OnlyCos          map[string][]string `json:"only_cos"`
	OnlyOracle       map[string][]string `json:"only_oracle"`
	// Unmatched are deadcode findings at no judged function.
	Unmatched []string `json:"unmatched"`
	CosTime   float64  `json:"cos_seconds"`
	OracleSec float64  `json:"oracle_seconds"`
	Files     int      `json:"files"`
}

// deadcodeJSON is deadcode -json's output.
type deadcodeJSON []struct {
	Path  string
	Funcs []struct {
		Name     string
		Position struct {
			File string
			Line int
		}
	}
}

func measure(ctx context.Context, deadcode string, p project, root string, top int) (result, error) {
	res := result{Name: p.Name, OnlyCos: map[string][]string{}, OnlyOracle: map[string][]string{}}
	args := []string{"-test", "-json"}
	if p.Filter != "" {
		args = append(args, "-filter", p.Filter)
	}
	args = append(args, "./...")
	cmd := exec.CommandContext(ctx, deadcode, args...)
	cmd.Dir = root
	var errb bytes.Buffer
	cmd.Stderr = &errb
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		return res, fmt.Errorf("deadcode: %w: %s", err, errb.String())
	}
	res.OracleSec = time.Since(start).Seconds()
	var dc deadcodeJSON
	if len(bytes.TrimSpace(out)) > 0 {
		if err := json.Unmarshal(out, &dc); err != nil {
			return res, fmt.Errorf("deadcode output: %w", err)
		}
	}
	oracle := map[string]string{} // "file:line" → name
	for _, pkg := range dc {
		for _, f := range pkg.Funcs {
			file := f.Position.File
			if filepath.IsAbs(file) {
				if rel, err := filepath.Rel(root, file); err == nil {
					file = rel
				}
			}
			oracle[filepath.ToSlash(file)+":"+strconv.Itoa(f.Position.Line)] = pkg.Path + "." + f.Name
		}
	}

	start = time.Now()
	g, files, err := index(ctx, root)
	if err != nil {
		return res, err
	}
	findings, _, _, err := query.AuditFunctions(ctx, g, query.AuditOptions{Check: query.AuditDead}, false)
	if err != nil {
		return res, err
	}
	res.CosTime, res.Files = time.Since(start).Seconds(), files
	ours := map[string]query.AuditFinding{}
	for _, f := range findings {
		ours[f.Path+":"+strconv.Itoa(f.Line)] = f
	}

	generated := map[string]bool{}
	judged := map[string]graph.Node{}
	g.Nodes(func(n graph.Node) bool {
		if n.Kind != graph.KindFunction && n.Kind != graph.KindMethod || !strings.HasSuffix(n.Path, ".go") {
			return true
		}
		if n.Metadata["interface"] == true || n.Metadata[graph.MetaBuildExcluded] == true ||
			strings.HasPrefix(n.Path, "testdata/") || strings.Contains(n.Path, "/testdata/") {
			return true
		}
		gen, ok := generated[n.Path]
		if !ok {
			gen = isGenerated(filepath.Join(root, filepath.FromSlash(n.Path)))
			generated[n.Path] = gen
		}
		if gen {
			return true
		}
		judged[n.Path+":"+strconv.Itoa(n.Line)] = n
		return true
	})
	res.Judged = len(judged)
	agree, certainAgree, certainDead, certainBoth := 0, 0, 0, 0
	for key, n := range judged {
		_, od := oracle[key]
		f, cd := ours[key]
		if od {
			res.OracleDead++
		}
		if cd {
			res.CosDead++
			if f.Certainty == query.Uncertain {
				res.Uncertain++
			}
		}
		certain := cd && f.Certainty == query.Certain
		if certain {
			certainDead++
		}
		if certain == od {
			certainAgree++
		}
		if certain && od {
			certainBoth++
		}
		switch {
		case od && cd:
			res.Both++
			agree++
		case !od && !cd:
			agree++
		case cd:
			r := "other"
			switch {
			case f.Certainty == query.Uncertain:
				r = "uncertain:" + strings.Join(f.Reasons, ",")
			}
			res.OnlyCos[r] = append(res.OnlyCos[r], key+" "+n.Label)
		default:
			res.OnlyOracle[oracleOnlyReason(g, n)] = append(res.OnlyOracle[oracleOnlyReason(g, n)], key+" "+n.Label)
		}
	}
	for key, name := range oracle {
		if _, ok := judged[key]; !ok {
			res.Unmatched = append(res.Unmatched, key+" "+name)
		}
	}
	sort.Strings(res.Unmatched)
	for _, m := range []map[string][]string{res.OnlyCos, res.OnlyOracle} {
		for k := range m {
			sort.Strings(m[k])
		}
	}
	res.Agreement = float64(agree) / float64(max(1, res.Judged))
	res.Precision = acc.NewRatio(res.Both, res.CosDead)
	res.Recall = acc.NewRatio(res.Both, res.OracleDead)
	res.CertainAgreement = float64(certainAgree) / float64(max(1, res.Judged))
	res.CertainPrecision = acc.NewRatio(certainBoth, certainDead)
	res.CertainRecall = acc.NewRatio(certainBoth, res.OracleDead)
	return res, nil
}

// oracleOnlyReason says why cos reached a function deadcode found dead.
func oracleOnlyReason(g *projections.Graph, n graph.Node) string {
	name := n.UID[strings.LastIndex(n.UID, "::")+2:]
	name = name[strings.LastIndexByte(name, '.')+1:]
	if strings.HasSuffix(n.Path, "_test.go") && strings.HasPrefix(name, "Example") {
		return "example_without_output"
	}
	if n.Kind == graph.KindMethod {
		for _, c := range g.Sources(n.UID, graph.EdgeContains) {
			ifaces := g.Targets(c, graph.EdgeImplements)
			if slices.ContainsFunc(ifaces, func(i string) bool { return strings.HasPrefix(i, "code:external:") }) {
				return "outside_interface"
			}
			if len(ifaces) > 0 {
				return "interface_dispatch"
			}
		}
	}
	if g.HasIn(n.UID, graph.EdgeReferences) {
		return "func_value"
	}
	return "other"
}

// isGenerated reports whether a Go file carries the generated-code marker.
func isGenerated(file string) bool {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.PackageClauseOnly|parser.ParseComments)
	return err == nil && ast.IsGenerated(f)
}

// index extracts root into a fresh graph projection; it returns the
// number of files extracted.
func index(ctx context.Context, root string) (*projections.Graph, int, error) {
	g := projections.NewGraph()
	seq := uint64(0)
	files := 0
	_, err := extract.Run(ctx, root, extract.Options{}, nil, func(batch []graph.FileExtracted, _ []string) error {
		for _, f := range batch {
			data, err := json.Marshal(f)
			if err != nil {
				return err
			}
			seq++
			files++
			if err := g.Apply(eventlog.Event{Seq: seq, Stream: graph.Stream, Revision: seq, Type: graph.TypeFileExtracted, Data: data}); err != nil {
				return err
			}
		}
		return nil
	})
	return g, files, err
}

func writeResult(w io.Writer, r result, verbose bool) {
	fmt.Fprintf(w, "## %s\n\n", r.Name)
	fmt.Fprintf(w, "%d Go files indexed; %d functions and methods judged; cos %.1f s, deadcode %.1f s.\n\n", r.Files, r.Judged, r.CosTime, r.OracleSec)
	fmt.Fprintf(w, "| cos dead = | agreement | dead (deadcode) | dead (cos) | both | precision | recall |\n|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(w, "| every finding | %s | %d | %d | %d | %s | %s |\n", acc.Pct(r.Agreement), r.OracleDead, r.CosDead, r.Both, acc.Pct(r.Precision.Share), acc.Pct(r.Recall.Share))
	fmt.Fprintf(w, "| certain findings | %s | %d | %d | %d | %s | %s |\n\n", acc.Pct(r.CertainAgreement), r.OracleDead, r.CertainPrecision.Of, r.CertainPrecision.Hit, acc.Pct(r.CertainPrecision.Share), acc.Pct(r.CertainRecall.Share))
	for _, side := range []struct {
		title string
		m     map[string][]string
	}{{"dead for cos, live for deadcode", r.OnlyCos}, {"live for cos, dead for deadcode", r.OnlyOracle}} {
		if len(side.m) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s:\n\n", side.title)
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range side.m {
				if !yield(k) {
					return
				}
			}
		}) {
			fmt.Fprintf(w, "- %s: %d\n", k, len(side.m[k]))
			if verbose {
				for _, s := range side.m[k] {
					fmt.Fprintf(w, "  - %s\n", s)
				}
			}
		}
		fmt.Fprintln(w)
	}
	if len(r.Unmatched) > 0 {
		fmt.Fprintf(w, "deadcode findings at no judged function: %d\n", len(r.Unmatched))
		if verbose {
			for _, s := range r.Unmatched {
				fmt.Fprintf(w, "  - %s\n", s)
			}
		}
		fmt.Fprintln(w)
	}
}
