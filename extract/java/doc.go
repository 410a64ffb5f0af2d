// Package java reads Java files (.java) with tree-sitter: the package
// (scope "java:<package>"), classes, interfaces, enums, records and
// annotation types (code:class:<path>::<Name>, nested ones
// <Outer>.<Inner>), methods (code:function:<path>::<Class>.<method>, kind
// method, contained by their class; overloads are one node, with the
// lines of the first), imports (imports edges to the in-tree file of a
// single-type or static import, to the folder of an on-demand one),
// extends (inherits_from) and implements edges, and calls.
//
// A constructor is its class: new X(…), X::new, super(…) and an enum
// constant call the class node, and a constructor's body (like field
// initialisers and initializer blocks) calls from it. Fields are no nodes:
// a class node lists them (metadata fields) and their declared types type
// receivers. Calls inside lambdas, anonymous and local classes belong to
// the enclosing method.
//
// Receivers are typed without a compiler, by the facts package resolve
// evaluates: parameters, locals (var from its initialiser), for-each and
// catch variables, pattern variables, fields of the class and of its outer
// classes (inherited fields through the bases), this, Outer.this, super,
// Type.staticM(), declared return types of called methods, casts. An
// unqualified m() goes to the innermost enclosing class declaring m in the
// file, else to a static import, else to the class's bases. Generic type
// parameters, arrays and untyped lambda parameters are unknown: such a
// call is a "*.m" stub, never a guess. Type names resolve through nested
// classes, the file's classes, single-type imports, the package's folder
// (a file <Name>.java beside the file), on-demand imports (a file in the
// imported package's folder under the same source root) and otherwise the
// file's own package.
package java
