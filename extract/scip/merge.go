package scip

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	scippb "github.com/sourcegraph/scip/bindings/go/scip"

	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/extract/lang"
	"github.com/cos-dev/cos/graph"
)

// Note is a document of an index that was not applied to its file, and
// why.
type Note struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Result is what Merge did.
type Result struct {
	// Precise are the paths whose payloads are now precise, sorted;
	// Indexer names the indexer of each.
	Precise []string
	Indexer map[string]string
	// Skipped are the documents with a payload that were not applied: the
	// file keeps its inferred edges.
	Skipped []Note
	// Calls and References count the edges taken from the indexes;
	// Unresolved the inferred call edges into *.name stubs kept because
	// the index resolved nothing at their call site.
	Calls, References, Unresolved int
	// InferredSites counts the call and reference sites of precise files
	// whose edge is the extractor's, not the index's: the index has no
	// occurrence of the callee's name there, or only a local symbol, or
	// the site's line holds several declarations and the index gives no
	// enclosing ranges to tell which one the site is in. Each is counted
	// on the node it reaches (graph.MetaInferredSites).
	InferredSites int
	// DynamicCalls counts the calls through func values (a variable, a
	// parameter, a field), recorded as graph.MetaDynamicCalls on the
	// function, method, class or file making them.
	DynamicCalls int
}

// Reasons of Result.Skipped.
const (
	// ReasonStale: the document's definitions are not where the file has
	// them (an index of another version of the file).
	ReasonStale = "the index does not match the file (an index of another version of it?)"
	// ReasonChanged: the file's bytes differ from those extracted.
	ReasonChanged = "the file changed while it was indexed"
	// ReasonUnreadable prefixes a read error.
	ReasonUnreadable = "unreadable"
)

// stubStar prefixes the name of a stub for a member of a receiver of
// unknown type.
const stubStar = "*."

// constructorSuffix ends the symbol of a TypeScript constructor.
const constructorSuffix = "`<constructor>`()."

// classOfConstructor returns the symbol of the class a constructor symbol
// (TypeScript's C#`<constructor>`()., Java's C#`<init>`(+1)., scip-dotnet's
// C#`.ctor`(+1).) belongs to.
func classOfConstructor(sym string) string {
	if s, ok := strings.CutSuffix(sym, constructorSuffix); ok {
		return s
	}
	for _, init := range []string{"#`<init>`(", "#`.ctor`(", "#`.cctor`("} {
		if i := strings.LastIndex(sym, init); i >= 0 {
			return sym[:i+1]
		}
	}
	return sym
}

