package projections

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
)

// Apply folds one graph event into the state; events of other types are
// ignored. The payload is decoded and every uid validated (graph.ValidateUID)
// before anything changes, so an error (wrapping ErrInvalidEvent) leaves the
// state exactly as it was.
//
// Normalisation, applied identically in every replay: a node without Kind
// takes the kind its uid prefix implies; a file_extracted node or edge without
// Extractor takes the event's extractor; an agent node or edge without one
// takes AgentOwner; Metadata is stored as canonical (sorted-key) JSON.
//
// Apply also keeps what is derived from the node set and not encoded:
// Unresolved, and LastChange (the seq of the last graph event applied).
func (g *Graph) Apply(ev eventlog.Event) error {
	if g.changedUnknown && ev.Seq > 0 {
		// A restored state covers every event before this one.
		g.changed, g.changedUnknown = ev.Seq-1, false
	}
	g.lastPath, g.lastChanged, g.lastRestored = "", g.lastChanged[:0], g.lastRestored[:0]
	g.quietRelease = false
	var err error
	switch ev.Type {
	case graph.TypeFileExtracted:
		err = g.applyFileExtracted(ev.Data)
	case graph.TypeFileRemoved:
		err = g.applyFileRemoved(ev.Data)
	case graph.TypeNodesUpserted:
		err = g.applyNodesUpserted(ev.Data)
	case graph.TypeEdgesUpserted:
		err = g.applyEdgesUpserted(ev.Data)
	case graph.TypeNodesDeleted:
		err = g.applyNodesDeleted(ev.Data)
	case graph.TypeEdgesDeleted:
		err = g.applyEdgesDeleted(ev.Data)
	case graph.TypeIndexStarted, graph.TypeIndexFinished, graph.TypeRootRemoved:
		// Index runs and roots change no node or edge: LastChange stays.
		switch ev.Type {
		case graph.TypeIndexStarted:
			err = g.applyIndexStarted(ev)
		case graph.TypeIndexFinished:
			err = g.applyIndexFinished(ev)
		default:
			err = g.applyRootRemoved(ev)
		}
		if err != nil {
			return fmt.Errorf("graph projection: seq %d %s: %w", ev.Seq, ev.Type, err)
		}
		return nil
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("graph projection: seq %d %s: %w", ev.Seq, ev.Type, err)
	}
	g.changed = ev.Seq
	return nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidEvent}, args...)...)
}

func decode(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return invalid("decode payload: %v", err)
	}
	return nil
}

func (g *Graph) applyFileExtracted(data []byte) error {
	var p graph.FileExtracted
	if err := decode(data, &p); err != nil {
		return err
	}
	if err := validatePath(p.Path); err != nil {
		return err
	}
	switch p.Extractor {
	case "":
		return invalid("extractor is empty")
	case AgentOwner:
		return invalid("extractor %q is reserved for agent upserts", AgentOwner)
	}
	if p.Part < 0 {
		return invalid("part %d is negative", p.Part)
	}
	nodes, err := g.normalizeNodes(p.Nodes, p.Extractor)
	if err != nil {
		return err
	}
	edges, err := g.normalizeEdges(p.Edges, p.Extractor)
	if err != nil {
		return err
	}
	for i := range nodes {
		nodes[i].hash = parseSymbolHash(p.SymbolHashes[nodes[i].UID])
	}
	g.invalidate()
	if !g.noteShadowed(p.Path, p.Part, nodes, false) {
		g.noteChanges(p.Path, p.Part, len(g.byPath[p.Path]) > 0, nodes)
	}
	defer g.finishChanges()

	key := ownerKey{g.intern(p.Extractor), g.intern(p.Path)}
	o := g.owners[key]
	if o == nil {
		o = &owner{key: key}
		g.owners[key] = o
		g.byPath[key.path] = append(g.byPath[key.path], o)
	}
	if p.Part > 0 {
		// A further part of a payload split over several events: it adds
		// to what part 0 put there and releases nothing.
		for i := range nodes {
			g.upsertNode(&nodes[i], o)
		}
		for i := range edges {
			g.upsertEdge(&edges[i], o)
		}
		return nil
	}
	o.contentHash, o.size, o.durationMS = p.ContentHash, p.Size, p.DurationMS
	o.parseErrors = slices.Clone(p.ParseErrors)
	if len(o.parseErrors) == 0 {
		o.parseErrors = nil
	}

	// Upsert the new set first (marking it with this application's
	// generation), then release what is not marked, so an unchanged node or
	// edge is never dropped and re-created.
	g.gen++
	for i := range nodes {
		g.upsertNode(&nodes[i], o).mark = g.gen
	}
	for i := range edges {
		g.upsertEdge(&edges[i], o).mark = g.gen
	}
	kept := o.edges[:0]
	for _, e := range o.edges {
		if e.mark == g.gen {
			kept = append(kept, e)
		} else {
			g.releaseEdge(e, o)
		}
	}
	clear(o.edges[len(kept):])
	o.edges = kept
	keptV := o.nodes[:0]
	for _, v := range o.nodes {
		if v.mark == g.gen {
			keptV = append(keptV, v)
		} else {
			g.releaseSymbol(v, o, p.Path)
		}
	}
	clear(o.nodes[len(keptV):])
	o.nodes = keptV
	return nil
}

