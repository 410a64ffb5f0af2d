// Package csharp reads C# files (.cs, .csx) with tree-sitter: namespaces
// (block and file-scoped), classes, structs, interfaces, records and enums
// (code:class:<path>::<Name>, nested ones <Outer>.<Inner>; type_kind in
// the metadata), methods and properties with code
// (code:function:<path>::<Type>.<Member>, kind method, contained by their
// type; overloads are one node, with the lines of the first), using
// directives (imports edges to the in-tree files, or their common folder,
// declaring the namespace), base lists (inherits_from and implements
// edges) and calls.
//
// # Scopes
//
// A file declares its names in the scope "cs:<namespace>" of its first
// type declaration; a type of a nested namespace of that one is declared
// with the remainder ("Inner.T" in "cs:A" for namespace A.Inner), a type
// of an unrelated second namespace of the file gets its node but no
// declaration. Partial classes are one node per file, declared in the same
// scope, so a method declared in any file of the class is found. A type
// named in the file resolves through its nested types, the types of the
// file, using aliases, and otherwise to the scope list
// "csns:<ns>|<parent>|…||<using>|…", which package resolve looks the name
// up in, first declaration wins (the C# lookup order of enclosing
// namespaces, then using directives).
//
// # Members and calls
//
// A constructor is its type, as in package java: new T(…), target-typed
// new() where the type is declared (T x = new(), fields) and : base(…)
// call the type node, and a constructor's body, field initialisers,
// accessors of auto-properties, operators, indexers and events call from
// it. Fields and auto-properties are no nodes: a type node lists them
// (metadata fields) and their declared types type receivers. Calls inside
// lambdas and local functions belong to the enclosing member; a call of a
// local function is dropped.
//
// Receivers are typed without a compiler, by the facts package resolve
// evaluates: parameters, locals (var from its initialiser), foreach,
// catch, out and pattern variables, fields and properties of the type and
// of its outer types (inherited ones through the bases), this, base,
// T.Static(), declared return types of called methods, casts and as. An
// unqualified M() goes to the innermost enclosing type declaring M in the
// file, else to a using static type, else to the type's bases. Generic
// type parameters, arrays, dynamic and extension methods are unknown: such
// a call is a "*.M" stub, never a guess.
//
// # Bases
//
// In a base list the kind of a base is known when the file declares it;
// otherwise a name I<Upper>… is an interface (the .NET naming rule) and
// the first other base of a class or record its superclass. A class's
// superclass is an inherits_from edge, its interfaces implements edges; a
// struct's bases are implements edges, an interface's inherits_from edges
// (as Java's interface extends). An enum's base is its underlying type and
// no edge.
package csharp
