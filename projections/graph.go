package projections

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/cos-dev/cos/graph"
)

// AgentOwner is the owner of nodes and edges written by graph.nodes_upserted
// and graph.edges_upserted; they are removed only by graph.nodes_deleted and
// graph.edges_deleted. It is also the extractor recorded on an agent node or
// edge that names none, so no extractor may be called "agent".
const AgentOwner = "agent"

// Graph is the graph projection (Name "graph"): nodes by uid, edges by
// (source, target, type, extractor), in/out adjacency, and what each
// (extractor, path) owns.
//
// # Ownership
//
// Every node and edge has a set of owners. graph.file_extracted makes
// (Extractor, Path) own exactly the nodes and edges of its payload:
// what it owned before and does not emit again is released. A node or edge
// emitted identically by several files (a folder node, a contains edge, an
// external stub, a package node) has several owners and disappears only when
// the last one releases it. The agent upsert events make AgentOwner an owner;
// only the delete events take that away. graph.nodes_deleted drops a node
// and every edge touching it, whoever owns them; graph.edges_deleted drops
// edges. graph.file_removed releases what every extractor owned for a path
// and forgets the path.
//
// When several owners emit a node (or edge) with different fields, the last
// one applied wins and stays until the node is gone: values are a function of
// the event order, so every replay agrees. An external stub is the
// exception: it shows the version of its greatest (path, extractor) owner,
// and that of the greatest one left when that owner drops it, so that an
// incremental index and a fresh one agree.
//
// Edges may dangle: an edge whose source or target is not a node is kept
// (doctor reports it as dangling_source / dangling_target).
//
// # Concurrency
//
// Apply and UnmarshalSnapshot need exclusive access (the tailer's write
// lock). Every other method is read-only and safe for concurrent use under
// the tailer's read lock; the caches they fill are guarded by an internal
// mutex.
type Graph struct {
	// vertices holds one entry per uid that is a node or an edge endpoint;
	// its key is the canonical copy of the uid that every edge shares.
	vertices map[string]*vertex
	// edges counts the edges; an edge is found through the shorter of
	// its source's out list and its target's in list (findEdge), so no
	// edge-key map is kept.
	edges   int
	owners  map[ownerKey]*owner
	byPath  map[string][]*owner
	byLabel map[string][]*vertex
	// strs interns the low-cardinality strings: kinds, extractors, paths.
	strs map[string]string
	// syms numbers edge types and extractors, so an edge's key is two
	// pointers and two small integers (cheap to hash, little for the GC to
	// scan).
	syms  []string
	symID map[string]uint32
	agent *owner
	nodes int
	// gen numbers graph.file_extracted applications; an entity's mark
	// equal to gen means "emitted by the event being applied".
	gen uint64
	// unresolved sums unresolvedOf over the present nodes (Unresolved).
	unresolved UnresolvedCounts
	// changed is the seq of the last graph event applied; changedUnknown
	// is set by UnmarshalSnapshot until the next event (LastChange). Like
	// unresolved, neither is part of the canonical encoding.
	changed        uint64
	changedUnknown bool
	// lastIndex is the last index run recorded (graph.index_started and
	// graph.index_finished); nil when the log records none.
	lastIndex *IndexRun
	// roots is the last run of each root, by name ("" the primary root);
	// lastIndex is one of them.
	roots map[string]*IndexRun
	// lastPath and lastChanged are LastChangedSymbols: the path of the last
	// event applied and the symbols it changed. released holds what part 0
	// of releasedPath released (so a later part can tell a symbol it adds
	// back from a changed one), releasedHeld whether the path was held
	// before that part 0. Not encoded: they describe one event.
	lastPath     string
	lastChanged  []string
	lastRestored []string
	released     map[string]*symbolState
	releasedPath string
	releasedHeld bool
	// shadow holds the log's symbols of the paths an overlay replaced
	// (ApplyOverlay); overlaying is set while an overlay event applies,
	// quietRelease while a log event on a shadowed path releases nodes
	// (its changes were told against the shadow). Not encoded: a process
	// with an overlay writes no snapshot.
	shadow       map[string]*shadowFile
	overlaying   bool
	quietRelease bool

	// encMu serialises encodes (MarshalSnapshot, StateHash), the only
	// writers and readers of vertex.ord; it is taken before cacheMu.
	encMu sync.Mutex
	// cacheMu guards the caches below, which readers fill lazily; Apply
	// clears them (it runs with no reader present).
	cacheMu sync.Mutex
	// version counts the mutations (Version).
	version     uint64
	hashOK      bool
	hash        [32]byte
	sortedOK    bool
	sortedUID   []*vertex
	pathsOK     bool
	sortedPaths []string
	lowerOK     bool
	lowerFiles  []FallbackFile
}