func (g *Graph) applyFileRemoved(data []byte) error {
	var p graph.FileRemoved
	if err := decode(data, &p); err != nil {
		return err
	}
	if err := validatePath(p.Path); err != nil {
		return err
	}
	owners := g.byPath[p.Path]
	if len(owners) == 0 {
		return nil
	}
	g.invalidate()
	g.lastPath, g.releasedPath = p.Path, ""
	g.noteShadowed(p.Path, 0, nil, true)
	defer g.finishChanges()
	for _, o := range owners {
		for _, e := range o.edges {
			g.releaseEdge(e, o)
		}
		for _, v := range o.nodes {
			g.releaseSymbol(v, o, p.Path)
		}
		delete(g.owners, o.key)
	}
	delete(g.byPath, p.Path)
	return nil
}

// releaseSymbol is releaseNode that notes a symbol of path it removes
// (LastChangedSymbols).
func (g *Graph) releaseSymbol(v *vertex, o *owner, path string) {
	if !IsSymbolKind(v.kind) || v.path != path {
		g.releaseNode(v, o)
		return
	}
	s, uid := stateOf(v), v.uid
	g.releaseNode(v, o)
	if !v.present && !g.quietRelease {
		g.noteReleased(path, s, uid)
	}
}

func (g *Graph) applyNodesUpserted(data []byte) error {
	var p graph.NodesUpserted
	if err := decode(data, &p); err != nil {
		return err
	}
	nodes, err := g.normalizeNodes(p.Nodes, AgentOwner)
	if err != nil {
		return err
	}
	g.invalidate()
	for i := range nodes {
		g.upsertNode(&nodes[i], g.agent)
	}
	return nil
}

func (g *Graph) applyEdgesUpserted(data []byte) error {
	var p graph.EdgesUpserted
	if err := decode(data, &p); err != nil {
		return err
	}
	edges, err := g.normalizeEdges(p.Edges, AgentOwner)
	if err != nil {
		return err
	}
	g.invalidate()
	for i := range edges {
		g.upsertEdge(&edges[i], g.agent)
	}
	return nil
}

func (g *Graph) applyNodesDeleted(data []byte) error {
	var p graph.NodesDeleted
	if err := decode(data, &p); err != nil {
		return err
	}
	for i, uid := range p.UIDs {
		if err := graph.ValidateUID(uid); err != nil {
			return fmt.Errorf("%w: uids[%d]: %w", ErrInvalidEvent, i, err)
		}
	}
	g.invalidate()
	for _, uid := range p.UIDs {
		g.deleteNode(uid)
	}
	return nil
}

