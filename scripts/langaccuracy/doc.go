// Command langaccuracy compares the calls edges cos extracts from Python,
// TypeScript and JavaScript with the references found by Sourcegraph's
// SCIP indexers (scip-python, scip-typescript: type checkers, pyright and
// tsc, underneath) and prints precision and recall per category as
// Markdown (the rules below). It is the Python/TypeScript sibling of
// scripts/accuracy (Go, against the SSA call graph).
//
//	go run ./scripts/langaccuracy [-v] [-top 10] [-json FILE] [-only NAME,...] [-scip-tools DIR] [-keep]
//
// Targets: the Python standard library packages json, http, email and
// asyncio of the python3 on PATH; rxjs@7.8.1 (src/), zod@3.25.76 (src/v4)
// and express@4.21.2 (lib/, plain JavaScript) from npm.
//
// # Basics
//
// Everything fetched is cached under ${XDG_CACHE_HOME:-$HOME/.cache}/
// cos-langaccuracy: the indexers (@sourcegraph/scip-python@0.6.6,
// @sourcegraph/scip-typescript@0.4.0, installed with npm install --prefix
// <cache>/tools unless found on PATH or in -scip-tools DIR) and the npm
// tarballs (npm pack, unpacked under <cache>/src). Each target is copied
// to its own temporary folder T/target, which both sides index, so both
// see exactly the same files:
//
//   - SCIP: scip-python index --project-name NAME --environment E (E is
//     "[]", so that it never runs pip) in T/target, where a Python
//     package keeps its name (T/target/json/decoder.py: imports of json.*
//     stay in the target); scip-typescript index --cwd T/target with the
//     project T/project, whose tsconfig.json (allowJs, bundler
//     resolution) includes ../target/**, so no file is added to the
//     target. The indexer's wall time, process start included, is
//     measured. The index is decoded with extract/scip.Load; occurrence
//     ranges are converted to byte offsets (UTF-16 units when the
//     document leaves the encoding unspecified, as both indexers do).
//   - cos: extract.Run(ctx, T/target, extract.Options{}, nil, emit), no
//     cache; its function, method and class nodes (path, line range,
//     label) and every edge between code:function:/code:class:/code:file:
//     sources and code:function:/code:class: targets (contains and
//     defines left out) are kept. The wall time is measured.
//
// # Mapping a SCIP symbol to a cos uid
//
// By definition place, never by name alone. For every definition
// occurrence of a global symbol (documents in path order, occurrences in
// index order; the first definition that maps wins):
//
//   - the symbol's last descriptor must be a type (C#), a term (x.) or a
//     method (m().); parameters, type parameters, namespaces and meta
//     descriptors (scip-python's module __init__:) never map;
//   - its name is that descriptor's name, except a TypeScript constructor
//     C#`<constructor>`(). which is named by its class C: new C() is a
//     call of the class, as C() is in Python and as cos records it;
//   - the cos node is the one of the same file whose [Line, EndLine]
//     holds the definition's line and whose label's last segment (after
//     the last ".") equals the name; of several, the smallest range.
//
// Symbols are compared without their package (manager, name, version):
// scheme and descriptors only. The Python targets are standard library
// packages, and scip-python names a symbol reached through an absolute
// import of a stdlib module (import email.utils; email.utils.f()) by
// typeshed's stub, python-stdlib 3.11 `email.utils`/f()., while the
// copy's own definition is named by the project, email 0
// `email.utils`/f().: both are the same module path and definition.
//
// A Python alias at module level or in a class body, a line name =
// dotted.name (Charset = _charset.Charset, isfuture =
// base_futures.isfuture, response_class = HTTPResponse), or an instance
// attribute bound the same way in a method (self.locked = lock.locked),
// maps to what the
// symbol ending its right-hand side maps to (chains of three at most):
// calling the alias calls the aliased function or class. So does a name
// an import or export list renames in TS/JS (export { _regex as regex }
// from "./api": the symbol regex defined there maps to _regex's node). A
// Python alias whose
// right-hand side has no global symbol is opaque: cos edges at its call
// sites are unjudged (below).
//
// A symbol defined in the target that maps to no node is "called with no
// cos node" only when it declares something callable: a method or type
// descriptor, or a TS/JS term whose definition line holds function, =>
// or class and not require( (var debug = require('debug')(...) holds
// another package's function). What does not map is counted apart,
// never scored: local symbols (scip
// "local N": closures, variables), nested functions and classes (Python's
// f().inner()., whose definition lies in f's range but is not named f),
// class attributes, interface method signatures and abstract TypeScript
// methods (cos has no node for them), express's app.handle = function
// (...) properties. Their call sites are counted as "call sites of local
// symbols" and "of in-target symbols with no cos node"; -v lists the
// most called of the latter.
//
// # The truth
//
// Every occurrence that is not a definition, of a symbol that maps to
// uid U, in document P, at line L:
//
//   - in an import or export-list statement (import x from, from m
//     import (a, b), export { a } from, found from the source text;
//     scip-python marks them as plain reads): left out ("import/export
//     references");
//   - the caller is the innermost cos node of P whose lines hold L — a
//     function, a method, or a class for code in a class body outside
//     its methods (cos attributes it to the class) — else the file,
//     code:file:P. Code in a nested function thus belongs to the
//     outermost enclosing node cos has. cos keeps one node per uid, with
//     its first declaration's lines, so the enclosing range of every
//     other definition of a mapped symbol in the same file (a TypeScript
//     overload's implementation after its signatures, a Python property
//     setter or conditional redefinition) is added to the uid's lines;
//   - caller == U is not an edge, nor is cos's self edge (recursion): both
//     sides leave self pairs out;
//   - (caller, U) is a reference pair; it is a calls edge when the
//     occurrence is a call syntactically: followed, after blanks (and in
//     TS/JS a non-null !, type arguments <...> on the same line, ?.), by
//     "(", or preceded by new (new a.b.C included). An interface or
//     type alias is not called: when a merged declaration (interface C
//     and function C) puts several symbols on one call site, the edge to
//     the interface is a reference only — unless no other symbol there
//     maps to a node (zod's interface ZodObject and const ZodObject =
//     core.$constructor(...), where the interface stands for the value).
//
// Edges are sets of (caller uid, callee uid); a pair's sites give it its
// categories.
//
// # Categories
//
// By the form of the call site (the text before the callee's name):
//
//   - super: the name is super itself, or the receiver is super() /
//     super(C, self) / super;
//   - constructor: preceded by new, or a bare name whose callee is a
//     class (C());
//   - self: the receiver is the bare self, cls or this (inherited methods
//     included: the symbol is the declaring class's method);
//   - module_attr: the receiver's occurrence (the one ending where the
//     receiver ends) is a module or namespace symbol (scip-python's
//     `a.b`/__init__:, scip-typescript's `file.ts`/ of import * as ns),
//     or a variable whose definition line holds require( (CommonJS);
//   - constructor again: any other receiver when the callee is a class;
//   - instance: any other receiver (x.m(), a.b.m(), f().m());
//   - function: a bare name f().
//
// A truth pair counts once in each category its sites have. A cos edge
// in the truth counts in the categories the truth gives it; a false
// positive in the form of its own site: the first call of the callee's
// name on the edge's line, classified by the same rules (cos's sites
// are not read otherwise). A cos edge not in the truth whose site has no
// global symbol at the callee's name (no occurrence, or a scip "local",
// or a builtin class on an attribute: scip-python names an attribute it
// cannot type after the builtin of the same name, x.set() as
// builtins/set#; the type checker resolved nothing there) is unjudged: left out of the
// scores, counted and listed apart; so is one whose line does not name
// the callee (zod's checks.regex(...) through export { _regex as regex }
// read from a namespace, where scip-typescript leaves the member local).
// A false positive to a cos node no symbol maps to counts in "all" and
// the kind split only. The second split is by the callee node's kind: function, method,
// abstract/interface method (@abstractmethod or the abstract modifier on
// its first lines, or a method of an interface), class.
//
// References recall: the share of truth reference pairs (any occurrence,
// call or not) for which cos has an edge of any type from caller to
// callee: calls, references, inherits_from, implements, constructs, ...
//
// # Caveats
//
// scip-python names the names imported from a module of the standard
// library's own package (from email.errors import HeaderParseError,
// inside email) as locals, so such calls are in neither the truth nor the
// scores: cos's edges there are unjudged (about 140 in email).
// The call test reads one line: a call whose "(" is on the next line is
// not a call, a TS generic call whose type arguments span lines is not
// either. The receiver is found by text, at most 8 lines back. cos's edge
// line is trusted to be the call's line for classifying false positives.
// scip-typescript records no occurrence for super(...) in a constructor,
// so TS super-constructor calls are not in the truth. pyright and tsc
// resolve what their type inference resolves: a call on an untyped
// (Any) receiver has no symbol and is in neither truth nor scores; in
// plain JavaScript (express) that is most method calls.
package main
