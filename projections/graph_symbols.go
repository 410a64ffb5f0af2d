package projections

import (
	"bytes"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/cos-dev/cos/graph"
)

// Symbols and their changes: which nodes are symbols (the code a task
// touches), the hash of each symbol's lines (graph.FileExtracted
// .SymbolHashes) and the symbols the last graph event changed.

// IsSymbolKind is graph.IsSymbolKind.
func IsSymbolKind(kind string) bool { return graph.IsSymbolKind(kind) }

// parseSymbolHash returns the 16-hex symbol hash as a number, 0 when it is
// absent or malformed (0 means "unknown" in a vertex).
func parseSymbolHash(s string) uint64 {
	if len(s) != 16 {
		return 0
	}
	var b [8]byte
	if _, err := hex.Decode(b[:], []byte(s)); err != nil {
		return 0
	}
	var h uint64
	for _, c := range b {
		h = h<<8 | uint64(c)
	}
	return h
}

// SymbolHash returns the symbol hash of uid as 16 hex digits, and false
// when uid is no node or its hash is not known.
func (g *Graph) SymbolHash(uid string) (string, bool) {
	v := g.vertices[uid]
	if v == nil || !v.present || v.symHash == 0 {
		return "", false
	}
	var b [8]byte
	for i := range b {
		b[i] = byte(v.symHash >> (56 - 8*i))
	}
	return hex.EncodeToString(b[:]), true
}

// LastChangedSymbols returns the path of the last graph.file_extracted or
// graph.file_removed applied and the uids of the symbols it changed: a
// node whose symbol hash (graph.FileExtracted.SymbolHashes) differs from
// the one held, a node added to a file the graph already held, a node the
// event removed; sorted. It is nil after any other event. It satisfies
// tasks.ChangeSource.
//
// When the event or the held node has no hash (events written before
// hashes), a node counts as changed when its kind, label, line span or
// metadata differ. A file split into parts (graph.FileExtracted.Part)
// reports per part: part 0 the symbols it changed and those it released
// (including the ones later parts add back), a later part the symbols it
// adds that differ from what part 0 released, and LastRestoredSymbols
// those it adds back unchanged.
func (g *Graph) LastChangedSymbols() (path string, uids []string) {
	if len(g.lastChanged) == 0 {
		return g.lastPath, nil
	}
	return g.lastPath, slices.Clone(g.lastChanged)
}

// symbolState is what tells whether a symbol changed: its hash, or its
// fields when a hash is missing.
type symbolState struct {
	kind, label   string
	line, endLine int
	meta          []byte
	hash          uint64
}

func stateOf(v *vertex) symbolState {
	return symbolState{kind: v.kind, label: v.label, line: v.line, endLine: v.endLine, meta: v.meta, hash: v.symHash}
}

func (s symbolState) differs(n *normNode) bool {
	if s.hash != 0 && n.hash != 0 {
		return s.hash != n.hash
	}
	return s.kind != n.Kind || s.label != n.Label || s.line != n.Line || s.endLine != n.EndLine || !bytes.Equal(s.meta, n.meta)
}

// noteChanges is called by applyFileExtracted before it changes anything:
// it records, for the symbols of path among nodes, those that differ from
// the ones held or are new to a path already held. held is whether the
// path had an extraction before this event. For a later part, a node part 0
// released is compared with what it was then.
func (g *Graph) noteChanges(path string, part int, held bool, nodes []normNode) {
	g.lastPath = path
	if part == 0 {
		g.released, g.releasedPath, g.releasedHeld = nil, path, held
	} else if g.releasedPath == path {
		held = g.releasedHeld
	}
	for i := range nodes {
		n := &nodes[i]
		if !IsSymbolKind(n.Kind) || n.Path != path {
			continue
		}
		v := g.vertices[n.UID]
		switch {
		case v != nil && v.present:
			if stateOf(v).differs(n) {
				g.lastChanged = append(g.lastChanged, n.UID)
			}
		case part > 0 && g.releasedPath == path && g.released[n.UID] != nil:
			if g.released[n.UID].differs(n) {
				g.lastChanged = append(g.lastChanged, n.UID)
			} else {
				g.lastRestored = append(g.lastRestored, n.UID)
			}
		case held:
			g.lastChanged = append(g.lastChanged, n.UID)
		}
	}
}

