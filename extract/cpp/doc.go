// Package cpp reads C++ files (.cc, .cpp, .cxx, .c++, .hh, .hpp, .hxx,
// .h++, .inl) with tree-sitter (the shared extraction is
// extract/internal/cfamily): functions, namespaces (as metadata), classes,
// structs, unions, enums, methods in and out of their class, constructors
// and destructors, #include edges, inherits_from edges, and calls with
// receivers typed from declarations (this, locals, parameters, fields,
// Base::m, constructions). .h files are read by package c, as C++ when the
// tree holds a C++ source file.
package cpp
