// Package extract turns a repository into graph events: it walks the tree,
// runs one extractor per file and hands graph.FileExtracted payloads for the
// files that changed, and the paths that vanished, to a callback that
// appends them to the log. The uids it mints follow docs/uids.md.
//
// # Basics
//
//	st, err := extract.Run(ctx, root, extract.Options{CacheDir: dir}, previous,
//		func(batch []graph.FileExtracted, removed []string) error { … })
//
// previous maps each repo-relative path already in the graph to its content
// hash (hex SHA-256); a file with the same hash is not emitted again. emit
// gets batches of at most Options.BatchFiles payloads (about
// Options.BatchBytes of JSON) and, on its last call, the removed paths.
//
// # Extractors
//
// Each language or format is a package implementing lang.Extractor
// (golang, python, jsts, java, kotlin, c, cpp, rust, php, ruby, csharp,
// markdown, config, manifest), listed once in
// registry.go; the first that owns a path reads the file. Package lang
// holds what they share with the runner (lang.Result, lang.Ref,
// lang.Decl, lang.Env), package resolve the declarations table, the
// receiver inference and the resolution of references, and
// internal/ts the tree-sitter glue. This package keeps the runner, the
// caches, the walk and the Go packages driver (go/packages and
// go/types, which replace the golang package's syntax-level results for
// every package that type-checks).
//
// Each file has one owner, recorded as FileExtracted.Extractor and on every
// node and edge it emits (folder nodes and edges carry "folder"):
//
//	go        go/types (see "Go" below): code:file, code:module:<import
//	          path> (file defines it), code:function:<path>::<name>,
//	          methods <Type>.<method> (kind method, contained by
//	          code:class:<path>::<Type>), interface methods
//	          <Iface>.<method> (kind method, contained by the interface),
//	          calls, implements, references, constructs, has_param_type,
//	          accesses_field, and imports (to code:module: in the repo,
//	          to go:package: nodes outside)
//	python    tree-sitter: code:module:<dotted> (file defines it), classes,
//	          functions, methods, calls (receivers inferred, see
//	          "Receivers" below), imports, inherits_from, entry points
//	          (Flask, FastAPI, Django urls, click, argparse, FastMCP,
//	          grpcio, __main__) with handled_by
//	jsts      tree-sitter (JS, TS, TSX): functions, classes, interfaces,
//	          methods (see "JavaScript and TypeScript" below), calls and new
//	          (receivers inferred), references (values and types used),
//	          imports and require() (code:file: or npm:package:),
//	          inherits_from (extends), implements, entry points
//	          (Express, Koa, Fastify, NestJS, commander, yargs, MCP SDK,
//	          node:events, kafkajs, ws, grpc-js) with handled_by
//	java      tree-sitter: classes, interfaces, enums, records and
//	          annotation types (nested as Outer.Inner), methods (overloads
//	          one node), calls (receivers typed from declarations; new X()
//	          calls the class), imports (to in-tree files and package
//	          folders), inherits_from (extends), implements; scope
//	          "java:<package>" (see package java)
//	kotlin    tree-sitter (.kt, .kts; Gradle scripts stay manifest's):
//	          classes, interfaces, objects, companions (Outer.Companion),
//	          functions, extension functions (T.f), calls (receivers typed
//	          from declarations; T(…) calls the class), imports (to the
//	          in-tree file declaring the name, package folders for p.*),
//	          inherits_from, implements; scope "kt:<package>" (see
//	          package kotlin)
//	scala     tree-sitter (.scala, .sc): classes, case classes, traits,
//	          objects (a companion shares its class's node), enums,
//	          methods, givens, top-level defs, imports (to the in-tree
//	          file declaring the name, wildcards to package folders),
//	          calls (receivers typed from declarations; new T(…) and
//	          T(…) call the class), inherits_from / implements from
//	          extends … with …; scope "scala:<package>" (see package scala)
//	c, cpp    tree-sitter (internal/cfamily; .h is C++ when the tree has a
//	          C++ source): functions (one node, where defined), structs,
//	          unions, enums, typedefs, classes, methods, constructors,
//	          #include imports (code:file:), calls (receivers typed from
//	          declarations, macros followed), inherits_from; cpp also
//	          reads CMakeLists.txt: config:cmake:<path>#<command>/<name>
//	          for project(), add_library(), add_executable()
//	rust      tree-sitter: structs, enums, unions, traits, aliases (class),
//	          functions, impl and trait methods <Type>.<fn>, calls
//	          (receivers inferred: self, Self::, T::f, typed locals and
//	          params, fields, returns, dyn/impl/generic trait bounds),
//	          imports (use and mod, to in-tree files, across the
//	          workspace's crates by name), implements (see package rust)
//	php       tree-sitter (HTML around <?php included): the namespace's
//	          code:module:<A\B> (file defines it), classes, interfaces,
//	          traits, enums (type_kind; properties in fields), functions,
//	          methods (constructors are __construct), imports (use →
//	          the file composer.json's psr-4 map or the namespace's
//	          folders name; require/include of literal paths), calls
//	          (receivers inferred: $this, self::, static::, parent::,
//	          typed parameters and properties, new), inherits_from
//	          (extends, use Trait), implements; scope "php:<namespace>"
//	ruby      tree-sitter (.rb, .rake, .ru, Rakefile): modules and
//	          classes by full constant (code:class:<path>::<A::B>, a module
//	          with type_kind module; attr_* names in fields), methods
//	          <A::B>.<m> (def self.m and class << self: singleton),
//	          top-level functions, imports (require via lib/,
//	          require_relative), calls (receivers inferred: self, bare
//	          calls, Cls.new → the class and initialize, Cls.m, super,
//	          locals and @ivars from Cls.new), inherits_from (< Base,
//	          include, extend, prepend); one scope "rb:", constants read
//	          inside modules looked up lexically ("rbnest:<A::B>")
//	csharp    tree-sitter (.cs, .csx): classes, structs, interfaces,
//	          records, enums, methods and properties with code, using
//	          imports, calls (this, base, typed locals/fields/parameters/
//	          properties, T.M(), new T(), new()), inherits_from,
//	          implements; scope "cs:<namespace>", type names looked up
//	          through "csns:<ns>|…|<using>" lists (see package csharp)
//	swift     tree-sitter (vendored grammar): classes, structs, enums,
//	          actors, protocols (type_kind; properties listed), functions,
//	          methods <Type>.<m> (extension members are the type's),
//	          initializers as their type, imports (to Sources/<Module>),
//	          calls (receivers inferred: self, super, T.f, T(…), typed
//	          params/locals/properties, returns, protocol types),
//	          inherits_from, implements; scope "swift:<Module>"
//	markdown  goldmark: doc:file, doc:heading:<path>#<slug>:<level> with
//	          GitHub slugs, links_to (doc→doc, doc→code file), cites_heading
//	config    JSON, YAML: config:json|yaml:<path>#<json-pointer>; TOML:
//	          config:toml:<path>#<dotted-key>; keys to Options.MaxConfigDepth
//	manifest  go.mod, package.json, pyproject.toml, requirements*.txt,
//	          Cargo.toml, pom.xml, build.gradle(.kts), composer.json, Gemfile,
//	          *.gemspec, Package.swift:
//	          go|npm|pypi|crates|maven|composer|gem|swiftpm:package:<name>
//	          with requires edges (a Cargo.toml also defines its own crate's
//	          node and declares "cargo:<name>" for Rust's crate paths);
//	          .mcp.json: mcp:server:<name>; plus config keys
//	file      anything else: the code:file node only
//
// Every payload also carries the file's folder chain, folder:. → … →
// folder:<dir>, joined by contains edges, and the folder's contains edge to
// the file; identical nodes and edges repeat across payloads and the graph
// projection ref-counts them. A file contains its functions and classes, a
// class its methods. An unresolved call or base class becomes a
// code:external:<name> stub (metadata.stub = true): "pkg/path.Func" for an
// outside Go package, "module.name" for Python, "*.method" for a method on
// a receiver whose type is unknown.
//
// # Cross-file resolution
//
// Extraction has two steps. Parsing a file yields its nodes, its local
// edges, its declarations (scope + names) and its unresolved references.
// Resolution then looks each reference up in a declarations table of the
// whole repository: scopes are "go:<dir>" (one Go package; "#test" for an
// external test package), "py:<path>", "js:<path>" and "rust:<path>" (one
// module; "rustcrate:<name>" is the root file of the workspace crate
// whose Cargo.toml declares "cargo:<name>"), "php:<namespace>" (every
// file of a PHP namespace), "cs:<namespace>" (C#), "rb:" (every Ruby file), "md:<path>" (a
// document's heading slugs), and "c:" for every C and C++ file (one
// linkage namespace; a static function stays in its file). Go import paths are mapped to
// folders through every go.mod of the tree (module "std" for GOROOT/src).
//
// The table is built from the files parsed in this run plus the
// declarations cache (Options.CacheDir/extract-decls.gob, keyed by path and
// content hash), so a re-index parses only the changed files. When a
// changed or removed file's declarations differ from its cached ones, every
// unchanged file whose references looked into that scope (its cached Deps,
// or its own scope) is re-extracted and emitted again, so a moved, renamed
// or deleted definition leaves no dangling edge behind. A dependent whose
// own declarations change with what it now resolves (a base class or a
// re-export that appeared) makes its dependents re-extract in turn, until
// nothing changes; resolution then sees every re-extracted file's
// declarations as they are now. In the one C scope a scope-level rule would
// re-extract every C file for any new function, so there a file records the
// names its lookups read (hashed to 4 bytes, Deps' Keys; package resolve,
// namedeps.go) and is re-extracted only when an entry of one of those names
// changed — a function added, removed or changed in kind, a macro, a
// typedef. A record cached before names were recorded depends on any
// change in the scope, and so does every C reader when a changed file's
// cached declarations are missing. An import that
// found nothing records a "missing:" scope, so adding the module or file it
// looked for re-extracts the importer. A go.mod change re-extracts every Go
// file. Without a cache, old declarations are unknown
// and every dependent of a changed file is re-extracted (correct, slower).
//
// # Receivers (Python, JavaScript, TypeScript)
//
// Without a type checker, a call x.m() is resolved by a small inference
// (infer.go): a value is a module, a class, an instance of a class or a
// function, and anything else is unknown. Parsing a file records facts in
// its declarations, with names already bound through the file's imports —
// a class's bases, the value of an instance attribute (self.x = C() in any
// method, __init__ first; x: C or x = C() in the class body; a property's
// return), a function's return (its annotation, else the value every
// return statement agrees on, never for generators), a module variable's
// value, the names a module imports (so a package's __init__.py or an
// index.ts re-exports them) and the modules it re-exports with *. A call
// records its receiver as a chain from a symbol through attribute and call
// steps; resolution evaluates the chain against the facts of every file
// and finds the member on the class or, depth first, on its bases (self,
// cls and this start at the enclosing class, super() at its bases). A
// receiver that cannot be evaluated leaves the call on a "*.m" stub, never
// on a guess. Scoping follows the language: in Python a name assigned
// anywhere in a function (parameters, assignments, loop and with targets,
// nested defs, imports inside the function) is local to the whole body and
// shadows the module's names; locals get the value of their assignments
// when all of them agree, and parameters the class their annotation names
// (Optional[T] and T | None are T; containers and unions of classes are
// unknown). Every scope an evaluation looked into is a dependency of the
// calling file, so a change to a base class or a re-export re-resolves its
// callers on the next index. Lookups are memoised per run with the scopes
// they looked into (infermemo.go); one that met a cycle (star imports of
// each other, class A(A)) or the depth bound is not kept, so that the
// result never depends on the order files are resolved in.
//
// # JavaScript and TypeScript
//
// Nodes, by what declares them (uids code:function:<path>::<name> and
// code:class:<path>::<name>, as everywhere):
//
//	function f() {}, const f = () => {}, function expressions  function f
//	export default function () {}, module.exports = function () {}
//	                                                    function default
//	module.exports = function name() {}                 function name
//	exports.m = function, module.exports.m = …           function m
//	module.exports = {a: function () {}, b() {}}        functions a, b
//	class C, const C = class {}, abstract class C       class C
//	interface I, type I = {…} (object type)             class I (type_kind
//	                                                    interface, type)
//	enum E                                              class E (type_kind enum)
//	method, getter, abstract method, m = () => {},
//	m: () => void in a class or interface               method C.m
//	X.prototype.m = function, X.prototype = {m() {}}    method X.m
//	X.m = function for a function, class or object X    method X.m
//	const o = {m() {}, k: function () {}}               method o.m
//	app.m = function where app = module.exports         method app.m
//
// A method is contained by its class or interface, X.m by X's node when
// the file declares X (else the file), o.m and app.m by the file. An
// overloaded function or method is one node with the range of its
// implementation. Anonymous default exports are named "default", and a
// module's "default" resolves to what export default or module.exports
// names. Calls inside nested functions and callbacks belong to the
// enclosing node; calls in a class body outside methods to the class.
//
// Names resolve like the language: a parameter, variable, catch binding,
// loop variable, nested function or class, or type parameter of any
// enclosing function shadows the module's names (var and let alike are
// taken as function-wide); imports (ES and require(), default and
// namespace) and re-exports (export * from, export {a as b} from, import
// then export {a}, exports.m = require()) are followed across files.
// Receivers are typed from parameter and variable annotations (Foo<T> is
// Foo, Foo | undefined | null is Foo, typeof C is the class; unions of two
// types, any and function types are unknown, and so are an array's own
// methods), new C() (new F() of a constructor function F is an instance
// whose methods are F.m), x as C, declared or agreed-on return types,
// class fields, constructor parameter properties and this.x = …
// assignments (constructors first), destructuring of a typed value,
// getters (reading one is its return), and:
//
//   - type parameters: inside its declaration a T extends C is a C; to its
//     callers a class's or interface's T = D is a D and a function's T is
//     unknown (a generic function's return is never inferred from its
//     body);
//   - TypeScript declaration merging: a function or variable and an
//     interface of one name are the interface in type positions and when
//     constructed, the function or variable otherwise;
//   - the elements of arrays typed E[], Array<E> or readonly E[]: for … of,
//     xs[0], xs.pop(), xs.forEach((x) => …);
//   - a callback's parameters and this, from the function type of the
//     parameter it is passed to: operate((source, subscriber) => …), new
//     Observable((subscriber) => …), schedule(function () { this.m() }).
//
// A variable of an interface type is called through no edge. this is the
// class instance in methods and arrow functions (the class in static
// members), X for X.prototype methods and a constructor function with
// them, o for o's methods, app for app.m; super.m() starts at the bases.
// A call on an interface-typed receiver targets the interface's method
// node. Overload signatures that disagree on a return or callback
// parameter type give none.
//
// references edges (never a stub; what resolves to nothing is dropped)
// go from the enclosing node, as calls do, to what code uses without
// calling it: a function or class named as a value (passed, stored,
// returned, module.exports = X, the X of X.prototype.m = …), a member
// read of a known receiver (this.m, a getter, ns.f), and a class,
// interface or enum named in a type — annotations, return types, type
// arguments, type aliases, the type arguments of extends and implements
// (the base itself is inherits_from or implements), x as C, typeof x —
// resolved through imports as a type (a merged declaration's
// interface). Locals, type parameters and local types shadow as for
// calls; names neither declared nor imported from the repository
// (globals, packages) are not looked up.
//
// # The walk
//
// .gitignore files are honoured at every level; .git and the folder names
// in Options.ExcludeDirs are never entered; symlinks are not followed (a
// loop cannot hang the walk; they are recorded as skipped); files larger
// than Options.MaxFileSize are skipped without being read; a file with a
// NUL in its first 8000 bytes is binary and skipped. The stat cache
// (Options.CacheDir/extract-stat.gob: path → size, mtime, hash) makes an
// unchanged file cost a stat.
//
// # Caveats
//
// Bad input never stops a run. Invalid UTF-8 is read as Latin-1 byte by
// byte, so EUC-KR or Latin-1 text stays readable and every stored string is
// valid UTF-8. File and folder names are read the same way: a name that
// is not valid UTF-8 is stored under its Latin-1 reading ("bad\xff.go" is
// "badÿ.go"), and that one path is used in payloads, in previous, in the
// removed list and in both caches, so an unchanged tree re-indexes to no
// event. Two raw names with the same reading (a Latin-1 "caf\xe9.go" beside
// a UTF-8 "café.go") keep the valid UTF-8 one, else the smallest raw name;
// the other is skipped as SkipNameCollision. NUL bytes in contents are
// blanked before parsing; a syntax error is recorded in ParseErrors and
// whatever parsed is kept; an unreadable file is recorded in Stats.Failed
// and is not reported removed. Uids are escaped
// (whitespace, backticks, "../" become %XX) so that each passes
// graph.ValidateUID, and clamped to graph.MaxUIDLen.
//
// Each file's extraction runs under Options.FileTimeout (default 30 s,
// cos index --file-timeout): a file past it is recorded in Stats.Skipped as
// SkipTimeout, nothing is emitted for it (the graph keeps what it held),
// and the next run tries it again. The extraction itself cannot be
// interrupted: it finishes in its goroutine and its result is dropped. In
// Markdown, blockquote and list markers nested past 16 levels on one line
// are dropped before parsing, as goldmark's time grows with the square of
// that nesting; headings and links inside keep their lines.
//
// # Go
//
// Go files are extracted from type-checked syntax. The package graph comes
// from go list (golang.org/x/tools/go/packages, tests included, this
// GOOS/GOARCH and build tags, GOPROXY=off so indexing never downloads): one
// run per go.mod of the tree, and for a tree without a go.mod at its root
// the enclosing module (a go.mod above it, GOROOT/src for the standard
// library) listed with the pattern of the indexed folder, so that imports
// between the tree's packages resolve. Packages are then type-checked from
// source in dependency order (goChecker): the packages to extract with
// their bodies and a types.Info, their dependencies declarations only;
// syntax and Info are dropped as soon as a package's files are extracted.
// A file is extracted from the test variant of its own package when there
// is one. Every edge's target is the object go/types resolved, named by
// the file that declares it: static callees (promoted methods to the
// declaring method, instantiations to the generic origin, dot imports,
// method expressions), interface calls to the interface's method node,
// outside callees as code:external:<import path>.<Name> or
// .<Type>.<Method>. Conversions, builtins and calls through func values
// are not calls; the latter are counted on the calling function
// (graph.MetaDynamicCalls), as are reflective calls. implements joins each
// named type to the interfaces it satisfies among its package's own, those
// of the tree's packages it imports (directly or not), the exported ones
// of outside packages it imports directly, and error.
//
// Incrementally (see typedGo), the packages holding a changed, removed or
// re-extracted Go file are type-checked again; the tree's packages
// importing them, transitively, only when one's shape changed
// (shapeDigest); every package when the tree's interfaces, a go.mod, go.sum
// or go.work, or the Go build settings (goBuildKey) changed. A re-extracted
// file whose payload did not change is not emitted (a payload digest is
// kept in the declarations cache). With no Go file changed nothing is
// listed or type-checked.
//
// A file keeps its syntax extraction, and its file node says why
// (graph.MetaExtraction "syntax", graph.MetaFallback), when its package
// cannot be listed (load_error, also when go is not installed or an import
// is missing from the module cache), does not parse (syntax_error), does
// not type-check (type_error; an unused variable or import is not one, a
// cgo package keeps its types although go/types sees C as an empty
// package, and a broken test file demotes only itself: the package's other
// files are extracted from the plain package), is left out by build
// constraints (build_excluded, also set on its declarations: such a file
// never wins a name over an included one), or is in no package
// (not_in_package: testdata). The syntax extraction resolves x.M() when
// x's type is known from a receiver, a parameter, var x T, &T{}, T{} or
// new(T); other method calls become "*.M" stubs. Same-named declarations
// split by build constraints resolve to the one in the calling file, else
// one whose _GOOS/_GOARCH suffix fits the running platform.
//
// A cache written with another cacheVersion (the extractors changed since)
// makes every file of previous count as changed, so an upgrade re-extracts
// the whole tree once; without a cache, an extractor change is not noticed
// through previous (same content hash): re-index with an empty previous map.
package extract
