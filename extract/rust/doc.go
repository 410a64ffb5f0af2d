// Package rust reads Rust files (.rs) with tree-sitter: structs, enums,
// unions, traits and type aliases (code:class:<path>::<Name>, metadata
// type_kind), functions (code:function:<path>::<name>), methods of impl
// blocks and traits (code:function:<path>::<Type>.<method>, kind method),
// use and mod edges to the in-tree files they name, implements edges
// (impl Trait for T: T to the trait, each method to the trait's method)
// and calls, with receivers inferred from self, Self, paths, typed
// parameters and locals, struct fields, return types and trait bounds, as
// facts for package resolve.
//
// The declarations scope of a file is "rust:<path>"; a crate is named in
// references as "rustcrate:<name>" and found through the package name of
// its Cargo.toml (package manifest declares "cargo:<name>").
package rust