// vertex is a uid: a node when present, and the anchor of its edges.
type vertex struct {
	uid     string
	present bool
	// ord is the node's 1-based position in the uid order of the last
	// encode (encode's ref), valid only while present and inside encode,
	// which sets it for every node under encMu; it sits in padding.
	ord       uint32
	kind      string
	label     string
	path      string
	extractor string
	line      int
	endLine   int
	meta      []byte // canonical JSON of Metadata; nil when empty
	// symHash is the symbol hash (graph.FileExtracted.SymbolHashes) as a
	// number; 0 when not known.
	symHash uint64
	owners  ownerSet
	out, in []*edgeState
	mark    uint64
}

// edgeState is one edge: (src.uid, dst.uid, syms[typ], syms[ext]).
type edgeState struct {
	src, dst *vertex
	typ, ext uint32
	line     int
	meta     []byte
	owners   ownerSet
	// outIdx and inIdx are the edge's positions in src.out and dst.in, so
	// unlinking is O(1).
	outIdx, inIdx int
	mark          uint64
}

// findEdge returns the edge (src, dst, typ, ext), or nil. It scans the
// shorter of src.out and dst.in: O(min(out-degree, in-degree)), which stays
// small even for hubs (a folder's many contains edges each end at a file
// with one incoming contains edge).
func findEdge(src, dst *vertex, typ, ext uint32) *edgeState {
	if len(src.out) <= len(dst.in) {
		for _, e := range src.out {
			if e.dst == dst && e.typ == typ && e.ext == ext {
				return e
			}
		}
		return nil
	}
	for _, e := range dst.in {
		if e.src == src && e.typ == typ && e.ext == ext {
			return e
		}
	}
	return nil
}

// ownerSet is a small set of owners; most entities have exactly one, kept
// inline without an allocation.
type ownerSet struct {
	first *owner
	rest  []*owner
}

func (s *ownerSet) len() int {
	if s.first == nil {
		return 0
	}
	return 1 + len(s.rest)
}

func (s *ownerSet) has(o *owner) bool {
	return s.first == o || (s.first != nil && slices.Contains(s.rest, o))
}

func (s *ownerSet) add(o *owner) {
	if s.first == nil {
		s.first = o
	} else {
		s.rest = append(s.rest, o)
	}
}

func (s *ownerSet) remove(o *owner) {
	switch {
	case s.first == o && len(s.rest) == 0:
		s.first = nil
	case s.first == o:
		s.first = s.rest[0]
		s.rest = removeItem(s.rest, s.first)
	default:
		s.rest = removeItem(s.rest, o)
	}
	if len(s.rest) == 0 {
		s.rest = nil
	}
}

// all returns the owners; the slice may alias the set.
func (s *ownerSet) all() []*owner {
	if s.first == nil {
		return nil
	}
	return append([]*owner{s.first}, s.rest...)
}

type ownerKey struct{ extractor, path string }