func (g *Graph) applyEdgesDeleted(data []byte) error {
	var p graph.EdgesDeleted
	if err := decode(data, &p); err != nil {
		return err
	}
	for i, k := range p.Edges {
		if err := validateEdgeKey(k); err != nil {
			return fmt.Errorf("%w: edges[%d]: %w", ErrInvalidEvent, i, err)
		}
	}
	g.invalidate()
	for _, k := range p.Edges {
		if k.Extractor == "" {
			k.Extractor = AgentOwner
		}
		if e := g.lookupEdge(k); e != nil {
			g.deleteEdge(e)
		}
	}
	return nil
}

// validatePath accepts a repo-relative, slash-separated path with no ".."
// segment.
func validatePath(p string) error {
	switch {
	case p == "":
		return invalid("path is empty")
	case strings.HasPrefix(p, "/"):
		return invalid("path %q is absolute; paths are repo-relative", p)
	case p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/.."):
		return invalid(`path %q contains ".."`, p)
	}
	return nil
}

func validateEdgeKey(k graph.EdgeKey) error {
	if err := graph.ValidateUID(k.Source); err != nil {
		return fmt.Errorf("source: %w", err)
	}
	if err := graph.ValidateUID(k.Target); err != nil {
		return fmt.Errorf("target: %w", err)
	}
	if k.Type == "" {
		return fmt.Errorf("type is empty")
	}
	return nil
}

// normalizeNodes validates nodes and returns copies with interned strings,
// defaults filled and canonical metadata in Metadata's place (see metaOf).
func (g *Graph) normalizeNodes(in []graph.Node, extractor string) ([]normNode, error) {
	out := make([]normNode, len(in))
	for i, n := range in {
		if err := graph.ValidateUID(n.UID); err != nil {
			return nil, fmt.Errorf("%w: nodes[%d]: %w", ErrInvalidEvent, i, err)
		}
		if n.Kind == "" {
			n.Kind, _ = graph.KindOfUID(n.UID)
		}
		if n.Extractor == "" {
			n.Extractor = extractor
		}
		meta, err := canonicalMeta(n.Metadata)
		if err != nil {
			return nil, invalid("nodes[%d].metadata: %v", i, err)
		}
		out[i] = normNode{
			UID: n.UID, Kind: g.intern(n.Kind), Label: n.Label, Path: g.intern(n.Path),
			Line: n.Line, EndLine: n.EndLine, Extractor: g.intern(n.Extractor), meta: meta,
		}
	}
	return out, nil
}

func (g *Graph) normalizeEdges(in []graph.Edge, extractor string) ([]normEdge, error) {
	out := make([]normEdge, len(in))
	for i, e := range in {
		if e.Extractor == "" {
			e.Extractor = extractor
		}
		if err := validateEdgeKey(e.Key()); err != nil {
			return nil, fmt.Errorf("%w: edges[%d]: %w", ErrInvalidEvent, i, err)
		}
		meta, err := canonicalMeta(e.Metadata)
		if err != nil {
			return nil, invalid("edges[%d].metadata: %v", i, err)
		}
		out[i] = normEdge{key: e.Key(), line: e.Line, meta: meta}
	}
	return out, nil
}

type normNode struct {
	UID, Kind, Label, Path, Extractor string
	Line, EndLine                     int
	meta                              []byte
	// hash is the symbol hash, 0 when the event has none.
	hash uint64
}

type normEdge struct {
	key  graph.EdgeKey
	line int
	meta []byte
}

// canonicalMeta encodes metadata as JSON with sorted keys (json.Marshal
// sorts map keys), nil when empty.
func canonicalMeta(m map[string]any) ([]byte, error) {
	if len(m) == 0 {
		return nil, nil
	}
	return json.Marshal(m)
}

// vertex returns the vertex of uid, creating it when create is set.
func (g *Graph) vertex(uid string, create bool) *vertex {
	v := g.vertices[uid]
	if v == nil && create {
		v = &vertex{uid: uid}
		g.vertices[uid] = v
	}
	return v
}

func (g *Graph) dropVertexIfEmpty(v *vertex) {
	if !v.present && len(v.out) == 0 && len(v.in) == 0 {
		delete(g.vertices, v.uid)
	}
}