// Merge makes the payloads of the files that the indexes have a document
// for precise, in place; root is the folder the payloads' paths are
// relative to (their files are read for the text around each occurrence).
// Only payloads of the python, jsts, java, c, cpp, rust, csharp and file
// extractors are touched (see Mergeable; Go is type-checked already, docs
// and configs have no calls).
//
// A payload made precise loses its inferred calls and references edges and
// gets the index's: every reference occurrence of a symbol that maps to a
// node becomes an edge from the innermost function, method or class node
// holding it (the file for module-level code; on a line where several
// nodes begin or end, the innermost by the definitions' enclosing ranges)
// to that node, calls when it is called or constructed, references
// otherwise; references in import statements and a node's references to
// itself are left out. A symbol maps to the node of the file that defines
// it whose lines hold the definition and whose label ends with the
// symbol's name (scip_symbol is set on it); a TypeScript constructor to its
// class. An inferred call to a stub (code:external:) is kept when the
// index resolved nothing at its site (a receiver of unknown type: an
// unresolved receiver). An inferred edge to a node is kept, marked
// inferred, when the index has no occurrence of the node's name at its
// site or a local symbol only, or cannot say which node of its line the
// site is in; the node it reaches counts the site (inferred_sites). A
// call of a local, a parameter or a field (a func value) is counted on
// the node making it (dynamic_calls, as the Go extractor does), unless a
// kept inferred edge names what it calls. The file node gets extraction
// "precise" and indexer. A file of the file extractor (a language cos
// does not parse) gets its nodes from the index's definitions: classes
// (code:class:<path>::<Type>), functions and methods
// (code:function:<path>::<Type>.<method>), with contains edges.
//
// Payloads with a document that is not applied are listed in
// Result.Skipped: unreadable, changed since extraction, or stale.
func Merge(root string, payloads []graph.FileExtracted, indexes ...*Index) Result {
	res := Result{Indexer: map[string]string{}}
	syms := newSymbols()
	var files []*file
	// uncallable are the uids of interfaces and type aliases.
	uncallable := map[string]bool{}
	for i := range payloads {
		p := &payloads[i]
		d, ok := dialectOf(p.Extractor)
		if !ok {
			continue
		}
		var doc *scippb.Document
		var ix *Index
		for _, x := range indexes {
			if dd, ok := x.docs[p.Path]; ok {
				doc, ix = dd, x
				break
			}
		}
		if doc == nil {
			continue
		}
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p.Path)))
		if err != nil {
			res.Skipped = append(res.Skipped, Note{p.Path, ReasonUnreadable + ": " + err.Error()})
			continue
		}
		if sum := sha256.Sum256(text); p.ContentHash != "" && hex.EncodeToString(sum[:]) != p.ContentHash {
			res.Skipped = append(res.Skipped, Note{p.Path, ReasonChanged})
			continue
		}
		if p.Extractor == extract.ExtractorFile {
			d = dialectFor(doc.GetLanguage())
		}
		f := &file{p: p, doc: doc, ix: ix, d: d, src: newSource(string(text), d), fileUID: graph.SourceFileUID(p.Path)}
		if f.stale(syms) {
			res.Skipped = append(res.Skipped, Note{p.Path, ReasonStale})
			continue
		}
		if p.Extractor == extract.ExtractorFile {
			f.synthesize(syms)
		}
		f.index(uncallable)
		files = append(files, f)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].p.Path < files[j].p.Path })

	// Definitions: symbol → uid; the first definition that maps wins.
	defs := definitions{exact: map[string]string{}, canon: map[string]string{}, syms: syms}
	for _, f := range files {
		f.define(syms, &defs)
	}
	followAliases(files, &defs)
	for _, f := range files {
		f.moreDefinitions(&defs)
	}
	for _, f := range files {
		f.paint()
	}
	inferred := map[string]int{}
	for _, f := range files {
		f.rewrite(syms, &defs, uncallable, inferred, &res)
		res.Precise = append(res.Precise, f.p.Path)
		res.Indexer[f.p.Path] = f.ix.Indexer
	}
	for _, f := range files {
		for i, n := range f.p.Nodes {
			if c := inferred[n.UID]; c > 0 && n.Path == f.p.Path {
				f.p.Nodes[i].Metadata = withMeta(n.Metadata, graph.MetaInferredSites, c)
			}
		}
	}
	sort.Slice(res.Skipped, func(i, j int) bool { return res.Skipped[i].Path < res.Skipped[j].Path })
	return res
}

// dialectOf tells which payloads Merge works on, and how their text reads.
func dialectOf(extractor string) (dialect, bool) {
	switch extractor {
	case extract.ExtractorPython:
		return dialectPython, true
	case extract.ExtractorJSTS:
		return dialectJS, true
	case lang.ExtractorJava:
		return dialectJava, true
	case lang.ExtractorScala:
		return dialectScala, true
	case lang.ExtractorC, lang.ExtractorCPP:
		return dialectC, true
	case lang.ExtractorRust:
		return dialectRust, true
	case lang.ExtractorCSharp:
		return dialectCSharp, true
	case lang.ExtractorSwift:
		return dialectOther, true // syntax-level; before it was read, a file of the "file" extractor
	case lang.ExtractorPHP:
		return dialectPHP, true
	case lang.ExtractorRuby:
		return dialectRuby, true
	case extract.ExtractorFile:
		return dialectOther, true
	}
	return dialectOther, false
}

// Mergeable reports whether Merge works on payloads of extractor: the
// languages cos infers calls for without a type checker (Python,
// JavaScript/TypeScript, Java, Scala, C, C++, Rust, C#, Swift, PHP, Ruby) and
// the files it does not parse.
func Mergeable(extractor string) bool {
	_, ok := dialectOf(extractor)
	return ok
}

// dialectFor reads a SCIP document's language.
func dialectFor(lang string) dialect {
	switch strings.ToLower(lang) {
	case "python":
		return dialectPython
	case "typescript", "javascript", "typescriptreact", "javascriptreact", "tsx", "jsx":
		return dialectJS
	case "java":
		return dialectJava
	case "scala":
		return dialectScala
	case "c", "cpp", "c++", "cuda", "objective-c", "objective-cpp":
		return dialectC
	case "rust":
		return dialectRust
	case "csharp", "c#":
		return dialectCSharp
	case "php":
		return dialectPHP
	case "ruby":
		return dialectRuby
	}
	return dialectOther
}