// owner is (extractor, path) — or the agent — with what it owns. The agent
// keeps no lists: nothing releases its entities wholesale.
type owner struct {
	key         ownerKey
	isAgent     bool
	contentHash string
	size        int64
	durationMS  float64
	parseErrors []string
	nodes       []*vertex
	edges       []*edgeState
}

// FileInfo is what one extractor recorded for one file.
type FileInfo struct {
	Path        string   `json:"path"`
	Extractor   string   `json:"extractor"`
	ContentHash string   `json:"content_hash"`
	Size        int64    `json:"size"`
	DurationMS  float64  `json:"duration_ms"`
	ParseErrors []string `json:"parse_errors,omitempty"`
	// Nodes and Edges count what this (extractor, path) owns now.
	Nodes int `json:"nodes"`
	Edges int `json:"edges"`
}

// GraphCounts are the sizes of the graph.
type GraphCounts struct {
	Nodes int `json:"nodes"`
	Edges int `json:"edges"`
	// Files is the number of distinct paths with at least one extraction.
	Files int `json:"files"`
	// Extractions is the number of (extractor, path) pairs.
	Extractions int `json:"extractions"`
}

var _ Projection = (*Graph)(nil)

// NewGraph returns an empty graph projection.
func NewGraph() *Graph {
	g := &Graph{}
	g.reset()
	return g
}

func (g *Graph) reset() {
	g.vertices = make(map[string]*vertex)
	g.edges = 0
	g.syms, g.symID = nil, make(map[string]uint32)
	g.owners = make(map[ownerKey]*owner)
	g.byPath = make(map[string][]*owner)
	g.byLabel = make(map[string][]*vertex)
	g.strs = make(map[string]string)
	g.agent = &owner{key: ownerKey{extractor: AgentOwner}, isAgent: true}
	g.nodes = 0
	g.unresolved = UnresolvedCounts{}
	g.changed, g.changedUnknown = 0, false
	g.lastIndex = nil
	g.roots = map[string]*IndexRun{}
	g.lastPath, g.lastChanged, g.lastRestored, g.released, g.releasedPath, g.releasedHeld = "", nil, nil, nil, "", false
	g.invalidate()
}

// Name returns "graph".
func (g *Graph) Name() string { return "graph" }

// Node returns the node with uid, and false when there is none.
func (g *Graph) Node(uid string) (graph.Node, bool) {
	v := g.vertices[uid]
	if v == nil || !v.present {
		return graph.Node{}, false
	}
	return v.node(), true
}

// HasNode reports whether uid is a node, without building it.
func (g *Graph) HasNode(uid string) bool {
	v := g.vertices[uid]
	return v != nil && v.present
}

// NodesByLabel returns the nodes whose label is exactly label, in uid order.
func (g *Graph) NodesByLabel(label string) []graph.Node {
	vs := g.byLabel[label]
	out := make([]graph.Node, 0, len(vs))
	for _, v := range vs {
		out = append(out, v.node())
	}
	slices.SortFunc(out, func(a, b graph.Node) int { return strings.Compare(a.UID, b.UID) })
	return out
}

// Nodes calls fn for every node in uid order until fn returns false. The
// first call after a change sorts the uids (O(n log n)); later calls reuse
// the order.
func (g *Graph) Nodes(fn func(graph.Node) bool) {
	for _, v := range g.sortedNodes() {
		if !fn(v.node()) {
			return
		}
	}
}

// NodePaths calls fn with the uid and path of every node in uid order until
// fn returns false, without building the nodes (no metadata is decoded):
// what a reader that keeps a path → uids table needs. Cost as Nodes' order.
func (g *Graph) NodePaths(fn func(uid, path string) bool) {
	for _, v := range g.sortedNodes() {
		if !fn(v.uid, v.path) {
			return
		}
	}
}

// Out returns the edges whose source is uid, ordered by (target, type,
// extractor). An edge may point at a uid that is not a node.
func (g *Graph) Out(uid string) []graph.Edge {
	v := g.vertices[uid]
	if v == nil {
		return nil
	}
	return g.sortedEdges(v.out)
}

