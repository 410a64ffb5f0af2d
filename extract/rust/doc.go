// Package rust reads Rust files (.rs) with tree-sitter: structs, enums,
// unions, traits and type aliases (code:class:<path>::<Name>, metadata
// type_kind), functions (code:function:<path>::<name>), the functions of
// impl blocks and traits (code:function:<path>::<Type>.<fn>, kind method;
// trait methods carry metadata interface: true), use and mod edges to the
// in-tree files they name (imports), implements edges (impl Trait for T:
// T to the trait, each of the impl's methods to the trait's method of its
// name), a trait's supertraits (inherits_from), and calls.
//
// Scopes and paths: a file's declarations scope is "rust:<path>". Its
// crate is found through the nearest Cargo.toml above it; crate:: starts
// at the crate root (src/lib.rs, else src/main.rs; a file under src/bin,
// tests, examples or benches is its own root), super:: at the enclosing
// module's file, self:: at the file; mod x; is x.rs or x/mod.rs beside
// (or below) the declaring file. Another workspace crate is named in
// references as "rustcrate:<name>" and found by the name its Cargo.toml
// gives (package manifest declares "cargo:<name>", dashes read as
// underscores). std, core and alloc paths are not looked up.
//
// Calls are resolved by the receiver inference of package resolve: self
// and Self are the impl's (or trait's) type; T::f() is T's associated
// function or method, found on T, then on the traits T implements, then
// their supertraits; a local typed by let x: T, by let x = T::new() (any
// T::new is taken to construct a T), T { … }, or a call whose return type
// is declared; parameters by their type; fields by their declared type;
// &, Box, Rc, Arc, Option, Result, ? and unwrap/expect/clone see through
// to the inner type; dyn Trait, impl Trait and a generic T: Trait (or
// where T: Trait) make the call one of the trait's method node. A call
// the inference cannot place stays a code:external: stub: "*.m" for a
// method, the path ("Vec::new") for a path call.
//
// Choices and limits: macro invocations are neither calls nor references,
// and calls inside their arguments are not read (tree-sitter leaves them
// as token trees). Items of an inline mod m { … } are declared as the
// file's own (super:: inside it is the file). An impl whose type is
// declared in another file gives methods contained by the file and no
// type-level implements edge, and those methods are not found through
// the type (only through its file's scope). A tuple struct's constructor
// Foo(x) is a call of Foo's class node; calls of local closures, of enum
// variants (E::V(x)) and of Some, Ok and Err make no edge.
package rust