// file is one payload with its document.
type file struct {
	p       *graph.FileExtracted
	doc     *scippb.Document
	ix      *Index
	d       dialect
	src     *source
	fileUID string
	// nodes are the payload's function, method and class nodes of this
	// file; byName indexes them by the last segment of their label.
	nodes  []codeNode
	byName map[string][]int
	// extra are the enclosing ranges of the further definitions of a
	// node's symbol (see paint).
	extra []codeNode
	// callers holds, for each 1-based line, the uid of the innermost node
	// holding it; "" for the file.
	callers []string
	// bounds lists, for each 1-based line where more than one node (or
	// extra) begins or ends, those nodes: the innermost node by lines is
	// ambiguous there (function a(){b()}function b(){}), see callerAt.
	bounds map[int][]codeNode
	// symbolSet marks the nodes whose scip_symbol is set.
	symbolSet map[int]bool
}

// codeNode is a function, method or class node of the payload.
type codeNode struct {
	uid       string
	line, end int
	at        int // index in the payload's Nodes
	// span is the enclosing range of the node's definition in the index
	// (SCIP [line, char, endLine, endChar], 0-based), when it has one.
	span    [4]int32
	hasSpan bool
}

// setSpan records a SCIP enclosing range (3 or 4 elements) on n.
func (n *codeNode) setSpan(er []int32) {
	switch len(er) {
	case 3:
		n.span, n.hasSpan = [4]int32{er[0], er[1], er[0], er[2]}, true
	case 4:
		n.span, n.hasSpan = [4]int32{er[0], er[1], er[2], er[3]}, true
	}
}

// holds reports whether n's span holds the position (0-based line, char).
func (n codeNode) holds(line, char int32) bool {
	s := n.span
	return n.hasSpan && (line > s[0] || line == s[0] && char >= s[1]) && (line < s[2] || line == s[2] && char < s[3])
}

// within reports whether n's span lies inside o's.
func (n codeNode) within(o codeNode) bool {
	a, b := n.span, o.span
	return (a[0] > b[0] || a[0] == b[0] && a[1] >= b[1]) && (a[2] < b[2] || a[2] == b[2] && a[3] <= b[3])
}

// index collects the payload's code nodes.
func (f *file) index(uncallable map[string]bool) {
	f.nodes, f.byName, f.symbolSet = nil, map[string][]int{}, map[int]bool{}
	for i, n := range f.p.Nodes {
		if n.Path != f.p.Path || n.Line <= 0 || (n.Kind != graph.KindFunction && n.Kind != graph.KindMethod && n.Kind != graph.KindClass) {
			continue
		}
		if tk := n.Metadata[graph.MetaTypeKind]; tk == "interface" || tk == "type" {
			uncallable[n.UID] = true
		}
		end := max(n.EndLine, n.Line)
		last := n.Label[strings.LastIndexByte(n.Label, '.')+1:]
		f.byName[last] = append(f.byName[last], len(f.nodes))
		f.nodes = append(f.nodes, codeNode{uid: n.UID, line: n.Line, end: end, at: i})
	}
}

// paint records, for each line, the innermost node holding it: bigger
// spans first, and of equal spans the later one last. A node also holds
// the enclosing ranges of its other definitions (extra): cos keeps one
// node per uid, with the lines of its first declaration, and a TypeScript
// overload's implementation or a Python property setter lies outside
// them.
func (f *file) paint() {
	spans := make([]codeNode, 0, len(f.nodes)+len(f.extra))
	spans = append(spans, f.nodes...)
	spans = append(spans, f.extra...)
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		na, nb := spans[order[a]], spans[order[b]]
		if sa, sb := na.end-na.line, nb.end-nb.line; sa != sb {
			return sa > sb
		}
		return na.line < nb.line
	})
	f.callers = make([]string, len(f.src.lines)+2)
	for _, i := range order {
		n := spans[i]
		for l := max(n.line, 1); l <= n.end && l < len(f.callers); l++ {
			f.callers[l] = n.uid
		}
	}
	at := map[int][]codeNode{}
	for _, n := range spans {
		at[n.line] = append(at[n.line], n)
		if n.end != n.line {
			at[n.end] = append(at[n.end], n)
		}
	}
	f.bounds = map[int][]codeNode{}
	for l, ns := range at {
		if len(ns) > 1 {
			f.bounds[l] = ns
		}
	}
}