// In returns the edges whose target is uid, ordered by (source, type,
// extractor).
func (g *Graph) In(uid string) []graph.Edge {
	v := g.vertices[uid]
	if v == nil {
		return nil
	}
	return g.sortedEdges(v.in)
}

// Degree returns the number of edges into and out of uid.
func (g *Graph) Degree(uid string) (in, out int) {
	v := g.vertices[uid]
	if v == nil {
		return 0, 0
	}
	return len(v.in), len(v.out)
}

// Edge returns the edge with identity k, and false when there is none. An
// empty k.Extractor means AgentOwner.
func (g *Graph) Edge(k graph.EdgeKey) (graph.Edge, bool) {
	if k.Extractor == "" {
		k.Extractor = AgentOwner
	}
	e := g.lookupEdge(k)
	if e == nil {
		return graph.Edge{}, false
	}
	return g.edgeOf(e), true
}

// lookupEdge returns the edge with identity k, or nil.
func (g *Graph) lookupEdge(k graph.EdgeKey) *edgeState {
	src, dst := g.vertices[k.Source], g.vertices[k.Target]
	typ, ok1 := g.symID[k.Type]
	ext, ok2 := g.symID[k.Extractor]
	if src == nil || dst == nil || !ok1 || !ok2 {
		return nil
	}
	return findEdge(src, dst, typ, ext)
}

// sym returns the number of an edge type or extractor, assigning one.
func (g *Graph) sym(s string) uint32 {
	if id, ok := g.symID[s]; ok {
		return id
	}
	id := uint32(len(g.syms))
	g.syms = append(g.syms, s)
	g.symID[s] = id
	return id
}

// symBytes is sym for a decoder's bytes.
func (g *Graph) symBytes(b []byte) uint32 {
	if id, ok := g.symID[string(b)]; ok {
		return id
	}
	return g.sym(string(b))
}

// keyOf returns the public identity of e.
func (g *Graph) keyOf(e *edgeState) graph.EdgeKey {
	return graph.EdgeKey{Source: e.src.uid, Target: e.dst.uid, Type: g.syms[e.typ], Extractor: g.syms[e.ext]}
}

// FileHashes returns, for every extracted path, the content hash recorded by
// its extraction (the lexically first extractor's when several disagree), for
// incremental indexing. The map is a fresh copy.
func (g *Graph) FileHashes() map[string]string {
	out := make(map[string]string, len(g.byPath))
	for path, owners := range g.byPath {
		best := owners[0]
		for _, o := range owners[1:] {
			if o.key.extractor < best.key.extractor {
				best = o
			}
		}
		out[path] = best.contentHash
	}
	return out
}

// FileHash returns the content hash FileHashes holds for path, and whether
// the graph holds path.
func (g *Graph) FileHash(path string) (string, bool) {
	owners := g.byPath[path]
	if len(owners) == 0 {
		return "", false
	}
	best := owners[0]
	for _, o := range owners[1:] {
		if o.key.extractor < best.key.extractor {
			best = o
		}
	}
	return best.contentHash, true
}

// Files returns the extraction record of every (extractor, path), ordered by
// path then extractor: content hash, size, duration and parse errors (for
// doctor's slowest_extractions and files_with_parse_errors).
func (g *Graph) Files() []FileInfo {
	out := make([]FileInfo, 0, len(g.owners))
	for _, o := range g.owners {
		out = append(out, o.info())
	}
	slices.SortFunc(out, func(a, b FileInfo) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Extractor, b.Extractor)
	})
	return out
}

// file returns the extraction record of (extractor, path).
func (g *Graph) file(extractor, path string) (FileInfo, bool) {
	o := g.owners[ownerKey{extractor, path}]
	if o == nil {
		return FileInfo{}, false
	}
	return o.info(), true
}

