// Package scala reads Scala files (.scala, .sc) with tree-sitter: the
// package (scope "scala:<package>", chained clauses package a; package b
// read as a.b, a package block's name appended to the enclosing one),
// classes, case classes, traits, objects and enums
// (code:class:<path>::<Name>, nested ones <Outer>.<Inner>; a companion
// object shares its class's node, metadata companion), methods and named
// given instances (code:function:<path>::<Class>.<method>, kind method,
// contained by their type; overloads are one node), top-level defs
// (code:function:<path>::<name>, kind function), imports and calls, and
// extends/with clauses: the first parent of a class or object is
// inherits_from unless it is a trait of the same file (then implements,
// as every with-mixin is); a trait's parents are inherits_from.
//
// Imports become imports edges to the in-tree file declaring the imported
// class, object or top-level def (resolved through the package's
// declarations, so a file need not be named after its class); a package
// wildcard (import a.b._ or a.b.*) points at the package's folder under
// the file's source root when it holds Scala files.
//
// Vals, vars and class parameters are no nodes: a class node lists them
// (metadata fields) and their types type receivers. Enum cases are fields
// of their enum. Calls inside lambdas, local defs and anonymous classes
// belong to the enclosing method; a constructor's code (the template
// body's statements, field initialisers) calls from the class.
//
// Receivers are typed without a compiler, by the facts package resolve
// evaluates: parameters and class parameters by declared type, vals and
// vars by declared type or by their initialiser (new T(…), a case-class
// apply T(…), a call whose declared return type is known), typed patterns
// (case x: T), this, super, Obj.f() on an object and parameterless defs
// with a declared type. new T(…) and T(…) of a class call the class node;
// the superclass's arguments in extends B(…) call B. An unqualified m()
// goes to the innermost enclosing type declaring m, else a top-level def
// of the file, else a member imported from an object, else the enclosing
// type's bases. Type parameters, tuples and untyped lambda parameters are
// unknown: such a call is a "*.m" stub, never a guess. Implicit
// conversions, extension methods and operators are not followed, so
// callers found by name are a lower bound.
package scala