// callerAt is the uid an occurrence at r (a SCIP range) comes from, and
// whether that is known. On a line where one node at most begins or ends,
// it is the innermost node holding the line (callerOf). On a line where
// several do, lines cannot tell, and the enclosing ranges of the nodes'
// definitions decide, by line and column: the innermost one holding the
// occurrence; when none does and all of them have one, the innermost
// node holding the whole line (the file for module-level code). When one
// of them has no enclosing range, the caller is not known.
func (f *file) callerAt(r []int32) (string, bool) {
	line := int(r[0]) + 1
	ns, shared := f.bounds[line]
	if !shared {
		return f.callerOf(line), true
	}
	best, all := -1, true
	for i, n := range ns {
		switch {
		case !n.hasSpan:
			all = false
		case n.holds(r[0], r[1]) && (best < 0 || n.within(ns[best])):
			best = i
		}
	}
	if !all {
		return "", false
	}
	if best >= 0 {
		return ns[best].uid, true
	}
	uid, size := f.fileUID, -1
	for _, n := range append(f.nodes[:len(f.nodes):len(f.nodes)], f.extra...) {
		if n.line < line && line < n.end && (size < 0 || n.end-n.line < size) {
			uid, size = n.uid, n.end-n.line
		}
	}
	return uid, true
}

// callerOf is the uid a reference on line (1-based) comes from.
func (f *file) callerOf(line int) string {
	if line > 0 && line < len(f.callers) && f.callers[line] != "" {
		return f.callers[line]
	}
	return f.fileUID
}

// innermost returns the smallest node named name holding line (1-based).
func (f *file) innermost(line int, name string) (int, bool) {
	best := -1
	for _, i := range f.byName[name] {
		best = f.smaller(best, i, line)
	}
	return best, best >= 0
}

// smaller returns, of the node indexes best (-1 for none) and i, the
// smaller node holding line: the shorter, or of two as long the later.
func (f *file) smaller(best, i, line int) int {
	n := f.nodes[i]
	if line < n.line || line > n.end {
		return best
	}
	if best < 0 {
		return i
	}
	b := f.nodes[best]
	if n.end-n.line < b.end-b.line || n.end-n.line == b.end-b.line && n.line > b.line {
		return i
	}
	return best
}

// staleLimit: a document is stale when more than one in staleLimit of its
// definitions names something else than the file's text at its place
// (and at least one does), or places one past the end of the file.
const staleLimit = 50

// stale reports whether the document does not describe the file's text:
// a definition of a type or function whose range, read in the file, is
// not its name.
func (f *file) stale(syms *symbols) bool {
	checked, wrong := 0, 0
	for _, o := range f.doc.GetOccurrences() {
		r := o.GetRange()
		if len(r) > 0 && int(r[0]) >= len(f.src.lines) {
			return true
		}
		if o.GetSymbolRoles()&int32(scippb.SymbolRole_Definition) == 0 {
			continue
		}
		info := syms.info(o.GetSymbol())
		if info.kind != symType && info.kind != symMethod {
			continue
		}
		name := info.name()
		if name == "constructor" || name == "default" || strings.ContainsAny(name, "[]<> ") {
			continue
		}
		sp, ok := f.src.spanOf(r, f.doc.GetPositionEncoding())
		if !ok {
			continue
		}
		checked++
		if f.src.line(sp.line)[sp.col:sp.end] != name {
			wrong++
		}
	}
	return wrong > 0 && wrong*staleLimit >= checked
}

// definitions maps the symbols defined in the tree to uids.
type definitions struct {
	// exact is symbol → uid.
	exact map[string]string
	// canon is the symbol without its package (manager, name, version) →
	// uid, "" when two uids share it. A tree that is itself a library is
	// referred to under two packages: pyright resolves import email.utils,
	// in a copy of the standard library's email package, to typeshed's
	// stub (package python-stdlib 3.11), while the copy's definitions name
	// the project. A reference with no exact definition is looked up
	// without the package when that finds one uid only.
	canon map[string]string
	syms  *symbols
}

func (d *definitions) add(sym, uid string) {
	d.exact[sym] = uid
	c := d.syms.canonical(sym)
	if old, ok := d.canon[c]; ok && old != uid {
		d.canon[c] = ""
	} else if !ok {
		d.canon[c] = uid
	}
}

func (d *definitions) lookup(sym string) (string, bool) {
	if uid, ok := d.exact[sym]; ok {
		return uid, true
	}
	uid := d.canon[d.syms.canonical(sym)]
	return uid, uid != ""
}

