package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/cos-dev/cos/scripts/internal/calloracle"
)

// funcKinds are the declarations of functions.
var funcKinds = map[string]bool{
	"FunctionDecl": true, "CXXMethodDecl": true, "CXXConstructorDecl": true,
	"CXXDestructorDecl": true, "CXXConversionDecl": true,
}

// recordKinds are the declarations of classes, structs and unions.
var recordKinds = map[string]bool{
	"CXXRecordDecl": true, "RecordDecl": true, "ClassTemplateSpecializationDecl": true,
	"ClassTemplatePartialSpecializationDecl": true,
}

// record is a class the walk has seen.
type record struct {
	Name, Parent string // Parent: the enclosing record's id
	Qual         string
	Lambda       bool
}

// fdecl is a function declaration the walk has seen.
type fdecl struct {
	ID, Kind, Name, Mangled string
	Record                  string // the owning record's id
	Static, Virtual         bool
	Implicit                bool
	Place                   calloracle.Place
	InTree                  bool
	Type                    string
}

// pending is a call whose callee is looked up when its translation unit
// (RefID, CtorKey) and then the whole project (definitions) are read.
type pending struct {
	Site     calloracle.Site
	Macro    bool
	Caller   calloracle.Decl
	RefID    string // a referenced function's id
	CtorKey  string // record|ctorType of a construction
	Category string
}

// tuIndex is what one translation unit declares.
type tuIndex struct {
	decls   map[string]*fdecl
	records map[string]*record
	ctors   map[string]string // record|type → id
	// byKey holds every in-tree declaration place of a function key
	// (mangled name) and its definition.
	byKey map[string]*keyPlaces
	calls []pending
}

// keyPlaces are the places of one function key.
type keyPlaces struct {
	Def   *calloracle.Place
	Decls []calloracle.Place
	Info  *fdecl
}

// tuVisitor collects one translation unit's declarations and calls.
type tuVisitor struct {
	// root is the project folder, cwd where clang ran (paths it prints
	// are relative to cwd).
	root, cwd string
	rel       map[string]relPath
	idx       *tuIndex
	stack     []*node
	// scopes are namespace names and record ids, innermost last.
	scopes []scope
	// funcs are the enclosing functions, innermost last.
	funcs  []*fdecl
	counts map[string]int
	// src holds the lines of the files read to check constructions,
	// shared by the units of a run.
	src map[string][]string
}

type scope struct {
	namespace string
	record    string
}

type relPath struct {
	path   string
	inTree bool
}

func newTUVisitor(root, cwd string, counts map[string]int, src map[string][]string) *tuVisitor {
	return &tuVisitor{
		root: root, cwd: cwd, rel: map[string]relPath{}, counts: counts, src: src,
		idx: &tuIndex{decls: map[string]*fdecl{}, records: map[string]*record{}, ctors: map[string]string{}, byKey: map[string]*keyPlaces{}},
	}
}

// relative maps a path clang printed (relative to root, where clang runs,
// or absolute) to a root-relative slash path, and says whether it is
// inside root.
func (t *tuVisitor) relative(file string) (string, bool) {
	if r, ok := t.rel[file]; ok {
		return r.path, r.inTree
	}
	p := file
	if !filepath.IsAbs(p) {
		p = filepath.Join(t.cwd, p)
	}
	rp, err := filepath.Rel(t.root, filepath.Clean(p))
	in := err == nil && rp != ".." && !strings.HasPrefix(rp, "../")
	r := relPath{path: filepath.ToSlash(rp), inTree: in}
	t.rel[file] = r
	return r.path, r.inTree
}

func (t *tuVisitor) topRecord() string {
	for i := len(t.scopes) - 1; i >= 0; i-- {
		if t.scopes[i].record != "" {
			return t.scopes[i].record
		}
	}
	return ""
}

func (t *tuVisitor) qualPrefix() string {
	var parts []string
	for _, s := range t.scopes {
		switch {
		case s.namespace != "":
			parts = append(parts, s.namespace)
		case s.record != "":
			parts = append(parts, t.idx.records[s.record].Name)
		}
	}
	return strings.Join(parts, "::")
}

