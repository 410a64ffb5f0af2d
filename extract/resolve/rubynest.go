package resolve

import "strings"

// nested resolves a constant read inside Ruby modules: in a scope
// lang.RubyNestScope + "A::B" the name C is A::B::C, A::C or C of the
// "rb:" scope, the first one declared (Ruby's lexical constant lookup),
// with whatever follows the constant (".m") kept; C itself when none is.
// A C# namespace list (csharpListScope) is resolved by csharpNested.
// Other scopes are returned unchanged.
func (t *Table) nested(scope, name string) (string, string) {
	if list, ok := strings.CutPrefix(scope, csharpListScope); ok {
		return t.csharpNested(list, name)
	}
	if list, ok := strings.CutPrefix(scope, scalaSearchScope); ok {
		return t.scalaSearch(list, name)
	}
	nest, ok := strings.CutPrefix(scope, rubyNestScope)
	if !ok {
		return scope, name
	}
	const rb = "rb:"
	name = strings.TrimPrefix(name, "::")
	constant, rest := name, ""
	if i := strings.IndexByte(name, '.'); i >= 0 {
		constant, rest = name[:i], name[i:]
	}
	names, _ := t.names(rb)
	for nest != "" {
		if c := nest + "::" + constant; len(names[c]) > 0 {
			return rb, c + rest
		}
		i := strings.LastIndex(nest, "::")
		if i < 0 {
			break
		}
		nest = nest[:i]
	}
	return rb, name
}

// rubyNestScope prefixes a Ruby reference's scope with the modules it is
// read in (lang.RubyNestScope).
const rubyNestScope = "rbnest:"
