package scip

import (
	"strings"

	scippb "github.com/sourcegraph/scip/bindings/go/scip"
)

// symbolKind is what a global SCIP symbol names, as far as the graph cares.
type symbolKind uint8

const (
	// symOther: a parameter, a type parameter, a macro, a local, or a
	// symbol that does not parse. It maps to no node.
	symOther symbolKind = iota
	// symModule: a module or file (scip-python's `pkg.mod`/__init__:,
	// scip-typescript's src/`a.ts`/, a namespace or package).
	symModule
	// symType: a class, interface, enum, struct or trait (Name#).
	symType
	// symMethod: a function or method (name().).
	symMethod
	// symTerm: a variable, constant, field or property (name.); it maps
	// to a node when the extractor made one (const f = () => … is a
	// function node).
	symTerm
	// symParam: a parameter (m().(x)).
	symParam
)

// symbolInfo is a parsed global symbol.
type symbolInfo struct {
	kind symbolKind
	// chain is the descriptor names after the leading namespaces, outer
	// first: ["Server", "serve"] for …/Server#serve(). A TypeScript
	// constructor (`<constructor>`) is named "constructor".
	chain []string
	// parentType is set when the descriptor before the last is a type: a
	// method or field of a class.
	parentType bool
	// constructor is set on a constructor symbol (`<constructor>`,
	// Java's `<init>`), which
	// a new C() reference maps to the class of, as C() does in Python.
	constructor bool
}

// name is the last name of the chain: what the last segment of a node's
// label must equal for the symbol to map to it.
func (s symbolInfo) name() string {
	if len(s.chain) == 0 {
		return ""
	}
	return s.chain[len(s.chain)-1]
}

// label is the chain joined the way node labels are ("Class.method").
func (s symbolInfo) label() string { return strings.Join(s.chain, ".") }

// symbols parses symbols once each.
type symbols struct {
	parsed map[string]symbolInfo
	canon  map[string]string
}

func newSymbols() *symbols {
	return &symbols{parsed: map[string]symbolInfo{}, canon: map[string]string{}}
}

// canonical returns a global symbol without its package: its scheme and
// descriptors ("scip-python . . . `json.decoder`/JSONDecoder#"). A local
// symbol or one that does not parse is returned as is.
func (c *symbols) canonical(sym string) string {
	if s, ok := c.canon[sym]; ok {
		return s
	}
	out := sym
	if !scippb.IsLocalSymbol(sym) {
		if p, err := scippb.ParseSymbol(sym); err == nil && len(p.Descriptors) > 0 {
			out = p.Scheme + " . . . " + scippb.DescriptorOnlyFormatter.FormatSymbol(p)
		}
	}
	c.canon[sym] = out
	return out
}

// info parses a symbol; a local symbol or one that does not parse is
// symOther.
func (c *symbols) info(sym string) symbolInfo {
	if s, ok := c.parsed[sym]; ok {
		return s
	}
	s := parseSymbolInfo(sym)
	c.parsed[sym] = s
	return s
}

func parseSymbolInfo(sym string) symbolInfo {
	if sym == "" || scippb.IsLocalSymbol(sym) {
		return symbolInfo{}
	}
	p, err := scippb.ParseSymbol(sym)
	if err != nil || len(p.Descriptors) == 0 {
		return symbolInfo{}
	}
	ds := p.Descriptors
	i := 0
	for i < len(ds) && ds[i].Suffix == scippb.Descriptor_Namespace {
		i++
	}
	var s symbolInfo
	for _, d := range ds[i:] {
		switch d.Suffix {
		case scippb.Descriptor_Type, scippb.Descriptor_Term, scippb.Descriptor_Method:
			s.chain = append(s.chain, d.Name)
		case scippb.Descriptor_Meta:
			// scip-python's `mod`/__init__: names the module itself.
			if len(s.chain) == 0 {
				return symbolInfo{kind: symModule}
			}
			return symbolInfo{}
		case scippb.Descriptor_Parameter:
			return symbolInfo{kind: symParam}
		default:
			return symbolInfo{} // type parameters, macros
		}
	}
	if len(s.chain) == 0 {
		return symbolInfo{kind: symModule}
	}
	switch ds[len(ds)-1].Suffix {
	case scippb.Descriptor_Type:
		s.kind = symType
	case scippb.Descriptor_Method:
		s.kind = symMethod
	default:
		s.kind = symTerm
	}
	n := len(s.chain)
	s.parentType = n >= 2 && ds[len(ds)-2].Suffix == scippb.Descriptor_Type
	switch s.chain[n-1] {
	case "<constructor>", "<init>", ".ctor", ".cctor": // TypeScript, Java, C# (scip-dotnet)
		s.chain[n-1] = "constructor"
		s.constructor = s.parentType
	}
	return s
}