func (g *Graph) upsertNode(n *normNode, o *owner) *vertex {
	v := g.vertex(n.UID, true)
	if v.present && n.Kind == graph.KindExternal && !v.shows(o) {
		// Another file emits this stub too (code:external:*.call, called
		// from several languages) and its version is the one shown: only
		// the ownership is recorded.
		if !v.owners.has(o) {
			v.owners.add(o)
			if !o.isAgent {
				o.nodes = append(o.nodes, v)
			}
		}
		return v
	}
	if !v.present {
		v.present = true
		g.nodes++
		g.byLabel[n.Label] = append(g.byLabel[n.Label], v)
		g.unresolved.add(unresolvedOf(n.Kind, n.meta), 1)
	} else {
		if v.label != n.Label {
			g.unindexLabel(v)
			g.byLabel[n.Label] = append(g.byLabel[n.Label], v)
		}
		if v.kind != n.Kind || !bytes.Equal(v.meta, n.meta) {
			g.unresolved.add(unresolvedOf(v.kind, v.meta), -1)
			g.unresolved.add(unresolvedOf(n.Kind, n.meta), 1)
		}
	}
	v.kind, v.label, v.path, v.extractor = n.Kind, n.Label, n.Path, n.Extractor
	v.line, v.endLine, v.meta, v.symHash = n.Line, n.EndLine, n.meta, n.hash
	if !v.owners.has(o) {
		v.owners.add(o)
		if !o.isAgent {
			o.nodes = append(o.nodes, v)
		}
	}
	return v
}

// shows reports whether o's version of the stub v replaces the one v
// shows. Of the files that emit one stub (an external node: a name the
// extractors could not resolve, emitted by every file that calls it), the
// version of the greatest (path, extractor) owner is shown, so that the
// stub reads the same whatever order the files were applied in: a fresh
// index applies them in path order, an incremental one only the files it
// extracted again. Any other node keeps "the last extraction applied
// wins": its owners describe the same file, and the newest content is
// right. An agent's write always replaces the fields. When the shown
// owner drops the stub, the greatest remaining owner's version is shown
// (reshowStub).
func (v *vertex) shows(o *owner) bool {
	if o.isAgent {
		return true
	}
	beats := func(x *owner) bool {
		return x == nil || x == o || x.isAgent || !ownerLess(o.key, x.key)
	}
	if !beats(v.owners.first) {
		return false
	}
	for _, x := range v.owners.rest {
		if !beats(x) {
			return false
		}
	}
	return true
}

// ownerLess orders owner keys by path, then extractor.
func ownerLess(a, b ownerKey) bool {
	if a.path != b.path {
		return a.path < b.path
	}
	return a.extractor < b.extractor
}

func (g *Graph) unindexLabel(v *vertex) {
	vs := g.byLabel[v.label]
	if i := slices.Index(vs, v); i >= 0 {
		vs[i] = vs[len(vs)-1]
		vs[len(vs)-1] = nil
		vs = vs[:len(vs)-1]
	}
	if len(vs) == 0 {
		delete(g.byLabel, v.label)
	} else {
		g.byLabel[v.label] = vs
	}
}

func (g *Graph) upsertEdge(n *normEdge, o *owner) *edgeState {
	src := g.vertex(n.key.Source, true)
	dst := g.vertex(n.key.Target, true)
	typ, ext := g.sym(n.key.Type), g.sym(n.key.Extractor)
	e := findEdge(src, dst, typ, ext)
	if e == nil {
		e = &edgeState{src: src, dst: dst, typ: typ, ext: ext, outIdx: len(src.out), inIdx: len(dst.in)}
		src.out = append(src.out, e)
		dst.in = append(dst.in, e)
		g.edges++
	}
	e.line, e.meta = n.line, n.meta
	if !e.owners.has(o) {
		e.owners.add(o)
		if !o.isAgent {
			o.edges = append(o.edges, e)
		}
	}
	return e
}

