// Package python reads Python files (.py, .pyi) with tree-sitter: the
// module node, functions, classes and methods, imports, calls and base
// classes, with receivers inferred from annotations, assignments and
// self/super (pyscope.go) as facts for package resolve, and the entry
// points the file registers (pyentries.go).
package python
