package main

import (
	"regexp"
	"sort"
	"strings"
	"time"

	scippb "github.com/sourcegraph/scip/bindings/go/scip"

	"github.com/cos-dev/cos/scripts/internal/acc"
)

// pair is a (caller, callee) edge of uids.
type pair struct{ Caller, Callee string }

// cosNode is a cos function, method or class node: the unit both the
// mapping and the callers are made of.
type cosNode struct {
	UID      string
	Kind     string
	Label    string
	Path     string
	Line     int
	EndLine  int
	TypeKind string // metadata type_kind: interface, enum; "" for a class
}

// lastSegment is the part of a label after its last dot: the method of
// "Class.method", the name of a function or class.
func lastSegment(label string) string {
	if i := strings.LastIndexByte(label, '.'); i >= 0 {
		return label[i+1:]
	}
	return label
}

// truthEdge is one (caller, callee) pair the oracle calls.
type truthEdge struct {
	Sites int
	First site
	// Cats holds the first site of each category the pair's call sites
	// have, CatSites their number.
	Cats     map[category]site
	CatSites map[category]int
}

// oracle is the truth derived from one SCIP index.
type oracle struct {
	Docs map[string]*document
	// Symbols maps the SCIP symbols defined in the target to cos uids.
	Symbols map[string]string
	// Mapped is the set of uids some symbol maps to.
	Mapped map[string]bool
	// Calls are the call edges, Refs every reference pair (calls
	// included) with its first site.
	Calls map[pair]*truthEdge
	Refs  map[pair]site
	// Unmapped counts the call sites of symbols defined in the target
	// that map to no cos node, by symbol.
	Unmapped map[string]*unmappedSymbol
	// NoNode holds the (caller, symbol) pairs of those call sites, the
	// callee a "scip:" + symbol pseudo-uid.
	NoNode map[pair]bool
	// Opaque holds the Python aliases whose right-hand side the indexer
	// did not resolve: cos edges at their call sites are unjudged.
	Opaque   map[string]bool
	Stats    oracleStats
	Duration time.Duration
}

// unmappedSymbol is a symbol defined in the target, called, with no cos
// node.
type unmappedSymbol struct {
	Symbol string `json:"symbol"`
	Sites  int    `json:"sites"`
	First  site   `json:"first"`
}

// oracleStats counts what the truth is made of.
type oracleStats struct {
	Indexer   string `json:"indexer"`
	Documents int    `json:"documents"`
	// Definitions is the number of global symbols defined in the target;
	// MappedSymbols of them map to a cos node.
	Definitions   int `json:"definitions"`
	MappedSymbols int `json:"mapped_symbols"`
	// MappedUIDs is the number of cos uids reached by the mapping;
	// CosNodes the cos function, method and class uids of the indexed
	// files.
	MappedUIDs int `json:"mapped_uids"`
	// Aliases counts the Python module-level aliases (X = mod.Y) mapped
	// to what they name.
	Aliases  int `json:"aliases"`
	CosNodes int `json:"cos_nodes"`
	// References counts the reference occurrences kept (mapped callee,
	// not an import, not a self reference); CallSites those that are
	// calls.
	References int `json:"references"`
	CallSites  int `json:"call_sites"`
	// Left out of the truth: references in import/export statements,
	// references of a node to itself, call sites of local symbols (scip
	// "local N": nested functions, variables), call sites of symbols
	// defined in the target with no cos node (UnmappedCallSites, over
	// UnmappedSymbols symbols), call sites of symbols defined outside.
	ImportRefs        int `json:"import_refs"`
	SelfRefs          int `json:"self_refs"`
	LocalCallSites    int `json:"local_call_sites"`
	UnmappedCallSites int `json:"unmapped_call_sites"`
	UnmappedSymbols   int `json:"unmapped_symbols"`
	ExternalCallSites int `json:"external_call_sites"`
}

// lang says how a target's source is read.
type lang int

const (
	langPython lang = iota
	langTS          // TypeScript and JavaScript
)