// define maps the document's definitions to the payload's nodes.
func (f *file) define(syms *symbols, defs *definitions) {
	for _, o := range f.doc.GetOccurrences() {
		if o.GetSymbolRoles()&int32(scippb.SymbolRole_Definition) == 0 {
			continue
		}
		sym := o.GetSymbol()
		info := syms.info(sym)
		if info.kind != symType && info.kind != symMethod && info.kind != symTerm {
			continue
		}
		r := o.GetRange()
		if len(r) < 3 {
			continue
		}
		if _, done := defs.exact[sym]; done {
			continue
		}
		i, ok := f.innermost(int(r[0])+1, info.name())
		if !ok {
			continue
		}
		n := f.nodes[i]
		defs.add(sym, n.uid)
		if !f.symbolSet[i] {
			f.symbolSet[i] = true
			f.nodes[i].setSpan(o.GetEnclosingRange())
			pn := &f.p.Nodes[n.at]
			pn.Metadata = withMeta(pn.Metadata, graph.MetaSCIPSymbol, sym)
		}
	}
}

// moreDefinitions records the further definitions of the symbols mapped
// to this file's nodes (overload signatures before the implementation
// cos's node is, a property setter after its getter).
func (f *file) moreDefinitions(defs *definitions) {
	for _, o := range f.doc.GetOccurrences() {
		if o.GetSymbolRoles()&int32(scippb.SymbolRole_Definition) == 0 || len(o.GetRange()) < 3 {
			continue
		}
		if uid, ok := defs.exact[o.GetSymbol()]; ok {
			f.moreDefinition(uid, o)
		}
	}
}

// moreDefinition records a further definition of a symbol mapped to uid:
// when it lies outside uid's node, its enclosing range holds code of uid.
func (f *file) moreDefinition(uid string, o *scippb.Occurrence) {
	er := o.GetEnclosingRange()
	if len(er) != 3 && len(er) != 4 || !strings.HasPrefix(uid, "code:") || uidPath(uid) != f.p.Path {
		return
	}
	line := int(o.GetRange()[0]) + 1
	best := ""
	if i, ok := f.innermostAny(line); ok {
		best = f.nodes[i].uid
	}
	if best == uid {
		return
	}
	end := int(er[0])
	if len(er) == 4 {
		end = int(er[2])
	}
	x := codeNode{uid: uid, line: int(er[0]) + 1, end: end + 1}
	x.setSpan(er)
	f.extra = append(f.extra, x)
}

// innermostAny returns the smallest node holding line (1-based).
func (f *file) innermostAny(line int) (int, bool) {
	best := -1
	for i := range f.nodes {
		best = f.smaller(best, i, line)
	}
	return best, best >= 0
}

// uidPath returns the path of a code:function:/code:class: uid.
func uidPath(uid string) string {
	for _, p := range []string{"code:function:", "code:class:"} {
		if rest, ok := strings.CutPrefix(uid, p); ok {
			if i := strings.Index(rest, "::"); i >= 0 {
				return rest[:i]
			}
		}
	}
	return ""
}

// pyAlias matches a Python module-level alias: name = dotted.name.
var pyAlias = regexp.MustCompile(`^([A-Za-z_]\w*)\s*=\s*([A-Za-z_][\w.]*)\s*(#.*)?$`)

// jsAsAlias matches the text before a name an import or export list
// renames: "…_regex as ".
var jsAsAlias = regexp.MustCompile(`([A-Za-z_$][\w$]*)\s+as\s+$`)

// maxAliasChain is how many aliases of aliases are followed.
const maxAliasChain = 3

// followAliases maps the symbols of aliases to what the aliased name maps
// to: a Python module-level alias (isfuture = base_futures.isfuture,
// Charset = _charset.Charset), whose callers call the function or class
// it names, and a name a JavaScript/TypeScript import or export list
// renames (export { _regex as regex } from "./api"). Chains are followed
// maxAliasChain deep.
func followAliases(files []*file, defs *definitions) {
	for range maxAliasChain {
		added := false
		for _, f := range files {
			if f.d != dialectPython && f.d != dialectJS {
				continue
			}
			enc := f.doc.GetPositionEncoding()
			var ends map[[2]int]string
			for _, o := range f.doc.GetOccurrences() {
				sym := o.GetSymbol()
				if o.GetSymbolRoles()&int32(scippb.SymbolRole_Definition) == 0 || scippb.IsLocalSymbol(sym) {
					continue
				}
				if _, done := defs.exact[sym]; done {
					continue
				}
				sp, ok := f.src.spanOf(o.GetRange(), enc)
				if !ok {
					continue
				}
				text := f.src.line(sp.line)
				var rhsEnd int
				if f.d == dialectJS {
					m := jsAsAlias.FindStringSubmatchIndex(text[:sp.col])
					if m == nil {
						continue
					}
					rhsEnd = m[3]
				} else {
					m := pyAlias.FindStringSubmatchIndex(text)
					if sp.col != 0 || m == nil || text[m[2]:m[3]] != text[sp.col:sp.end] {
						continue
					}
					rhsEnd = m[5]
				}
				if ends == nil {
					ends = f.occurrenceEnds()
				}
				rhs, ok := ends[[2]int{sp.line, rhsEnd}]
				if !ok || scippb.IsLocalSymbol(rhs) {
					continue
				}
				if uid, ok := defs.lookup(rhs); ok {
					defs.exact[sym] = uid
					added = true
				}
			}
		}
		if !added {
			return
		}
	}
}

