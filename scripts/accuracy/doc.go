// Command accuracy compares the calls edges cos extracts from Go code with
// an independent oracle, the SSA call graph of golang.org/x/tools, and
// prints precision and recall per category as Markdown (the rules
// below).
//
//	go run ./scripts/accuracy [-v] [-top 10] [-json FILE] [-only NAME,...]
//	go run ./scripts/accuracy [-v] [-env KEY=VALUE]... DIR...
//
// With no DIR it measures the default targets: net/http, encoding/json
// (default and GOEXPERIMENT=jsonv2), go/types from $(go env GOROOT)/src,
// and github.com/spf13/cobra@v1.8.1 fetched with go mod download and
// copied to a temporary folder.
//
// # Basics
//
// For each folder, both sides run on the same files in the same
// environment (GOEXPERIMENT=jsonv2 reaches our go list and the oracle's):
//
//   - cos: extract.Run(ctx, dir, extract.Options{}, nil, emit), no cache,
//     every payload's calls edges from a code:function: or code:file: node
//     to a code:function: node (code:external: stubs are out of the tree);
//     implements edges for the dispatch row.
//   - oracle: packages.Load(LoadAllSyntax, Tests: true) in the enclosing
//     module (GOROOT/src for the standard library) with the pattern
//     ./<folder>/..., ssautil.AllPackages, prog.Build. Every function
//     written in the folder's packages is walked — the SSA function of each
//     FuncDecl (prog.FuncValue), the package initialiser, and every closure
//     nested in them — and each call site is classified as static.CallGraph
//     and cha.CallGraph do: CallCommon.StaticCallee for a static call,
//     IsInvoke for an interface call. The walk exists because
//     static.CallGraph only roots package-level functions and methods of
//     non-generic types: closures passed as values (t.Run bodies, handler
//     funcs) and uncalled methods of generic types are never visited by
//     it. Both graphs are still built as a check: every in-tree edge of
//     static.CallGraph and every in-tree invoke site of cha.CallGraph must
//     be one the walk found (reported otherwise); CHA's edges give the
//     dispatch row.
//
// # Mapping an SSA function to a cos uid
//
//   - A declared function or method: Object(), a *types.Func, through
//     Origin(): code:function:<file declaring it, relative to the
//     folder>::<Name>, or ::<Recv>.<Name> with Recv the receiver's named
//     type through a pointer, Origin().Obj().Name() (the bare name of a
//     generic type).
//   - An interface call (IsInvoke): CallCommon.Method, whose receiver is
//     the interface declaring the method (for an embedded interface, the
//     embedded one): code:function:<file of that interface>::<Iface>.<M>.
//     A method of an unnamed interface has no node and is not counted
//     (Stats.Unmapped).
//   - Generic instantiations and synthetic wrappers (bound method values,
//     method-expression thunks, promotion and pointer wrappers,
//     instantiation wrappers): Object() is the declared method or generic
//     function they stand for, so they map to it.
//   - A closure (Parent() != nil, range-over-func bodies included): its
//     outermost enclosing function.
//   - The package initialiser: the file of the call site,
//     code:file:<path> (package-level variable initialisers). Calls of
//     other packages' initialisers and of init functions are not counted.
//   - A call whose caller and callee map to the same uid (recursion, a
//     closure called in place) is not an edge, and cos's recursive calls
//     edges (a self edge) are left out too: closures fold into their
//     enclosing function, so the oracle cannot tell the two apart.
//   - Outside the folder: code:external:<import path>.<Name>; such edges
//     are left out of the scores (only the "every named interface" site
//     share uses them).
//
// Test variants: a package and its test variant compile the same files
// into distinct SSA functions, so a site is counted once per (position,
// callee) and edges are sets of (caller uid, callee uid).
//
// # Categories
//
// An edge's category is its callee's: a package function, a method of a
// concrete non-generic type (promoted methods reach the declaring
// method), a generic function or a method of a generic type, or an
// interface method. A cos edge gets the category of its callee's
// declaration in the compiled files; an edge to a uid no compiled file
// declares (a wrong guess, a file of another platform) counts only in
// "all". cos edges from files no loaded package compiles (other GOOS,
// build-tag-excluded files, testdata) are left out and counted apart.
//
// # Caveats
//
// SSA resolves some calls that are not written as calls of a named
// function: f := o.M; f() is a static call of o.M's bound wrapper, and
// g := pkg.F; g() one of F. cos does not record calls through func
// values (a design choice: they are references); such misses carry the
// func-value tag. A type declared inside a function is named by the
// function declaring it, as cos names it ("Client.send.canceler"; tag
// local-type). Both sides skip conversions and builtins.
package main
