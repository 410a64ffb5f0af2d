// Package swift reads Swift files (.swift) with tree-sitter (a vendored
// generated grammar, extract/internal/grammar/swift): classes, structs,
// enums, actors and protocols (code:class:<path>::<Name>, metadata
// type_kind; nested ones <Outer>.<Inner>), free functions
// (code:function:<path>::<name>), methods, subscripts and protocol
// requirements (code:function:<path>::<Type>.<name>, kind method, overloads
// one node), imports, inheritance and calls. The scope of a file is its
// module, "swift:<Module>" for a file under a SwiftPM Sources/<Module>/ or
// Tests/<Module>/ folder, else "swift:" (one module for the tree).
//
// The methods of an extension T { … } are T's: code:function:<path>::T.m
// with <path> the extension's file, contained by T's class node, which may
// be in another file of the module; the extension itself has no node. An
// initializer is its type, as a Java constructor is its class: T(…),
// T.init(…) and super.init(…) call the class node, and an initializer's
// body (like property initialisers, computed properties and deinit) calls
// from it. Properties are no nodes: a type node lists them (metadata
// properties) and their declared types type receivers.
//
// import M is an imports edge to the folder Sources/M (or Tests/M) when the
// tree has one, whose names the file then sees (M.T and M.f() too);
// another module is an external stub (code:external:<M>), re-extracted
// when the tree gains the module's folder. The inheritance clause of a class
// gives an inherits_from edge for its first entry (a superclass must come
// first; an entry the file declares as a protocol is implemented instead)
// and implements edges for the others; those of structs, enums, actors and
// of extensions of a type the file declares are implements edges; a
// protocol's are inherits_from edges (protocol refinement).
//
// Receivers are typed without a compiler, by the facts package resolve
// evaluates: self, super, parameters and locals by declared type (T? and
// T! as T), locals from T(…) and from calls with declared return types,
// if/guard let bindings, properties of the type and its bases, T.f()
// static calls, and calls through a protocol type to its requirement (or a
// default implementation in an extension of the protocol). An unqualified
// f() inside a type is the type's member (through its bases and its
// extensions in the module) unless the file declares a free function f.
// Generic parameters, closures' $0 and untyped closure parameters are
// unknown: such a call is a "*.m" stub, never a guess. Callers found this
// way are a lower bound.
package swift