func (t *tuVisitor) enter(n *node) {
	switch {
	case n.Kind == "NamespaceDecl":
		t.scopes = append(t.scopes, scope{namespace: n.Name})
	case recordKinds[n.Kind]:
		q := n.Name
		if p := t.qualPrefix(); p != "" {
			q = p + "::" + n.Name
		}
		if old, ok := t.idx.records[n.ID]; !ok || old.Name == "" {
			t.idx.records[n.ID] = &record{Name: n.Name, Parent: t.topRecord(), Qual: q, Lambda: n.IsLambda}
		}
		t.scopes = append(t.scopes, scope{record: n.ID})
	case funcKinds[n.Kind]:
		rec := n.ParentContext
		if rec == "" {
			rec = t.topRecord()
		}
		if _, ok := t.idx.records[rec]; !ok {
			rec = ""
		}
		f := &fdecl{ID: n.ID, Kind: n.Kind, Name: n.Name, Mangled: n.Mangled, Record: rec, Static: n.StorageClass == "static",
			Virtual: n.Virtual, Implicit: n.Implicit, Type: n.Type.QualType}
		begin, end := n.Begin, n.End
		if begin.File == "" {
			begin = n.Loc
		}
		if path, in := t.relative(begin.File); begin.File != "" && in {
			f.InTree = true
			f.Place = calloracle.Place{File: path, Line: begin.Line, EndLine: max(end.Line, begin.Line)}
		}
		t.idx.decls[n.ID] = f
		if n.Kind == "CXXConstructorDecl" && rec != "" {
			k := t.idx.records[rec].Qual + "|" + f.Type
			if _, ok := t.idx.ctors[k]; !ok {
				t.idx.ctors[k] = n.ID
			}
		}
		t.funcs = append(t.funcs, f)
	}
	t.stack = append(t.stack, n)
}

func (t *tuVisitor) leave(n *node) {
	t.stack = t.stack[:len(t.stack)-1]
	switch {
	case n.Kind == "NamespaceDecl" || recordKinds[n.Kind]:
		t.scopes = t.scopes[:len(t.scopes)-1]
		return
	case funcKinds[n.Kind]:
		f := t.funcs[len(t.funcs)-1]
		t.funcs = t.funcs[:len(t.funcs)-1]
		if !f.InTree || f.Implicit {
			return
		}
		k := f.key()
		kp := t.idx.byKey[k]
		if kp == nil {
			kp = &keyPlaces{Info: f}
			t.idx.byKey[k] = kp
		}
		if n.HasBody && kp.Def == nil {
			p := f.Place
			kp.Def = &p
			kp.Info = f
		} else if !n.HasBody {
			kp.Decls = append(kp.Decls, f.Place)
		}
		return
	}
	switch n.Kind {
	case "CallExpr":
		c := unwrap(n.First)
		if c == nil || c.Kind != "DeclRefExpr" || c.Ref == nil || !funcKinds[c.Ref.Kind] {
			if t.inTree(n.Begin) {
				t.counts["indirect"]++
			}
			return
		}
		cat := "direct"
		if c.Ref.Kind == "CXXMethodDecl" {
			cat = "static member"
		}
		t.add(c.End, pending{RefID: c.Ref.ID, Category: cat})
	case "CXXMemberCallExpr":
		m := unwrap(n.First)
		if m == nil || m.Kind != "MemberExpr" || m.MemberRef == "" {
			if t.inTree(n.Begin) {
				t.counts["indirect"]++
			}
			return
		}
		cat := "member"
		if o := unwrap(m.First); o != nil && o.Kind == "CXXThisExpr" {
			cat = "this"
		}
		t.add(m.End, pending{RefID: m.MemberRef, Category: cat})
	case "CXXOperatorCallExpr":
		if t.inTree(n.Begin) {
			t.counts["operator_calls_left_out"]++
		}
	case "CXXConstructExpr", "CXXTemporaryObjectExpr":
		if !t.inTree(n.Begin) {
			return
		}
		ty := n.Type.DesugaredQualType
		if ty == "" {
			ty = n.Type.QualType
		}
		for _, p := range []string{"const ", "volatile ", "struct ", "class "} {
			ty = strings.TrimPrefix(ty, p)
		}
		cat := "constructor"
		switch {
		case t.namesClass(n.Begin, ty):
		case len(t.stack) > 0 && t.stack[len(t.stack)-1].Kind == "VarDecl" && n.End != n.Begin:
			cat = "constructor (variable)" // T x(args), T x{args}
		default:
			// T x; a conversion (a literal to Slice), a copy: not written
			// as a call.
			t.counts["unwritten_constructions_left_out"]++
			return
		}
		t.add(n.Begin, pending{CtorKey: ty + "|" + n.CtorType.QualType, Category: cat})
	}
}