// occurrenceEnds maps where each non-definition occurrence ends (line,
// byte) to its symbol.
func (f *file) occurrenceEnds() map[[2]int]string {
	out := map[[2]int]string{}
	enc := f.doc.GetPositionEncoding()
	for _, o := range f.doc.GetOccurrences() {
		if o.GetSymbolRoles()&int32(scippb.SymbolRole_Definition) != 0 {
			continue
		}
		if sp, ok := f.src.spanOf(o.GetRange(), enc); ok {
			out[[2]int{sp.line, sp.end}] = o.GetSymbol()
		}
	}
	return out
}

// site is a name at a place: a 0-based line and the text of the name.
type site struct {
	line int
	name string
}

// What an index found at a site.
const (
	siteGlobal uint8 = 1 << iota // a global symbol (ours or outside)
	siteLocal                    // a local symbol (a variable, a nested function, a prototype member)
	siteParam                    // a parameter
	siteMapped                   // a symbol that maps to a node
)

// rewrite replaces the payload's inferred calls and references with the
// document's; inferred counts, by target uid, the sites whose edge stays
// the extractor's (see Result.InferredSites).
func (f *file) rewrite(syms *symbols, defs *definitions, uncallable map[string]bool, inferred map[string]int, res *Result) {
	p := f.p
	enc := f.doc.GetPositionEncoding()
	// An interface or type alias cannot be called: where a merged
	// declaration (interface C and function C) has an occurrence of each
	// symbol at one place, only the callable one's is a call.
	callableAt := map[[2]int32]bool{}
	for _, o := range f.doc.GetOccurrences() {
		r := o.GetRange()
		if len(r) < 3 || o.GetSymbolRoles()&int32(scippb.SymbolRole_Definition) != 0 {
			continue
		}
		if uid, ok := defs.lookup(o.GetSymbol()); ok && !uncallable[uid] {
			callableAt[[2]int32{r[0], r[1]}] = true
		}
	}
	sites := map[site]uint8{}
	// unsure are the 0-based lines with an occurrence whose caller is not
	// known (callerAt): their inferred edges stay. counted are the targets
	// already counted as inferred at such a line.
	unsure := map[int]bool{}
	counted := map[site]bool{}
	// dynamic counts, by caller, the calls through func values;
	// localCalls are the callers of those through a local symbol, by
	// site (a kept inferred edge there says what is called).
	dynamic := map[string]int{}
	localCalls := map[site][]string{}
	type key struct{ src, dst, typ string }
	var added []graph.Edge
	at := map[key]int{}
	for _, o := range f.doc.GetOccurrences() {
		roles := o.GetSymbolRoles()
		if roles&int32(scippb.SymbolRole_Definition) != 0 {
			continue
		}
		sp, ok := f.src.spanOf(o.GetRange(), enc)
		if !ok {
			continue
		}
		text := f.src.line(sp.line)[sp.col:sp.end]
		sk := site{sp.line, text}
		sym := o.GetSymbol()
		info := syms.info(sym)
		caller, sure := f.callerAt(o.GetRange())
		dynCaller := caller
		if !sure {
			dynCaller = f.callerOf(sp.line + 1)
		}
		if local := scippb.IsLocalSymbol(sym); local || info.kind == symParam {
			// A call through a variable or a parameter: a func value.
			if local {
				sites[sk] |= siteLocal
			} else {
				sites[sk] |= siteParam
			}
			if f.src.isCall(sp, f.d) && !f.src.imports[sp.line] {
				dynamic[dynCaller]++
				if local {
					localCalls[sk] = append(localCalls[sk], dynCaller)
				}
			}
			continue
		}
		if info.kind == symOther || info.kind == symModule {
			continue
		}
		sites[sk] |= siteGlobal
		uid, ok := "", false
		if info.constructor {
			uid, ok = defs.lookup(classOfConstructor(sym))
		}
		if !ok {
			uid, ok = defs.lookup(sym)
		}
		if !ok {
			if info.kind == symTerm && f.src.isCall(sp, f.d) && !f.src.imports[sp.line] {
				// A call through a field or variable (self.callback()).
				dynamic[dynCaller]++
			}
			continue
		}
		if f.src.imports[sp.line] || roles&int32(scippb.SymbolRole_Import) != 0 {
			continue
		}
		if !sure {
			// Several declarations on the line and no enclosing ranges:
			// which one calls uid is not known. The line keeps its
			// inferred edges, and uid has a site the index did not place.
			unsure[sp.line] = true
			if ts := (site{sp.line, uid}); !counted[ts] {
				counted[ts] = true
				inferred[uid]++
				res.InferredSites++
			}
			continue
		}
		typ := graph.EdgeReferences
		if r := o.GetRange(); f.src.isCall(sp, f.d) && !(uncallable[uid] && callableAt[[2]int32{r[0], r[1]}]) {
			typ = graph.EdgeCalls
		}
		if caller == uid && typ != graph.EdgeCalls {
			continue // a name in its own declaration; a recursive call stays
		}
		sites[sk] |= siteMapped
		k := key{caller, uid, typ}
		if i, dup := at[k]; dup {
			added[i].Line = min(added[i].Line, sp.line+1)
			continue
		}
		at[k] = len(added)
		added = append(added, graph.Edge{Source: caller, Target: uid, Type: typ, Extractor: p.Extractor, Line: sp.line + 1})
		if typ == graph.EdgeCalls {
			res.Calls++
		} else {
			res.References++
		}
	}

	// The inferred edges: calls and references go where the index says
	// what is at their site; they stay where it says nothing (no
	// occurrence of the callee's name, or a local symbol only: the index
	// did not cover the site, and the extractor's edge is what is known)
	// and on the lines whose caller the index cannot place.
	labels := map[string]string{}
	for _, n := range p.Nodes {
		if n.Kind == graph.KindExternal {
			labels[n.UID] = n.Label
		}
	}
	var edges []graph.Edge
	for _, e := range p.Edges {
		if e.Type != graph.EdgeCalls && e.Type != graph.EdgeReferences {
			edges = append(edges, e)
			continue
		}
		line := e.Line - 1
		if label, stub := labels[e.Target]; stub {
			member := label[strings.LastIndexByte(label, '.')+1:]
			s := sites[site{line, member}]
			switch {
			case unsure[line]:
			case s&siteMapped != 0:
				continue // the index's edge replaces it
			case strings.HasPrefix(label, stubStar) && s&siteGlobal != 0:
				continue // a receiver of a known type outside the tree
			case !strings.Contains(label, ".") && s&(siteLocal|siteParam) != 0:
				continue // a call through a local variable: not a callee
			}
			if e.Type == graph.EdgeCalls && strings.HasPrefix(label, stubStar) {
				res.Unresolved++
			}
			edges = append(edges, e)
			continue
		}
		name, ok := declName(e.Target)
		if !ok {
			continue
		}
		sk := site{line, name}
		if s := sites[sk]; !unsure[line] && s&^siteLocal != 0 {
			continue // the index says what is there
		}
		for _, c := range localCalls[sk] {
			dynamic[c]-- // not a func value: the edge names the callee
		}
		delete(localCalls, sk)
		k := key{e.Source, e.Target, e.Type}
		if _, dup := at[k]; dup {
			continue
		}
		at[k] = -1
		e.Metadata = withMeta(e.Metadata, graph.MetaInferred, true)
		edges = append(edges, e)
		if ts := (site{line, e.Target}); !counted[ts] {
			counted[ts] = true
			inferred[e.Target]++
			res.InferredSites++
		}
	}
	p.Edges = append(edges, added...)

	// Stubs no edge points at any more go.
	targeted := map[string]bool{}
	for _, e := range p.Edges {
		targeted[e.Target] = true
	}
	nodes := p.Nodes[:0]
	for _, n := range p.Nodes {
		if n.Kind == graph.KindExternal && n.Metadata["stub"] == true && !targeted[n.UID] {
			continue
		}
		nodes = append(nodes, n)
	}
	p.Nodes = nodes
	for i := range p.Nodes {
		if n := dynamic[p.Nodes[i].UID]; n > 0 {
			p.Nodes[i].Metadata = withMeta(p.Nodes[i].Metadata, graph.MetaDynamicCalls, n)
			res.DynamicCalls += n
		}
		if p.Nodes[i].UID != f.fileUID {
			continue
		}
		m := withMeta(p.Nodes[i].Metadata, graph.MetaExtraction, graph.ExtractionPrecise)
		m[graph.MetaIndexer] = f.ix.Indexer
		if _, ok := m[graph.MetaLanguage]; !ok && f.doc.GetLanguage() != "" {
			m[graph.MetaLanguage] = strings.ToLower(f.doc.GetLanguage())
		}
		p.Nodes[i].Metadata = m
	}
}