// symbolName returns the name a SCIP symbol is mapped by and whether the
// symbol can map at all: the last descriptor must be a type, term or
// method. A TypeScript constructor (`<constructor>`) is named by its
// class, so that new C() maps to the class as C() does in Python.
func symbolName(sym string) (string, bool) {
	s, err := scippb.ParseSymbol(sym)
	if err != nil || len(s.Descriptors) == 0 {
		return "", false
	}
	ds := s.Descriptors
	last := ds[len(ds)-1]
	switch last.Suffix {
	case scippb.Descriptor_Type, scippb.Descriptor_Term, scippb.Descriptor_Method:
	default:
		return "", false
	}
	if last.Name == "<constructor>" {
		if len(ds) < 2 || ds[len(ds)-2].Suffix != scippb.Descriptor_Type {
			return "", false
		}
		return ds[len(ds)-2].Name, true
	}
	return last.Name, true
}

// callableDef reports whether a symbol defined in the target declares a
// function, method or class: a method or type descriptor, or a term whose
// definition line declares a function or class (const f = () => ...)
// and does not bind require(...) (var debug = require('debug')(...), a
// variable holding another package's function).
func callableDef(sym, line string, lg lang) bool {
	s, err := scippb.ParseSymbol(sym)
	if err != nil || len(s.Descriptors) == 0 {
		return false
	}
	switch s.Descriptors[len(s.Descriptors)-1].Suffix {
	case scippb.Descriptor_Method, scippb.Descriptor_Type:
		return true
	case scippb.Descriptor_Term:
		return lg == langTS && !strings.Contains(line, "require(") &&
			(strings.Contains(line, "function") || strings.Contains(line, "=>") || strings.Contains(line, "class "))
	}
	return false
}

// pyAlias matches a Python alias, name = dotted.name, at module level or
// in a class body, or self.name = dotted.name in a method (an instance
// attribute bound to a function: self.locked = lock.locked).
var pyAlias = regexp.MustCompile(`^\s*(?:self\.)?([A-Za-z_]\w*)\s*=\s*([A-Za-z_][\w.]*)\s*(#.*)?$`)

// tsAsAlias matches the text before a name renamed by an import or
// export list: "..._regex as ".
var tsAsAlias = regexp.MustCompile(`([A-Za-z_$][\w$]*)\s+as\s+$`)

// followAliases maps the symbols of Python module-level aliases
// (Charset = _charset.Charset, isfuture = base_futures.isfuture) and of
// TypeScript renaming exports (export { _regex as regex }) to what the
// aliased name maps to, chains included, and returns how many it mapped.
// An alias whose right-hand side has no global symbol goes into opaque:
// the type checker did not resolve it, so what calling it reaches is
// unknown.
func followAliases(docs map[string]*document, paths []string, symbols map[string]string, opaque map[string]bool, lg lang) int {
	n := 0
	for pass := 0; pass < 3; pass++ {
		added := false
		for _, p := range paths {
			d := docs[p]
			for _, o := range d.Occs {
				if !o.definition() || scippb.IsLocalSymbol(o.Symbol) {
					continue
				}
				if _, done := symbols[o.Symbol]; done {
					continue
				}
				text := d.text(o.Line)
				if lg == langTS {
					// export { _regex as regex } from "...": the symbol
					// defined after "as" names the one before it.
					m := tsAsAlias.FindStringSubmatchIndex(text[:o.Col])
					if m == nil {
						continue
					}
					if rhs, ok := d.occEndingAt(o.Line, m[3]); ok {
						if uid, ok := symbols[rhs.Symbol]; ok {
							symbols[o.Symbol] = uid
							n++
							added = true
						}
					}
					continue
				}
				if o.Col != 0 && !pyClassMember(o.Symbol) {
					continue
				}
				m := pyAlias.FindStringSubmatchIndex(text)
				if m == nil || text[m[2]:m[3]] != text[o.Col:o.EndCol] {
					continue
				}
				rhs, ok := d.occEndingAt(o.Line, m[5])
				if !ok || scippb.IsLocalSymbol(rhs.Symbol) {
					opaque[o.Symbol] = true
					continue
				}
				if uid, ok := symbols[rhs.Symbol]; ok {
					symbols[o.Symbol] = uid
					n++
					added = true
				}
			}
		}
		if !added {
			break
		}
	}
	return n
}

// pyClassMember reports whether a SCIP symbol is a term of a class
// (`m`/C#name.): a class attribute, the only kind of indented alias that
// is not a local.
func pyClassMember(sym string) bool {
	i := strings.LastIndexByte(sym, '#')
	return i >= 0 && strings.HasSuffix(sym, ".") && !strings.ContainsAny(sym[i+1:len(sym)-1], "#().`/")
}

