// Package c reads C files (.c, .h) with tree-sitter (the shared
// extraction is extract/internal/cfamily): functions (static ones
// file-local), structs, unions, enums, typedefs, #include edges, calls
// (through function-like macros too) and their receivers. A .h file is
// read as C++ when the tree holds a C++ source file (.cc, .cpp, .cxx,
// .c++), as C otherwise.
package c
