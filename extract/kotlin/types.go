package kotlin

import (
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// typeText is the dotted name of a type node without type arguments,
// nullability or annotations ("a.b.C" of a.b.C<T>?); "" for a function
// type.
func typeText(t *sitter.Node, src []byte) string {
	if t == nil {
		return ""
	}
	switch t.Kind() {
	case "user_type":
		var b strings.Builder
		for i := uint(0); i < t.NamedChildCount(); i++ {
			if c := t.NamedChild(i); c.Kind() == "identifier" {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(ts.Text(c, src))
			}
		}
		return b.String()
	case "nullable_type", "parenthesized_type", "non_nullable_type":
		return typeText(firstType(t), src)
	}
	return ""
}

// typeChain is the chain of an instance of the type node t; nil for
// function types and type parameters.
func (f *file) typeChain(t *sitter.Node, cx *ctx) *lang.Chain {
	q := typeText(t, f.src)
	if q == "" {
		return nil
	}
	if !strings.Contains(q, ".") {
		return f.resolveType(q, cx)
	}
	return f.resolveDotted(q, cx)
}

// resolveDotted resolves A.B.C: a class A (then its nested B.C) or a
// package-qualified name.
func (f *file) resolveDotted(q string, cx *ctx) *lang.Chain {
	head, rest, _ := strings.Cut(q, ".")
	if head != "" && head[0] >= 'A' && head[0] <= 'Z' {
		if h := f.resolveType(head, cx); h != nil {
			return &lang.Chain{Scope: h.Scope, Name: h.Name + "." + rest, Inst: true}
		}
		return nil
	}
	pkg, name := splitQualified(q)
	return &lang.Chain{Scope: ScopePrefix + pkg, Name: name, Inst: true}
}

// builtins maps the default-imported types a name falls back to (kotlin,
// kotlin.collections, …, and java.lang on the JVM) to their package; an
// in-tree class of the name wins through an import or the file's classes.
var builtins = map[string]string{}

func init() {
	for _, n := range strings.Fields(`Any Nothing Unit String Int Long Short Byte Char Boolean Double Float Number
	Array IntArray LongArray ByteArray CharArray ShortArray BooleanArray DoubleArray FloatArray
	CharSequence Comparable Enum Throwable Exception RuntimeException Error IllegalArgumentException
	IllegalStateException NullPointerException UnsupportedOperationException IndexOutOfBoundsException
	NoSuchElementException ClassCastException ArithmeticException NumberFormatException AssertionError
	Lazy Pair Triple Result Function Deprecated Suppress`) {
		builtins[n] = "kotlin"
	}
	for _, n := range strings.Fields(`List MutableList Set MutableSet Map MutableMap Collection MutableCollection
	Iterable MutableIterable Iterator MutableIterator ArrayList HashMap HashSet LinkedHashMap LinkedHashSet`) {
		builtins[n] = "kotlin.collections"
	}
	for _, n := range strings.Fields(`Object Runnable Thread System Math StrictMath Class ClassLoader AutoCloseable
	Cloneable Process Runtime InterruptedException StringBuffer`) {
		builtins[n] = "java.lang"
	}
	builtins["Sequence"] = "kotlin.sequences"
	builtins["Regex"] = "kotlin.text"
	builtins["StringBuilder"] = "kotlin.text"
	for _, n := range []string{"JvmStatic", "JvmField", "JvmName", "JvmOverloads"} {
		builtins[n] = "kotlin.jvm"
	}
	builtins["Throws"] = "kotlin.jvm"
}

// resolveType resolves a simple type name seen in cx: type parameters
// (nil), nested and enclosing classes, the file's classes, imports, a
// file <Name>.kt of a star-imported package, the kotlin package's types,
// else the file's own package.
func (f *file) resolveType(name string, cx *ctx) *lang.Chain {
	if cx != nil {
		if cx.tparams[name] {
			return nil
		}
		for c := cx.cls; c != nil; c = c.outer {
			if c.tparams[name] {
				return nil
			}
			if !c.named {
				continue
			}
			if _, ok := f.classes[c.name+"."+name]; ok {
				return &lang.Chain{Scope: f.scope, Name: c.name + "." + name, Inst: true}
			}
			if c.name == name || strings.HasSuffix(c.name, "."+name) {
				return &lang.Chain{Scope: f.scope, Name: c.name, Inst: true}
			}
		}
	}
	if _, ok := f.classes[name]; ok {
		return &lang.Chain{Scope: f.scope, Name: name, Inst: true}
	}
	if c, ok := f.imports[name]; ok {
		return &lang.Chain{Scope: c.Scope, Name: c.Name, Inst: true}
	}
	if f.env.Files[path.Join(f.dir, name+".kt")] {
		return &lang.Chain{Scope: f.scope, Name: name, Inst: true}
	}
	for _, p := range f.stars {
		if _, ok := f.fileExists(p, name); ok {
			return &lang.Chain{Scope: ScopePrefix + p, Name: name, Inst: true}
		}
	}
	if p, ok := builtins[name]; ok {
		return &lang.Chain{Scope: ScopePrefix + p, Name: name, Inst: true}
	}
	return &lang.Chain{Scope: f.scope, Name: name, Inst: true}
}

// isType reports whether a capitalised simple name names a class (it
// always resolves to one: the file's package is the fallback).
func isType(name string) bool {
	return name != "" && name[0] >= 'A' && name[0] <= 'Z' && !isConstant(name)
}

// isConstant reports whether a name is written as a constant (FOO_BAR).
func isConstant(s string) bool {
	return strings.ToUpper(s) == s && len(s) > 1
}

func copyChain(c *lang.Chain) *lang.Chain {
	if c == nil {
		return nil
	}
	n := *c
	n.Steps = append([]string(nil), c.Steps...)
	return &n
}