// nodeIndex holds the cos nodes of each file, for the mapping and for
// finding callers.
type nodeIndex map[string][]cosNode

// innermost returns the smallest node of path whose lines hold line
// (1-based) and, when name is not empty, whose label ends with name.
func (ni nodeIndex) innermost(path string, line int, name string) (cosNode, bool) {
	var best cosNode
	found := false
	for _, n := range ni[path] {
		if line < n.Line || line > n.EndLine {
			continue
		}
		if name != "" && lastSegment(n.Label) != name {
			continue
		}
		if !found || n.EndLine-n.Line < best.EndLine-best.Line || n.EndLine-n.Line == best.EndLine-best.Line && n.Line > best.Line {
			best, found = n, true
		}
	}
	return best, found
}

// callerOf is the uid an occurrence at line (1-based) of path is
// attributed to: the innermost cos node holding it, else the file.
func (ni nodeIndex) callerOf(path string, line int) string {
	if n, ok := ni.innermost(path, line, ""); ok {
		return n.UID
	}
	return "code:file:" + path
}

// buildTruth derives the truth from the documents of one index and the
// cos nodes of the same files (doc.go, "Mapping").
func buildTruth(docs map[string]*document, nodes nodeIndex, lg lang) *oracle {
	or := &oracle{Docs: docs, Symbols: map[string]string{}, Mapped: map[string]bool{},
		Calls: map[pair]*truthEdge{}, Refs: map[pair]site{}, Unmapped: map[string]*unmappedSymbol{}, NoNode: map[pair]bool{}, Opaque: map[string]bool{}}
	st := &or.Stats
	st.Documents = len(docs)
	paths := make([]string, 0, len(docs))
	for p := range docs {
		paths = append(paths, p)
	}
	sort.Strings(paths)

	// Definitions: symbol → uid by place and name; the first definition
	// that maps wins (sorted paths, occurrence order).
	defined := map[string]bool{}
	defLine := map[string]string{} // symbol → text of its definition line
	for _, p := range paths {
		d := docs[p]
		for _, o := range d.Occs {
			if !o.definition() {
				continue
			}
			key := o.Symbol
			if scippb.IsLocalSymbol(o.Symbol) {
				key = p + "\x00" + o.Symbol
			} else if !defined[o.Symbol] {
				defined[o.Symbol] = true
				st.Definitions++
			}
			if _, ok := defLine[key]; !ok {
				defLine[key] = d.text(o.Line)
			}
			if scippb.IsLocalSymbol(o.Symbol) {
				continue
			}
			if _, done := or.Symbols[o.Symbol]; done {
				continue
			}
			name, ok := symbolName(o.Symbol)
			if !ok {
				continue
			}
			if n, ok := nodes.innermost(p, o.Line+1, name); ok {
				or.Symbols[o.Symbol] = n.UID
				or.Mapped[n.UID] = true
				st.MappedSymbols++
			}
		}
	}
	st.Aliases = followAliases(docs, paths, or.Symbols, or.Opaque, lg)
	st.MappedUIDs = len(or.Mapped)

	// Callers: cos keeps one node per uid, with the lines of its first
	// declaration; a TypeScript overload's implementation or a Python
	// redefinition (a property setter) lies outside them. Every other
	// definition of a mapped symbol in the node's file adds its enclosing
	// range to the uid.
	callers := nodeIndex{}
	for p, ns := range nodes {
		callers[p] = append([]cosNode(nil), ns...)
	}
	for _, p := range paths {
		for _, o := range docs[p].Occs {
			uid, ok := or.Symbols[o.Symbol]
			if !ok || !o.definition() || o.EncStart < 0 || uidFile(uid) != p {
				continue
			}
			if n, ok := nodes.innermost(p, o.Line+1, ""); ok && n.UID == uid {
				continue
			}
			callers[p] = append(callers[p], cosNode{UID: uid, Path: p, Line: o.EncStart + 1, EndLine: o.EncEnd + 1})
		}
	}
	seen := map[string]bool{}
	for _, p := range paths {
		for _, n := range nodes[p] {
			seen[n.UID] = true
		}
	}
	st.CosNodes = len(seen)
	// Interfaces and type aliases cannot be called: a merged declaration
	// (interface C and function C) gets one occurrence per symbol at the
	// call site, and only the function's is a call. When no other symbol
	// there has a node (interface C and const C = factory(...), zod's
	// pattern) the interface stands for the value and stays.
	uncallable := map[string]bool{}
	for _, ns := range nodes {
		for _, n := range ns {
			if n.TypeKind == "interface" || n.TypeKind == "type" {
				uncallable[n.UID] = true
			}
		}
	}

	for _, p := range paths {
		d := docs[p]
		imports := importLines(d, lg)
		requireVar := func(sym string) bool {
			key := sym
			if scippb.IsLocalSymbol(sym) {
				key = p + "\x00" + sym
			}
			return lg == langTS && strings.Contains(defLine[key], "require(")
		}
		callableAt := map[[2]int]bool{}
		for _, o := range d.Occs {
			if uid, ok := or.Symbols[o.Symbol]; ok && !o.definition() && !uncallable[uid] {
				callableAt[[2]int{o.Line, o.Col}] = true
			}
		}
		for _, o := range d.Occs {
			if o.definition() {
				continue
			}
			call := isCallSite(d, o.Line, o.Col, o.EndCol, lg == langTS)
			uid, ok := or.Symbols[o.Symbol]
			if !ok {
				if !call {
					continue
				}
				switch {
				case scippb.IsLocalSymbol(o.Symbol):
					st.LocalCallSites++
				case defined[o.Symbol] && callableDef(o.Symbol, defLine[o.Symbol], lg):
					st.UnmappedCallSites++
					u := or.Unmapped[o.Symbol]
					if u == nil {
						u = &unmappedSymbol{Symbol: o.Symbol, First: site{File: p, Line: o.Line + 1}}
						or.Unmapped[o.Symbol] = u
					}
					u.Sites++
					or.NoNode[pair{callers.callerOf(p, o.Line+1), "scip:" + o.Symbol}] = true
				default:
					st.ExternalCallSites++
				}
				continue
			}
			if imports[o.Line] || o.importRole() {
				st.ImportRefs++
				continue
			}
			caller := callers.callerOf(p, o.Line+1)
			if caller == uid {
				st.SelfRefs++
				continue
			}
			k := pair{caller, uid}
			at := site{File: p, Line: o.Line + 1}
			st.References++
			if old, ok := or.Refs[k]; !ok || acc.SiteLess(at, old) {
				or.Refs[k] = at
			}
			if !call || uncallable[uid] && callableAt[[2]int{o.Line, o.Col}] {
				continue
			}
			st.CallSites++
			cat := classify(d, o.Line, o.Col, o.EndCol, strings.HasPrefix(uid, "code:class:"), requireVar)
			e := or.Calls[k]
			if e == nil {
				e = &truthEdge{First: at, Cats: map[category]site{}, CatSites: map[category]int{}}
				or.Calls[k] = e
			}
			e.Sites++
			if acc.SiteLess(at, e.First) {
				e.First = at
			}
			if old, ok := e.Cats[cat]; !ok || acc.SiteLess(at, old) {
				e.Cats[cat] = at
			}
			e.CatSites[cat]++
		}
	}
	st.UnmappedSymbols = len(or.Unmapped)
	return or
}