// declName returns the name a code:function: or code:class: uid's
// declaration has in the source: the last segment of its label
// (code:function:p.js::Animal.speak → speak).
func declName(uid string) (string, bool) {
	if !strings.HasPrefix(uid, "code:function:") && !strings.HasPrefix(uid, "code:class:") {
		return "", false
	}
	i := strings.LastIndex(uid, "::")
	if i < 0 {
		return "", false
	}
	label := uid[i+2:]
	return label[strings.LastIndexByte(label, '.')+1:], label != ""
}

// withMeta returns a copy of m with key set to v (the payload's maps may
// be shared).
func withMeta(m map[string]any, key string, v any) map[string]any {
	out := make(map[string]any, len(m)+2)
	for k, x := range m {
		out[k] = x
	}
	out[key] = v
	return out
}

// synthesize gives a file of a language cos does not parse the nodes its
// document defines: classes, functions and methods (of a class defined in
// the file), each contained by its class or the file, spanning the lines
// of the definition's enclosing range.
func (f *file) synthesize(syms *symbols) {
	p := f.p
	seen := map[string]bool{}
	for _, n := range p.Nodes {
		seen[n.UID] = true
	}
	classes := map[string]string{} // label → uid
	for pass := 0; pass < 2; pass++ {
		for _, o := range f.doc.GetOccurrences() {
			if o.GetSymbolRoles()&int32(scippb.SymbolRole_Definition) == 0 {
				continue
			}
			info := syms.info(o.GetSymbol())
			r := o.GetRange()
			if len(r) < 3 || (pass == 0) != (info.kind == symType) {
				continue
			}
			label := info.label()
			var uid, kind, container string
			switch {
			case info.kind == symType:
				uid, kind, container = graph.CodeUID("class", p.Path, label), graph.KindClass, f.fileUID
				classes[label] = uid
			case info.kind == symMethod && len(info.chain) == 1:
				uid, kind, container = graph.CodeUID("function", p.Path, label), graph.KindFunction, f.fileUID
			case info.kind == symMethod && info.parentType:
				c, ok := classes[strings.Join(info.chain[:len(info.chain)-1], ".")]
				if !ok {
					continue
				}
				uid, kind, container = graph.CodeUID("function", p.Path, label), graph.KindMethod, c
			default:
				continue
			}
			if seen[uid] {
				continue
			}
			seen[uid] = true
			line := int(r[0]) + 1
			end := line
			if er := o.GetEnclosingRange(); len(er) == 3 {
				end = int(er[0]) + 1
			} else if len(er) == 4 {
				end = int(er[2]) + 1
			}
			p.Nodes = append(p.Nodes, graph.Node{UID: uid, Kind: kind, Label: label, Path: p.Path, Line: min(line, end), EndLine: max(line, end), Extractor: p.Extractor})
			p.Edges = append(p.Edges, graph.Edge{Source: container, Target: uid, Type: graph.EdgeContains, Extractor: p.Extractor, Line: line})
		}
	}
}

