package swift

// #cgo CFLAGS: -std=c11 -fPIC
// #include "parser.h"
// const TSLanguage *tree_sitter_swift(void);
import "C"

import "unsafe"

// Language returns the tree-sitter Language for Swift as an unsafe pointer,
// to be wrapped with sitter.NewLanguage. The pointer refers to static data
// and is valid for the life of the process.
func Language() unsafe.Pointer {
	return unsafe.Pointer(C.tree_sitter_swift())
}