// importLines returns the 0-based lines of a document's import and
// export-list statements (import x from, from m import (a, b), export {
// a } from ...), whose references name a symbol without using it.
func importLines(d *document, lg lang) map[int]bool {
	out := map[int]bool{}
	for i := 0; i < len(d.Lines); i++ {
		t := strings.TrimSpace(d.Lines[i])
		var start bool
		if lg == langPython {
			start = strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "from ") && strings.Contains(t, " import")
		} else {
			start = strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "import{") || strings.HasPrefix(t, "export {") ||
				strings.HasPrefix(t, "export{") || strings.HasPrefix(t, "export *") || strings.HasPrefix(t, "export type {")
		}
		if !start {
			continue
		}
		depth := 0
		for j := i; j < len(d.Lines) && j-i < 200; j++ {
			out[j] = true
			t := strings.TrimSpace(d.Lines[j])
			depth += strings.Count(t, "(") + strings.Count(t, "{") - strings.Count(t, ")") - strings.Count(t, "}")
			i = j
			if depth > 0 {
				continue
			}
			if lg == langPython && strings.HasSuffix(t, "\\") {
				continue
			}
			if lg == langTS && (strings.HasSuffix(t, "from") || strings.HasSuffix(t, ",")) {
				continue
			}
			break
		}
	}
	return out
}