// releaseNode takes o out of v's owners and drops the node when none is left.
// The caller fixes o.nodes.
func (g *Graph) releaseNode(v *vertex, o *owner) {
	v.owners.remove(o)
	if v.owners.len() == 0 && v.present {
		g.clearNode(v)
		g.dropVertexIfEmpty(v)
		return
	}
	if v.present && v.kind == graph.KindExternal && !o.isAgent {
		v.reshowStub(o)
	}
}

// reshowStub is called when o stops owning the stub v while other owners
// keep it. If o's version was the one shown (o was v's greatest owner, see
// shows), v now shows its greatest remaining owner's version, as a fresh
// index of the remaining files would. Only the extractor differs between
// two files' versions of a stub (kind external, the label the uid spells,
// metadata {stub: true}, no path or line), and a file's version carries
// its own extractor, so that owner's extractor is the whole of its
// version. An agent's write stays shown while the agent owns the node.
func (v *vertex) reshowStub(o *owner) {
	best := v.owners.first
	for _, x := range v.owners.rest {
		if x.isAgent || best.isAgent {
			return
		}
		if ownerLess(best.key, x.key) {
			best = x
		}
	}
	if best.isAgent || !ownerLess(best.key, o.key) {
		return
	}
	v.extractor = best.key.extractor
}

func (g *Graph) clearNode(v *vertex) {
	g.unindexLabel(v)
	g.unresolved.add(unresolvedOf(v.kind, v.meta), -1)
	v.present = false
	g.nodes--
	v.kind, v.label, v.path, v.extractor, v.line, v.endLine, v.meta, v.owners = "", "", "", "", 0, 0, nil, ownerSet{}
	v.symHash = 0
}

// releaseEdge takes o out of e's owners and unlinks the edge when none is
// left. The caller fixes o.edges.
func (g *Graph) releaseEdge(e *edgeState, o *owner) {
	e.owners.remove(o)
	if e.owners.len() == 0 {
		g.unlinkEdge(e)
	}
}

// deleteEdge drops e whoever owns it.
func (g *Graph) deleteEdge(e *edgeState) {
	for _, o := range e.owners.all() {
		if !o.isAgent {
			o.edges = removeItem(o.edges, e)
		}
	}
	e.owners = ownerSet{}
	g.unlinkEdge(e)
}

func (g *Graph) unlinkEdge(e *edgeState) {
	g.edges--
	src, dst := e.src, e.dst
	// Swap-remove from src.out, fixing the moved edge's index.
	last := src.out[len(src.out)-1]
	src.out[e.outIdx] = last
	last.outIdx = e.outIdx
	src.out[len(src.out)-1] = nil
	src.out = src.out[:len(src.out)-1]
	lastIn := dst.in[len(dst.in)-1]
	dst.in[e.inIdx] = lastIn
	lastIn.inIdx = e.inIdx
	dst.in[len(dst.in)-1] = nil
	dst.in = dst.in[:len(dst.in)-1]
	g.dropVertexIfEmpty(src)
	if dst != src {
		g.dropVertexIfEmpty(dst)
	}
}

// deleteNode drops the node uid, whoever owns it, and every edge touching
// uid.
func (g *Graph) deleteNode(uid string) {
	v := g.vertices[uid]
	if v == nil {
		return
	}
	for len(v.out) > 0 {
		g.deleteEdge(v.out[len(v.out)-1])
	}
	for len(v.in) > 0 {
		g.deleteEdge(v.in[len(v.in)-1])
	}
	if v.present {
		for _, o := range v.owners.all() {
			if !o.isAgent {
				o.nodes = removeItem(o.nodes, v)
			}
		}
		g.clearNode(v)
	}
	g.dropVertexIfEmpty(v)
}

// removeItem removes x from s keeping the order of the rest (owner lists are
// small; order keeps the last-writer rule independent of removal history).
func removeItem[T comparable](s []T, x T) []T {
	i := slices.Index(s, x)
	if i < 0 {
		return s
	}
	var zero T
	copy(s[i:], s[i+1:])
	s[len(s)-1] = zero
	return s[:len(s)-1]
}
