package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/cos-dev/cos/scripts/internal/calloracle"
)

// unit is one translation unit: a source file relative to the root and
// the compiler arguments (without -fsyntax-only and the dump flags).
type unit struct {
	File string
	Args []string
	Dir  string // where clang runs; the root when empty
}

// resolvedCall is a call with its callee found in its unit.
type resolvedCall struct {
	pending
	Key   string
	Info  calloracle.Decl
	Kind  string // callee kind
	Def   *calloracle.Place
	Decls []calloracle.Place
}

// oracleRun is the whole project's oracle.
type oracleRun struct {
	root   string
	clang  string
	counts map[string]int
	files  map[string]bool
	defs   map[string]calloracle.Place
	calls  []resolvedCall
	seen   map[string]bool
	src    map[string][]string
	log    io.Writer
}

// runOracle runs clang on every unit and writes the oracle's JSON lines.
func runOracle(ctx context.Context, clang, root string, units []unit, out io.Writer, log io.Writer) (map[string]int, error) {
	o := &oracleRun{root: root, clang: clang, counts: map[string]int{}, files: map[string]bool{}, defs: map[string]calloracle.Place{}, seen: map[string]bool{}, src: map[string][]string{}, log: log}
	for i, u := range units {
		fmt.Fprintf(log, "   [%d/%d] %s\n", i+1, len(units), u.File)
		if err := o.unit(ctx, u); err != nil {
			return nil, fmt.Errorf("%s: %w", u.File, err)
		}
	}
	return o.counts, o.write(out)
}

// unit dumps one translation unit and keeps its calls.
func (o *oracleRun) unit(ctx context.Context, u unit) error {
	args := append([]string{"-fsyntax-only", "-Xclang", "-ast-dump=json", "-Wno-everything"}, u.Args...)
	args = append(args, u.File)
	cmd := exec.CommandContext(ctx, o.clang, args...)
	cmd.Dir = o.root
	if u.Dir != "" {
		cmd.Dir = u.Dir
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	errs := make(chan int, 1)
	go func() {
		n := 0
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "error:") {
				n++
			}
		}
		errs <- n
	}()
	v := newTUVisitor(o.root, cmd.Dir, o.counts, o.src)
	werr := walk(bufio.NewReaderSize(stdout, 1<<20), v)
	if werr != nil {
		_, _ = io.Copy(io.Discard, stdout)
	}
	o.counts["compiler_errors"] += <-errs
	_ = cmd.Wait() // clang exits 1 on errors and still dumps what it parsed
	if werr != nil {
		return werr
	}
	o.counts["units"]++
	o.collect(v)
	return nil
}

// collect resolves a unit's calls to its declarations and remembers its
// definitions.
func (o *oracleRun) collect(v *tuVisitor) {
	for k, kp := range v.idx.byKey {
		o.files[kp.Info.Place.File] = true
		if kp.Def != nil {
			if _, ok := o.defs[k]; !ok {
				o.defs[k] = *kp.Def
			}
		}
	}
	for _, p := range v.idx.calls {
		o.files[p.Site.File] = true
		id := p.RefID
		if p.CtorKey != "" {
			id = v.idx.ctors[p.CtorKey]
		}
		f := v.idx.decls[id]
		if f == nil {
			if p.CtorKey != "" && strings.HasSuffix(p.CtorKey, "|") {
				o.counts["unresolved"]++
			} else if p.CtorKey != "" {
				o.counts["external"]++ // a library class, or one whose constructor is implicit
			} else {
				o.counts["unresolved"]++
			}
			continue
		}
		if f.Implicit {
			o.counts["implicit_decls_left_out"]++
			continue
		}
		if r := v.idx.records[f.Record]; r != nil && r.Lambda {
			o.counts["lambda_calls_left_out"]++
			continue
		}
		k := f.key()
		dedup := p.Site.File + ":" + strconv.Itoa(p.Site.Line) + ":" + strconv.Itoa(p.Site.Col) + ":" + k
		if o.seen[dedup] {
			continue
		}
		o.seen[dedup] = true
		rc := resolvedCall{pending: p, Key: k, Info: v.decl(f), Kind: calleeKind(f)}
		if kp := v.idx.byKey[k]; kp != nil {
			rc.Def = kp.Def
			rc.Decls = append(rc.Decls, kp.Decls...)
			if kp.Def != nil {
				rc.Info = v.decl(kp.Info)
			}
		}
		o.calls = append(o.calls, rc)
	}
}

// write prints the project's calls once every unit's definitions are known.
func (o *oracleRun) write(out io.Writer) error {
	w := calloracle.NewWriter(out)
	files := make([]string, 0, len(o.files))
	for f := range o.files {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		if err := w.File(f); err != nil {
			return err
		}
	}
	for _, rc := range o.calls {
		c := calloracle.Call{Site: rc.Site, Caller: rc.Caller, Category: rc.Category, CalleeKind: rc.Kind, Context: "plain"}
		if rc.Macro {
			c.Context = "macro expansion"
		}
		def := rc.Def
		if def == nil {
			if d, ok := o.defs[rc.Key]; ok {
				def = &d
			}
		}
		c.Callee = rc.Info
		c.Callee.Decls = nil
		switch {
		case def != nil:
			c.Callee.File, c.Callee.Line, c.Callee.EndLine = def.File, def.Line, def.EndLine
			for _, d := range rc.Decls {
				if d != *def {
					c.Callee.Decls = append(c.Callee.Decls, d)
				}
			}
		case len(rc.Decls) > 0:
			// Declared in the tree, defined nowhere: a pure virtual
			// method, or a function of a file no unit compiles.
			c.Callee.File, c.Callee.Line, c.Callee.EndLine = rc.Decls[0].File, rc.Decls[0].Line, rc.Decls[0].EndLine
			c.Callee.Decls = rc.Decls[1:]
		default:
			c.Callee = calloracle.Decl{External: true, Class: rc.Info.Class, Name: rc.Info.Name, Kind: rc.Info.Kind}
		}
		if c.Callee.External {
			o.counts["external"]++
		} else {
			o.counts["in_tree"]++
			o.counts["category."+c.Category]++
		}
		if err := w.Call(c); err != nil {
			return err
		}
	}
	return w.Stats(o.counts)
}

// compileCommands reads root/compile_commands.json when there is one.
func compileCommands(root string) ([]unit, bool, error) {
	b, err := os.ReadFile(filepath.Join(root, "compile_commands.json"))
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var entries []struct {
		Directory string   `json:"directory"`
		File      string   `json:"file"`
		Command   string   `json:"command"`
		Arguments []string `json:"arguments"`
	}
	if err := json.Unmarshal(b, &entries); err != nil {
		return nil, false, fmt.Errorf("compile_commands.json: %w", err)
	}
	var units []unit
	for _, e := range entries {
		args := e.Arguments
		if len(args) == 0 {
			args = strings.Fields(e.Command)
		}
		var keep []string
		for i := 1; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "-o":
				i++
			case a == "-c", a == e.File, filepath.Join(e.Directory, a) == e.File:
			default:
				keep = append(keep, a)
			}
		}
		file := e.File
		if !filepath.IsAbs(file) {
			file = filepath.Join(e.Directory, file)
		}
		units = append(units, unit{File: file, Args: keep, Dir: e.Directory})
	}
	return units, true, nil
}
