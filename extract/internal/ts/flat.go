package ts

/*
#include <stdbool.h>
#include <stdint.h>

// The tree-sitter core's node and cursor (tree_sitter/api.h of
// github.com/tree-sitter/go-tree-sitter, which links the core in); the
// layouts must match it exactly.
typedef struct {
	uint32_t context[4];
	const void *id;
	const void *tree;
} cos_ts_node;

typedef struct {
	const void *tree;
	const void *id;
	uint32_t context[3];
} cos_ts_cursor;

extern uint32_t ts_node_descendant_count(cos_ts_node self);
extern uint32_t ts_node_named_child_count(cos_ts_node self);
extern bool ts_node_is_named(cos_ts_node self);
extern const char *ts_node_type(cos_ts_node self);
extern uint16_t ts_node_symbol(cos_ts_node self);
extern uint32_t ts_node_end_byte(cos_ts_node self);
extern cos_ts_node ts_node_child_by_field_name(cos_ts_node self, const char *name, uint32_t name_length);
extern void *ts_parser_parse_string(void *self, const void *old_tree, const char *string, uint32_t length);
extern cos_ts_cursor ts_tree_cursor_new(cos_ts_node node);
extern void ts_tree_cursor_delete(cos_ts_cursor *self);
extern cos_ts_node ts_tree_cursor_current_node(const cos_ts_cursor *self);
extern bool ts_tree_cursor_goto_first_child(cos_ts_cursor *self);
extern bool ts_tree_cursor_goto_next_sibling(cos_ts_cursor *self);
extern bool ts_tree_cursor_goto_parent(cos_ts_cursor *self);
extern void ts_tree_cursor_goto_descendant(cos_ts_cursor *self, uint32_t goal_descendant_index);
extern uint32_t ts_tree_cursor_current_depth(const cos_ts_cursor *self);

// cos_ts_preorder writes the nodes of root's subtree in document order,
// from its start-th descendant (0 is root itself, as the core counts
// them), into out: each one's depth below root into depth, its symbol
// (ts_node_symbol) into sym, its type string (ts_node_type) into type and
// its descendant count (itself included) into desc, up to max nodes; it
// returns how many it wrote.
static uint32_t cos_ts_preorder(cos_ts_node root, uint32_t start, cos_ts_node *out, uint32_t *depth, uint16_t *sym, const char **type, uint32_t *desc, uint32_t max) {
	cos_ts_cursor c = ts_tree_cursor_new(root);
	if (start > 0) ts_tree_cursor_goto_descendant(&c, start);
	uint32_t n = 0, d = ts_tree_cursor_current_depth(&c);
	for (;;) {
		if (n == max) break;
		cos_ts_node x = ts_tree_cursor_current_node(&c);
		out[n] = x;
		depth[n] = d;
		sym[n] = ts_node_symbol(x);
		type[n] = ts_node_type(x);
		desc[n] = ts_node_descendant_count(x);
		n++;
		if (ts_tree_cursor_goto_first_child(&c)) { d++; continue; }
		for (;;) {
			if (d == 0) goto done;
			if (ts_tree_cursor_goto_next_sibling(&c)) break;
			ts_tree_cursor_goto_parent(&c);
			d--;
		}
	}
done:
	ts_tree_cursor_delete(&c);
	return n;
}

// cos_ts_named_children writes parent's named children into out, up to
// max; it returns how many it wrote.
static uint32_t cos_ts_named_children(cos_ts_node parent, cos_ts_node *out, uint32_t max) {
	cos_ts_cursor c = ts_tree_cursor_new(parent);
	uint32_t n = 0;
	if (ts_tree_cursor_goto_first_child(&c)) {
		do {
			if (n == max) break;
			cos_ts_node x = ts_tree_cursor_current_node(&c);
			if (ts_node_is_named(x)) out[n++] = x;
		} while (ts_tree_cursor_goto_next_sibling(&c));
	}
	ts_tree_cursor_delete(&c);
	return n;
}

static uint32_t cos_ts_descendants(cos_ts_node n) { return ts_node_descendant_count(n); }
static uint32_t cos_ts_named_count(cos_ts_node n) { return ts_node_named_child_count(n); }
*/
import "C"

