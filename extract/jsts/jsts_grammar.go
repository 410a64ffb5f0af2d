package jsts

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// The JavaScript, TypeScript and TSX grammars as the extractor reads them:
// symbol and field ids resolved once, and a walk that can skip subtrees.

// jsGrammar holds the symbol and field ids used on hot paths.
// The JavaScript and TypeScript grammars, loaded once.
var (
	langJavaScript = sitter.NewLanguage(tsjs.Language())
	langTypeScript = sitter.NewLanguage(tsts.LanguageTypescript())
	langTSX        = sitter.NewLanguage(tsts.LanguageTSX())
)

type jsGrammar struct {
	call, new, arrow, function, funcDecl, generator, generatorDecl, method, class, classDecl, abstractClassDecl uint16
	declarator, catch, forIn, ret, assign                                                                       uint16
	ident, member, shorthand, typeIdent, typeAlias, iface                                                       uint16
	fieldFunction, fieldConstructor, fieldLeft                                                                  uint16
	// kinds names each symbol id and fields maps field names to ids:
	// Node.Kind and Node.ChildByFieldName allocate (a Go string, a C
	// string) on every call, which shows on a large tree.
	kinds  []string
	fields map[string]uint16
	// types are the kinds of TypeScript type syntax (annotations, type
	// arguments, every *_type): no call is written inside, so walks do
	// not enter them, a good part of a typed file; the type names in
	// them are read apart (typeRefs).
	types []bool
}

func newJSGrammar(l *sitter.Language) jsGrammar {
	id := func(kind string) uint16 { return l.IdForNodeKind(kind, true) }
	g := jsGrammar{
		call: id("call_expression"), new: id("new_expression"),
		arrow: id("arrow_function"), function: id("function_expression"), funcDecl: id("function_declaration"),
		generator: id("generator_function"), generatorDecl: id("generator_function_declaration"),
		method: id("method_definition"), class: id("class"), classDecl: id("class_declaration"), abstractClassDecl: id("abstract_class_declaration"),
		declarator: id("variable_declarator"), catch: id("catch_clause"), forIn: id("for_in_statement"),
		ret: id("return_statement"), assign: id("assignment_expression"),
		ident: id("identifier"), member: id("member_expression"), shorthand: id("shorthand_property_identifier"),
		typeIdent: id("type_identifier"), typeAlias: id("type_alias_declaration"), iface: id("interface_declaration"),
		fieldFunction: l.FieldIdForName("function"), fieldConstructor: l.FieldIdForName("constructor"), fieldLeft: l.FieldIdForName("left"),
		fields: map[string]uint16{},
	}
	g.kinds = make([]string, l.NodeKindCount())
	g.types = make([]bool, len(g.kinds))
	for i := range g.kinds {
		k := l.NodeKindForId(uint16(i))
		g.kinds[i] = k
		switch k {
		case "type_annotation", "type_arguments", "type_parameters", "type_alias_declaration", "interface_declaration",
			"type_predicate_annotation", "asserts_annotation", "nested_type_identifier", "type_query":
			g.types[i] = l.NodeKindIsNamed(uint16(i))
		default:
			g.types[i] = strings.HasSuffix(k, "_type") && l.NodeKindIsNamed(uint16(i))
		}
	}
	for i := uint32(1); i <= l.FieldCount(); i++ {
		g.fields[l.FieldNameForId(uint16(i))] = uint16(i)
	}
	return g
}

// kind is n.Kind() without the allocation.
func (js *jsFile) kind(n *sitter.Node) string {
	if id := int(n.KindId()); id < len(js.grammar.kinds) {
		return js.grammar.kinds[id]
	}
	return n.Kind()
}

// field is n.ChildByFieldName(name) without the allocation; nil for a nil
// n.
func (js *jsFile) field(n *sitter.Node, name string) *sitter.Node {
	if n == nil {
		return nil
	}
	if id, ok := js.grammar.fields[name]; ok {
		return n.ChildByFieldId(id)
	}
	return nil
}

var (
	jsGrammarJS  = newJSGrammar(langJavaScript)
	jsGrammarTS  = newJSGrammar(langTypeScript)
	jsGrammarTSX = newJSGrammar(langTSX)
)