// Counts returns the sizes of the graph in O(1).
func (g *Graph) Counts() GraphCounts {
	return GraphCounts{Nodes: g.nodes, Edges: g.edges, Files: len(g.byPath), Extractions: len(g.owners)}
}

func (o *owner) info() FileInfo {
	return FileInfo{
		Path: o.key.path, Extractor: o.key.extractor, ContentHash: o.contentHash,
		Size: o.size, DurationMS: o.durationMS, ParseErrors: slices.Clone(o.parseErrors),
		Nodes: len(o.nodes), Edges: len(o.edges),
	}
}

func (v *vertex) node() graph.Node {
	return graph.Node{
		UID: v.uid, Kind: v.kind, Label: v.label, Path: v.path,
		Line: v.line, EndLine: v.endLine, Extractor: v.extractor,
		Metadata: decodeMeta(v.meta),
	}
}

func (g *Graph) edgeOf(e *edgeState) graph.Edge {
	k := g.keyOf(e)
	return graph.Edge{
		Source: k.Source, Target: k.Target, Type: k.Type,
		Extractor: k.Extractor, Line: e.line, Metadata: decodeMeta(e.meta),
	}
}

func (g *Graph) sortedEdges(es []*edgeState) []graph.Edge {
	out := make([]graph.Edge, 0, len(es))
	for _, e := range es {
		out = append(out, g.edgeOf(e))
	}
	slices.SortFunc(out, func(a, b graph.Edge) int { return compareKeys(a.Key(), b.Key()) })
	return out
}

func compareKeys(a, b graph.EdgeKey) int {
	if c := strings.Compare(a.Source, b.Source); c != 0 {
		return c
	}
	if c := strings.Compare(a.Target, b.Target); c != 0 {
		return c
	}
	if c := strings.Compare(a.Type, b.Type); c != 0 {
		return c
	}
	return strings.Compare(a.Extractor, b.Extractor)
}

// decodeMeta decodes canonical metadata JSON; it was produced by
// json.Marshal of a map, so it cannot fail.
func decodeMeta(b []byte) map[string]any {
	if len(b) == 0 {
		return nil
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// sortedNodes returns the present vertices in uid order, cached until the
// next Apply.
func (g *Graph) sortedNodes() []*vertex {
	g.cacheMu.Lock()
	defer g.cacheMu.Unlock()
	if !g.sortedOK {
		vs := make([]*vertex, 0, g.nodes)
		for _, v := range g.vertices {
			if v.present {
				vs = append(vs, v)
			}
		}
		slices.SortFunc(vs, func(a, b *vertex) int { return strings.Compare(a.uid, b.uid) })
		g.sortedUID, g.sortedOK = vs, true
	}
	return g.sortedUID
}

// Version returns a number that changes with every change of the graph,
// from the log or not (a worktree's overlay applies files the log does not
// hold, and LastChange does not move then): the key of a cache of
// answers computed from the graph.
func (g *Graph) Version() uint64 {
	g.cacheMu.Lock()
	defer g.cacheMu.Unlock()
	return g.version
}

// invalidate drops the caches; called by every mutation.
func (g *Graph) invalidate() {
	g.cacheMu.Lock()
	g.hashOK, g.sortedOK, g.sortedUID = false, false, nil
	g.pathsOK, g.sortedPaths = false, nil
	g.lowerOK, g.lowerFiles = false, nil
	g.version++
	g.cacheMu.Unlock()
}

// intern returns the canonical copy of a low-cardinality string.
func (g *Graph) intern(s string) string {
	if c, ok := g.strs[s]; ok {
		return c
	}
	g.strs[s] = s
	return s
}

// internBytes is intern for a decoder's bytes; it allocates only for a new
// string.
func (g *Graph) internBytes(b []byte) string {
	if c, ok := g.strs[string(b)]; ok {
		return c
	}
	s := string(b)
	g.strs[s] = s
	return s
}
