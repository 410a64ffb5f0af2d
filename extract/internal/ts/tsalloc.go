package ts

/*
#include <stdlib.h>

// The tree-sitter core's allocator hook (tree_sitter/api.h), linked in
// with github.com/tree-sitter/go-tree-sitter.
extern void ts_set_allocator(
	void *(*new_malloc)(size_t),
	void *(*new_calloc)(size_t, size_t),
	void *(*new_realloc)(void *, size_t),
	void (*new_free)(void *));

static void cos_ts_use_libc_allocator(void) {
	ts_set_allocator(malloc, calloc, realloc, free);
}
*/
import "C"

// go-tree-sitter routes every allocation of the tree-sitter core through
// exported Go functions that call C's malloc and free again: a C→Go→C
// round trip per node of every tree parsed (a third of a TypeScript
// file's parse time went to cgo callbacks). Nothing here replaces the
// allocator with a Go one, so the core is pointed at libc's directly —
// the same heap, without the round trips. go-tree-sitter's own init (which
// installs its callbacks) runs before this package's.
func init() {
	C.cos_ts_use_libc_allocator()
}
