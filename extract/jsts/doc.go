// Package jsts reads JavaScript and TypeScript files with tree-sitter:
// functions, classes, interfaces and their methods, CommonJS exports and
// prototype methods, object-literal methods, ES imports and require()
// (edges to repository files or npm:package: nodes), calls and new with
// receivers inferred (jsts_calls.go, jsts_types.go), type and value
// references (jsts_refs.go), extends and implements, and the entry points
// the file registers (jsts_entries.go).
package jsts