// Digest is a digest of what a payload puts in the graph (its content
// hash, nodes, edges and parse errors; not its timing), ignoring the
// precise_digest metadata of its file node, in 16 hex digits.
func Digest(p graph.FileExtracted) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", p.Path, p.Extractor, p.ContentHash)
	for _, n := range p.Nodes {
		m := n.Metadata
		if _, ok := m[graph.MetaPreciseDigest]; ok {
			m = withMeta(m, graph.MetaPreciseDigest, nil)
			delete(m, graph.MetaPreciseDigest)
		}
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%d\x00%d\x00%s\x00%s\x00", n.UID, n.Kind, n.Label, n.Path, n.Line, n.EndLine, n.Extractor, canonicalMeta(m))
	}
	h.Write([]byte("edges\x00"))
	for _, e := range p.Edges {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%d\x00%s\x00", e.Source, e.Target, e.Type, e.Extractor, e.Line, canonicalMeta(e.Metadata))
	}
	h.Write([]byte("errors\x00"))
	for _, s := range p.ParseErrors {
		fmt.Fprintf(h, "%s\x00", s)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// canonicalMeta is metadata as JSON with sorted keys, "" when empty.
func canonicalMeta(m map[string]any) string {
	if len(m) == 0 {
		return ""
	}
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Sprint(m)
	}
	return string(b)
}