// inTree reports whether a location is in the project's files.
func (t *tuVisitor) inTree(at loc) bool {
	if at.File == "" {
		return false
	}
	_, in := t.relative(at.File)
	return in
}

// namesClass reports whether the source at a construction's start names
// the constructed class: T(...), ns::T{...}, new T(...), T<int>(...).
func (t *tuVisitor) namesClass(at loc, qual string) bool {
	path, _ := t.relative(at.File)
	lines, ok := t.src[path]
	if !ok {
		b, err := os.ReadFile(filepath.Join(t.root, filepath.FromSlash(path)))
		if err == nil {
			lines = strings.Split(string(b), "\n")
		}
		t.src[path] = lines
	}
	if at.Line < 1 || at.Line > len(lines) || at.Col < 1 || at.Col > len(lines[at.Line-1]) {
		return false
	}
	text := lines[at.Line-1][at.Col-1:]
	end := 0
	for end < len(text) && (isIdent(text[end]) || text[end] == ':') {
		end++
	}
	written := strings.TrimPrefix(text[:end], "::")
	if i := strings.LastIndex(written, "::"); i >= 0 {
		written = written[i+2:]
	}
	name, _, _ := strings.Cut(qual, "<")
	if i := strings.LastIndex(name, "::"); i >= 0 {
		name = name[i+2:]
	}
	return written != "" && written == name
}

func isIdent(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// add keeps a call written in the tree.
func (t *tuVisitor) add(at loc, p pending) {
	path, in := t.relative(at.File)
	if at.File == "" || !in {
		return
	}
	p.Site = calloracle.Site{File: path, Line: at.Line, Col: at.Col}
	p.Macro = at.Macro
	p.Caller = calloracle.Decl{File: path, Kind: calloracle.DeclFile}
	for i := len(t.funcs) - 1; i >= 0; i-- {
		f := t.funcs[i]
		if r := t.idx.records[f.Record]; r != nil && r.Lambda || !f.InTree {
			continue
		}
		p.Caller = t.decl(f)
		break
	}
	t.idx.calls = append(t.idx.calls, p)
}

// unwrap skips the implicit casts and parentheses around a callee.
func unwrap(n *node) *node {
	for n != nil && (n.Kind == "ImplicitCastExpr" || n.Kind == "ParenExpr" || n.Kind == "MaterializeTemporaryExpr" || n.Kind == "CXXBindTemporaryExpr") {
		n = n.First
	}
	return n
}

// key names a function across translation units: its mangled name, the
// translation unit's own for a static (internal) one.
func (f *fdecl) key() string {
	k := f.Mangled
	if k == "" {
		k = f.Name
	}
	if f.Static && f.Kind == "FunctionDecl" {
		k += "@" + f.Place.File
	}
	return k
}

// className is a record's name inside its file: nested names joined by ".".
func (t *tuVisitor) className(id string) string {
	var parts []string
	for r := t.idx.records[id]; r != nil; r = t.idx.records[r.Parent] {
		parts = append([]string{r.Name}, parts...)
		if r.Parent == "" {
			break
		}
	}
	return strings.Join(parts, ".")
}

// decl describes f at its own place.
func (t *tuVisitor) decl(f *fdecl) calloracle.Decl {
	d := calloracle.Decl{File: f.Place.File, Line: f.Place.Line, EndLine: f.Place.EndLine, Name: f.Name, Params: f.Type, Kind: calloracle.DeclFunction}
	if f.Record != "" {
		d.Class = t.className(f.Record)
		d.Kind = calloracle.DeclMethod
	}
	if f.Kind == "CXXConstructorDecl" {
		d.Kind = calloracle.DeclConstructor
	}
	return d
}

// calleeKind is the callee-kind split's value of f.
func calleeKind(f *fdecl) string {
	switch {
	case f.Kind == "CXXConstructorDecl":
		return "constructor"
	case f.Kind == "FunctionDecl" && f.Static:
		return "static function"
	case f.Kind == "FunctionDecl":
		return "function"
	case f.Static:
		return "static method"
	case f.Virtual:
		return "virtual method"
	}
	return "method"
}
