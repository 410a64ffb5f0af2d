package ts

/*
#include <stdbool.h>
#include <stdint.h>

// The core's node and cursor, as in flat.go (the layouts must match
// tree_sitter/api.h exactly).
typedef struct {
	uint32_t context[4];
	const void *id;
	const void *tree;
} cos_wk_node;

typedef struct {
	const void *tree;
	const void *id;
	uint32_t context[3];
} cos_wk_cursor;

extern uint32_t ts_node_descendant_count(cos_wk_node self);
extern const char *ts_node_type(cos_wk_node self);
extern uint16_t ts_node_symbol(cos_wk_node self);
extern const void *ts_node_language(cos_wk_node self);
extern uint32_t ts_language_symbol_count(const void *self);
extern const char *ts_language_symbol_name(const void *self, uint16_t symbol);
extern cos_wk_cursor ts_tree_cursor_new(cos_wk_node node);
extern void ts_tree_cursor_delete(cos_wk_cursor *self);
extern cos_wk_node ts_tree_cursor_current_node(const cos_wk_cursor *self);
extern bool ts_tree_cursor_goto_first_child(cos_wk_cursor *self);
extern bool ts_tree_cursor_goto_next_sibling(cos_wk_cursor *self);
extern bool ts_tree_cursor_goto_parent(cos_wk_cursor *self);
extern void ts_tree_cursor_goto_descendant(cos_wk_cursor *self, uint32_t goal_descendant_index);
extern uint32_t ts_tree_cursor_current_depth(const cos_wk_cursor *self);

static const void *cos_wk_language(cos_wk_node n) { return ts_node_language(n); }
static uint32_t cos_wk_symbol_count(const void *l) { return ts_language_symbol_count(l); }
static const char *cos_wk_symbol_name(const void *l, uint16_t s) { return ts_language_symbol_name(l, s); }
static uint32_t cos_wk_descendants(cos_wk_node n) { return ts_node_descendant_count(n); }

// cos_ts_preorder_kinds walks root's subtree in document order from its
// start-th descendant (0 is root itself, as the core counts them). A node
// whose symbol s has mask[s] == 1 (s < nmask; errm for the error symbol)
// is written to out with its type string to type; one with 2 has its
// subtree skipped. It stops before the node that would be the max+1-th
// written, storing its descendant index in *next, or at the end, storing
// UINT32_MAX; it returns how many nodes it wrote.
static uint32_t cos_ts_preorder_kinds(cos_wk_node root, uint32_t start, const uint8_t *mask, uint32_t nmask, uint8_t errm,
		cos_wk_node *out, const char **type, uint32_t max, uint32_t *next) {
	cos_wk_cursor c = ts_tree_cursor_new(root);
	if (start > 0) ts_tree_cursor_goto_descendant(&c, start);
	uint32_t n = 0, i = start, d = ts_tree_cursor_current_depth(&c);
	for (;;) {
		cos_wk_node x = ts_tree_cursor_current_node(&c);
		uint16_t s = ts_node_symbol(x);
		uint8_t m = s < nmask ? mask[s] : (s == UINT16_MAX ? errm : 0);
		if (m == 1) {
			if (n == max) {
				*next = i;
				ts_tree_cursor_delete(&c);
				return n;
			}
			out[n] = x;
			type[n] = ts_node_type(x);
			n++;
		}
		if (m == 2) {
			i += ts_node_descendant_count(x);
		} else {
			i++;
			if (ts_tree_cursor_goto_first_child(&c)) { d++; continue; }
		}
		for (;;) {
			if (d == 0) {
				*next = UINT32_MAX;
				ts_tree_cursor_delete(&c);
				return n;
			}
			if (ts_tree_cursor_goto_next_sibling(&c)) break;
			ts_tree_cursor_goto_parent(&c);
			d--;
		}
	}
}
*/
import "C"

import (
	"math"
	"sync"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Kinds is a set of node kinds a WalkKinds walk hands to Go, and of kinds
// whose subtrees it does not enter, by name. It is safe for concurrent
// use; make one per use (a package variable) with NewKinds.
type Kinds struct {
	visit map[string]bool
	skip  func(kind string) bool
	// masks holds each grammar's mask (by language pointer): per symbol,
	// 1 visit, 2 skip, 0 walk through.
	masks sync.Map // unsafe.Pointer → []byte
}

// NewKinds returns the set that visits the kinds of visit and does not
// enter the subtrees of the other kinds skip reports ("ERROR" is the kind
// of the error nodes); skip may be nil. skip is called once per symbol of
// each grammar walked, and must not change its answers.
func NewKinds(visit []string, skip func(kind string) bool) *Kinds {
	k := &Kinds{visit: map[string]bool{}, skip: skip}
	for _, v := range visit {
		k.visit[v] = true
	}
	return k
}

// action is what the set does with a kind: 1 visit, 2 skip, 0 walk
// through.
func (k *Kinds) action(name string) byte {
	switch {
	case k.visit[name]:
		return 1
	case k.skip != nil && k.skip(name):
		return 2
	}
	return 0
}

// mask returns the per-symbol actions of the grammar lang.
func (k *Kinds) mask(lang unsafe.Pointer) []byte {
	if m, ok := k.masks.Load(lang); ok {
		return m.([]byte)
	}
	n := uint32(C.cos_wk_symbol_count(lang))
	m := make([]byte, max(n, 1))
	for s := range n {
		if p := C.cos_wk_symbol_name(lang, C.uint16_t(s)); p != nil {
			m[s] = k.action(C.GoString(p))
		}
	}
	got, _ := k.masks.LoadOrStore(lang, m)
	return got.([]byte)
}

// WalkKinds calls visit, in document order, with each node of n's subtree
// (n included) whose kind kinds visits, except inside the subtrees of the
// kinds it skips. The walk runs in the core, which hands over only the
// nodes visited, walkChunk at a time: a walk that cares for a few kinds
// costs no call and no copy per node between them. A node given to visit
// stays valid after the walk. It is WalkKind's walk with every visit
// returning true but at the skipped kinds.
func WalkKinds(n *sitter.Node, kinds *Kinds, visit func(x *sitter.Node, kind string)) {
	if n == nil {
		return
	}
	cn := *(*C.cos_wk_node)(unsafe.Pointer(n))
	lang := unsafe.Pointer(C.cos_wk_language(cn))
	if lang == nil {
		return
	}
	mask := kinds.mask(lang)
	errm := C.uint8_t(kinds.action("ERROR"))
	size := min(max(uint32(C.cos_wk_descendants(cn)), 1), walkChunk)
	types := make([]*C.char, size)
	var next C.uint32_t
	for start := uint32(0); start != math.MaxUint32; start = uint32(next) {
		// Each chunk gets its own nodes: visit may keep one.
		nodes := make([]sitter.Node, size)
		got := uint32(C.cos_ts_preorder_kinds(cn, C.uint32_t(start), (*C.uint8_t)(unsafe.Pointer(&mask[0])), C.uint32_t(len(mask)), errm,
			(*C.cos_wk_node)(unsafe.Pointer(&nodes[0])), &types[0], C.uint32_t(size), &next))
		for j := range got {
			visit(&nodes[j], kindName((*C.char)(unsafe.Pointer(types[j]))))
		}
	}
}

// Visits reports whether the set visits kind.
func (k *Kinds) Visits(kind string) bool { return k.visit[kind] }
