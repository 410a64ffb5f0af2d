// Package resolve turns the references of extracted files (lang.Ref) into
// edges: a Table merges the declarations of the files just extracted
// (lang.Decl) with those cached from earlier runs (lang.DeclRecord),
// expanding a scope only when it is first looked up, and Resolve adds to a
// lang.Result the edges and stub nodes its references lead to.
//
// # Basics
//
// A reference by name is looked up in its scope ("go:<dir>",
// "goimport:<import path>", "py:<module>", "js:<path>"); one with a
// receiver (lang.Chain) is evaluated by the receiver inference over the
// facts files recorded (infer.go), memoised per table (infermemo.go). What
// stays unknown becomes a code:external: stub, never a guess.
//
// # Caveats
//
// A Table is not safe for concurrent use; the runner resolves files one
// at a time. Resolve records the scopes a file looked into (Decl.Deps) and,
// in the one scope of C and C++, the names it read (Decl.Keys,
// namedeps.go), which decide what is re-extracted when declarations change.
package resolve