// noteReleased records a symbol of path that an event released and that
// is gone.
func (g *Graph) noteReleased(path string, s symbolState, uid string) {
	g.lastChanged = append(g.lastChanged, uid)
	if g.releasedPath == path {
		if g.released == nil {
			g.released = map[string]*symbolState{}
		}
		g.released[uid] = &s
	}
}

// LastRestoredSymbols returns, after a later part of a split file
// (graph.FileExtracted.Part > 0), the path and the symbols that part 0
// released — and LastChangedSymbols reported removed — and this part added
// back unchanged; sorted, nil after any other event. A reader of changes
// takes them out of what it recorded for the earlier parts.
func (g *Graph) LastRestoredSymbols() (path string, uids []string) {
	if len(g.lastRestored) == 0 {
		return g.lastPath, nil
	}
	return g.lastPath, slices.Clone(g.lastRestored)
}

// finishChanges sorts and de-duplicates the changes of the event applied.
func (g *Graph) finishChanges() {
	slices.Sort(g.lastChanged)
	g.lastChanged = slices.Compact(g.lastChanged)
	slices.Sort(g.lastRestored)
	g.lastRestored = slices.Compact(g.lastRestored)
}

// PathSymbols returns the uids of the symbols of the file path, sorted.
func (g *Graph) PathSymbols(path string) []string {
	var out []string
	for _, o := range g.byPath[path] {
		for _, v := range o.nodes {
			if v.present && v.path == path && IsSymbolKind(v.kind) {
				out = append(out, v.uid)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Paths returns every extracted path, sorted; the slice is cached until the
// next change and must not be modified.
func (g *Graph) Paths() []string {
	g.cacheMu.Lock()
	defer g.cacheMu.Unlock()
	if !g.pathsOK {
		ps := make([]string, 0, len(g.byPath))
		for p := range g.byPath {
			ps = append(ps, p)
		}
		slices.SortFunc(ps, strings.Compare)
		g.sortedPaths, g.pathsOK = ps, true
	}
	return g.sortedPaths
}

// symbolHashesTag opens the optional section of the canonical encoding
// after the edges, present only when some node has a symbol hash (so a
// graph built from events without hashes encodes, and hashes, as before):
//
//	str "symbol-hashes", uvarint n, then n times, in node order:
//	uvarint i ≥ 1 (the i-th node of the node section), uvarint hash
const symbolHashesTag = "symbol-hashes"

func encodeSymbolHashes(e *encoder, nodes []*vertex) {
	n := 0
	for _, v := range nodes {
		if v.symHash != 0 {
			n++
		}
	}
	if n == 0 {
		return
	}
	e.str(symbolHashesTag)
	e.uvarint(uint64(n))
	for i, v := range nodes {
		if v.symHash != 0 {
			e.uvarint(uint64(i + 1))
			e.uvarint(v.symHash)
		}
	}
}

// decodeSymbolHashes reads the section when it comes next.
func decodeSymbolHashes(d *decoder, nodes []*vertex) {
	if d.err != nil || len(d.b) == 0 {
		return
	}
	save := d.b
	if d.str() != symbolHashesTag {
		d.b = save
		return
	}
	prev := uint64(0)
	for n := d.count(2); n > 0 && d.err == nil; n-- {
		i, h := d.uvarint(), d.uvarint()
		if i <= prev || i > uint64(len(nodes)) || h == 0 {
			d.fail("symbol hashes")
			return
		}
		prev = i
		nodes[i-1].symHash = h
	}
}
