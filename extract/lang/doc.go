// Package lang is the vocabulary every extractor shares with the runner of
// package extract: the Extractor interface a language implements, the
// Result one file's extraction fills (nodes, edges, references to resolve,
// declarations), the Env it may consult besides the file (the
// repository's Go modules, the set of indexed paths, Python module
// names), the extractor ids, and the text, line and uid helpers.
//
// # Basics
//
// An extractor never fails: it adds what it found to a Result and turns
// what it could not parse into Result.ParseError. Whatever names another
// file (a call, a base class, an import, a method's receiver type) is a
// Ref, resolved by package resolve against the Decl of every file once all
// are read; a Ref with a Recv Chain asks the receiver inference (facts
// recorded with Decl.SetFact) what the receiver is.
//
// # Caveats
//
// Decl.Payload, Decl.Impl and Decl.ImplKnown are the runner's, kept with
// the declarations in its cache; extractors leave them alone.
package lang
