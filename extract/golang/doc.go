// Package golang reads Go files at the syntax level, one file at a time
// (go/parser, no type checking): the file and its package, functions,
// methods, types, imports, and calls resolved by name through the
// declarations table with a light local inference of receivers. Package
// extract runs the go/packages and go/types driver over every package that
// loads and keeps these results only for the files it could not
// type-check; TypeDeclNodes and RecvTypeName are shared with that driver
// so both name types alike.
package golang