import (
	"sync"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// A sitter.Node is the core's TSNode by value; cNode reads one as the
// same bytes.
func cNode(n *sitter.Node) C.cos_ts_node { return *(*C.cos_ts_node)(unsafe.Pointer(n)) }

// The layouts must agree: a sitter.Node is exactly one TSNode.
var _ [unsafe.Sizeof(sitter.Node{}) - unsafe.Sizeof(C.cos_ts_node{})]struct{}
var _ [unsafe.Sizeof(C.cos_ts_node{}) - unsafe.Sizeof(sitter.Node{})]struct{}

// walkChunk is how many nodes walkPreorder reads by one call into the
// core: a walk that skips a subtree never reads past the chunk it is in,
// so walks nested in a visitor (a language's recursive descent) cost what
// they visit, not their subtree each.
const walkChunk = 512

// walkPreorder calls visit with each node of n's subtree (named or not) in
// document order, with its symbol (KindId) and, when withKind, its Kind
// ("" otherwise); a visit that returns false skips the node's
// descendants. The nodes are read walkChunk at a time, each chunk by one
// call into the core; a node given to visit stays valid after the walk.
func walkPreorder(n *sitter.Node, withKind bool, visit func(x *sitter.Node, sym uint16, kind string) bool) {
	total := uint32(C.cos_ts_descendants(cNode(n)))
	if total == 0 {
		total = 1
	}
	size := min(total, walkChunk)
	depth := make([]uint32, size)
	sym := make([]uint16, size)
	kind := make([]*C.char, size)
	desc := make([]uint32, size)
	for i := uint32(0); i < total; {
		// Each chunk gets its own nodes: visit receives pointers into
		// them, and a visitor may keep one (a call to resolve later)
		// after the walk moved on to the next chunk.
		nodes := make([]sitter.Node, size)
		got := uint32(C.cos_ts_preorder(cNode(n), C.uint32_t(i), (*C.cos_ts_node)(unsafe.Pointer(&nodes[0])), (*C.uint32_t)(unsafe.Pointer(&depth[0])),
			(*C.uint16_t)(unsafe.Pointer(&sym[0])), &kind[0], (*C.uint32_t)(unsafe.Pointer(&desc[0])), C.uint32_t(min(size, total-i))))
		if got == 0 {
			return
		}
		for j := uint32(0); j < got; {
			step, k := uint32(1), ""
			if withKind {
				k = kindName(kind[j])
			}
			if !visit(&nodes[j], sym[j], k) {
				step = max(desc[j], 1)
			}
			i, j = i+step, j+step
		}
	}
}

// namedChildren returns n's named children, read by one call into the
// core.
func namedChildren(n *sitter.Node) []sitter.Node {
	count := uint32(C.cos_ts_named_count(cNode(n)))
	if count == 0 {
		return []sitter.Node{}
	}
	out := make([]sitter.Node, count)
	got := uint32(C.cos_ts_named_children(cNode(n), (*C.cos_ts_node)(unsafe.Pointer(&out[0])), C.uint32_t(count)))
	return out[:got]
}

// kindNames maps the core's node type strings (static in each grammar, so
// one pointer per kind) to Go strings: Kind allocates no string per call.
var kindNames sync.Map // *C.char → string

// Kind returns n's type, as n.Kind() does, through one call into the core
// and no allocation (n.Kind() copies the C string each time).
func Kind(n *sitter.Node) string {
	return kindName(C.ts_node_type(cNode(n)))
}

// kindName is the Go string of the core's type string at p.
func kindName(p *C.char) string {
	if p == nil {
		return ""
	}
	if s, ok := kindNames.Load(p); ok {
		return s.(string)
	}
	s, _ := kindNames.LoadOrStore(p, C.GoString(p))
	return s.(string)
}

// Field returns n's child of the field name, nil when there is none, as
// n.ChildByFieldName(name) does but through one call into the core (that
// one copies name to C memory and frees it: three calls).
func Field(n *sitter.Node, name string) *sitter.Node {
	c := C.ts_node_child_by_field_name(cNode(n), (*C.char)(unsafe.Pointer(unsafe.StringData(name))), C.uint32_t(len(name)))
	if c.id == nil {
		return nil
	}
	out := new(sitter.Node)
	*(*C.cos_ts_node)(unsafe.Pointer(out)) = c
	return out
}

// A sitter.Parser and a sitter.Tree are each the core's pointer.
var _ [unsafe.Sizeof(sitter.Parser{}) - unsafe.Sizeof(unsafe.Pointer(nil))]struct{}
var _ [unsafe.Sizeof(unsafe.Pointer(nil)) - unsafe.Sizeof(sitter.Parser{})]struct{}
var _ [unsafe.Sizeof(sitter.Tree{}) - unsafe.Sizeof(unsafe.Pointer(nil))]struct{}
var _ [unsafe.Sizeof(unsafe.Pointer(nil)) - unsafe.Sizeof(sitter.Tree{})]struct{}

// parseString parses src whole with p (ts_parser_parse_string), nil when
// the core returns no tree. p.Parse(src, nil) hands the core its input
// through a Go callback that copies the rest of the file twice (to a Go
// string, then to C) at every read, the whole file at least once.
func parseString(p *sitter.Parser, src []byte) *sitter.Tree {
	var data *C.char
	if len(src) > 0 {
		data = (*C.char)(unsafe.Pointer(&src[0]))
	}
	t := C.ts_parser_parse_string(*(*unsafe.Pointer)(unsafe.Pointer(p)), nil, data, C.uint32_t(len(src)))
	if t == nil {
		return nil
	}
	tree := new(sitter.Tree)
	*(*unsafe.Pointer)(unsafe.Pointer(tree)) = t
	return tree
}

// A node carries its start in itself (the core's ts_node_start_byte and
// ts_node_start_point read context[0] and context[1..2]): no call into the
// core is needed for them.

// startByte is n.StartByte() without a call into the core.
func startByte(n *sitter.Node) uint { return uint(cNode(n).context[0]) }

// startRow is n.StartPosition().Row without a call into the core.
func startRow(n *sitter.Node) uint { return uint(cNode(n).context[1]) }

// endByte is n.EndByte().
func endByte(n *sitter.Node) uint { return uint(C.ts_node_end_byte(cNode(n))) }
