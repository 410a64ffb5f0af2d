// Command clangaccuracy compares the calls edges cos extracts from C and
// C++ with clang's resolution of every call, and prints precision and
// recall per category as Markdown. The comparison and the mapping of
// declarations to cos uids are scripts/internal/calloracle's (its doc.go);
// this file says what the oracle reports.
//
//	go run ./scripts/clangaccuracy [-v] [-top 10] [-json FILE] [-project lua,leveldb] [-clang PATH]
//	go run ./scripts/clangaccuracy [-v] -dir DIR [-lang C++]
//
// Default projects, fetched with git into $COS_ORACLE_CACHE/src/NAME
// (calloracle.Fetch): lua/lua at 53b41d0cddd80bf33fdc631bdd32e3ba53842b89
// (C) and google/leveldb at 78a352f47ed6c1e9d750545e9b242289185b87e1
// (C++); their units and flags are in main.go.
//
// # The oracle
//
// For every translation unit — from compile_commands.json at the
// project's root when there is one, else the project's globs, else (-dir)
// every .c/.cc/.cpp/.cxx file with -I for each folder holding a header —
// clang -fsyntax-only -Xclang -ast-dump=json -Wno-everything runs in the
// project folder and its dump is decoded as a stream (astwalk.go): never
// whole, since a C++ unit's dump is hundreds of megabytes. The dumper
// writes a location's file only when it changes and its line only when
// it or the file changes, so every location is read in document order; a
// location inside a macro expansion is its expansion location.
//
// Calls:
//
//   - CallExpr whose callee (through implicit casts and parentheses) is a
//     DeclRefExpr to a function: category "direct", or "static member"
//     for a method (C::s(), s() inside C); any other callee (a function
//     pointer, a member holding one) is counted "indirect" and left out;
//   - CXXMemberCallExpr: the MemberExpr's referencedMemberDecl; category
//     "this" when the object is this (written or implicit), else
//     "member" (x.m(), p->m());
//   - CXXConstructExpr and CXXTemporaryObjectExpr: clang 14 names no
//     constructor, so it is found by the constructed record's qualified
//     name (desugared, const dropped) and the constructor's type
//     (ctorType) among the unit's constructor declarations; category
//     "constructor". An implicit (compiler-declared) constructor, a copy
//     or move included, is left out ("implicit_decls_left_out"), as are
//     calls of implicitly declared builtins;
//   - CXXOperatorCallExpr (a == b, it++, v[i]) is counted
//     "operator_calls_left_out": not written as a call; calls of a
//     lambda's operator() are left out as well.
//
// The site is the callee's name (the end of its DeclRefExpr or
// MemberExpr; the start of a construction); only sites in the project's
// files count, once per (site, callee) however many units include the
// header holding them. The caller is the innermost function around the
// site (a lambda's body belongs to the function around the lambda); at
// file scope, the file.
//
// Declarations are keyed by mangled name (a static C function's by name
// and file). The callee's place is its definition — the first declaration
// with a body in any unit — and its other in-tree declarations are the
// decls (a prototype in a header, a method's declaration in its class).
// With no definition (a pure virtual method, a function of a file no unit
// compiles) the first in-tree declaration stands for it; with no
// declaration in the tree, the callee is external and only counted. Its
// class is the path of records around it (nested records joined by ".",
// namespaces left out).
//
// # Categories
//
// Besides the form above: the callee kind — function, static function
// (internal linkage), method, static method, virtual method (declared
// virtual or overriding), constructor; the context — plain, or macro
// expansion (the call is written inside a macro's body or argument).
//
// # Caveats
//
// Calls inside uninstantiated templates (dependent names) are not
// resolved; calls in template instantiations are, at the template's
// lines. Attributes the walker skips unread are assumed to hold no
// location (the dumper's running file and line would otherwise drift).
package main
