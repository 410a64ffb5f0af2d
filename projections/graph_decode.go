package projections

import (
	"fmt"
	"slices"
	"sync"
)

// decode reads the canonical encoding (graph_snapshot.go) into g, an empty
// graph. The node section and the edge section are decoded at once on two
// goroutines — they are about even in cost, and a cold start on a large
// state is mostly this decode (the Linux kernel's: 899k nodes, 4.2M edges,
// about 5 CPU-s) — after a pass that only skips over the nodes finds where
// the edges start. An edge names a node by its position, known before the
// node is decoded; the checks that need a node's uid (edge order across a
// node and a non-node endpoint, a non-node endpoint that is a node) run
// once both are done. Errors are the same as one pass's, wrapping
// ErrBadSnapshot; when both sections are bad, the node section's is
// returned.
func (g *Graph) decode(data []byte) error {
	d := &decoder{b: data}
	if f := d.str(); d.err == nil && f != graphFormat {
		return fmt.Errorf("%w: format %q, want %q", ErrBadSnapshot, f, graphFormat)
	}
	nOwners := d.count(4)
	owners := make([]*owner, 1, nOwners+1)
	owners[0] = g.agent
	for n := nOwners; n > 0 && d.err == nil; n-- {
		path := g.internBytes(d.bytes())
		key := ownerKey{path: path, extractor: g.internBytes(d.bytes())}
		o := &owner{key: key, contentHash: d.str(), size: d.varint(), durationMS: d.float()}
		for k := d.count(1); k > 0; k-- {
			o.parseErrors = append(o.parseErrors, d.str())
		}
		if _, dup := g.owners[key]; dup {
			d.fail("owner list (duplicate)")
		}
		g.owners[key] = o
		g.byPath[path] = append(g.byPath[path], o)
		owners = append(owners, o)
	}

	// Nodes live in one slab and each source's edges in one chunk: far
	// fewer objects to allocate and for the GC to track.
	nNodes := d.count(8)
	if d.err != nil {
		return d.err
	}
	nodeSection := d.b
	skipNodes(d, nNodes)
	if d.err != nil {
		return d.err
	}
	nodeSection = nodeSection[:len(nodeSection)-len(d.b)]
	slab := make([]vertex, nNodes)
	nodes := make([]*vertex, nNodes)
	for i := range slab {
		nodes[i] = &slab[i]
	}
	g.sortedUID, g.sortedOK = nodes, true
	g.vertices = make(map[string]*vertex, nNodes)
	// Most labels are a node's own: sized for them, the map never grows.
	g.byLabel = make(map[string][]*vertex, nNodes)

	var (
		wg      sync.WaitGroup
		nodeErr error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		nodeErr = g.decodeNodes(&decoder{b: nodeSection}, nodes, owners)
	}()
	ed := edgeDecoder{g: g, d: d, nodes: nodes, owners: owners, stubs: map[string]*vertex{}}
	nEdges := ed.decode()
	wg.Wait()
	if nodeErr != nil {
		return nodeErr
	}
	if d.err != nil {
		return d.err
	}
	// What needed the nodes' uids.
	for uid, v := range ed.stubs {
		if _, node := g.vertices[uid]; node {
			d.fail("node reference (a node by uid)")
			return d.err
		}
		g.vertices[uid] = v
	}
	for _, p := range ed.mixed {
		if p[1].uid < p[0].uid {
			d.fail("edge order (duplicate or unsorted)")
			return d.err
		}
	}
	decodeSymbolHashes(d, nodes)
	g.decodeIndexRun(d)
	if d.err == nil && len(d.b) != 0 {
		d.fail("graph section (trailing bytes)")
	}
	if d.err == nil && uint64(g.edges) != nEdges {
		d.fail("edge count")
	}
	return d.err
}

// readOwners reads an owner set: a count then ascending indexes into
// owners. An owner set is written in ascending index order, so a duplicate
// is an index not above the one before it: O(k), where a membership test
// per index was O(k²) for a stub that thousands of files emit.
func readOwners(d *decoder, owners []*owner) ownerSet {
	var os ownerSet
	k := d.count(1)
	if k == 0 {
		d.fail("owner set (empty)")
	}
	if k > 1 {
		os.rest = make([]*owner, 0, k-1)
	}
	var prev uint64
	for j := 0; k > 0; k, j = k-1, j+1 {
		i := d.uvarint()
		if i >= uint64(len(owners)) || (j > 0 && i <= prev) {
			d.fail("owner index")
			return ownerSet{}
		}
		prev = i
		os.add(owners[i])
	}
	return os
}

// skipNodes moves d past n nodes of the node section without decoding
// them.
func skipNodes(d *decoder, n int) {
	for i := 0; i < n && d.err == nil; i++ {
		for range 5 { // uid, kind, label, path, extractor
			d.bytes()
		}
		d.varint()
		d.varint()
		d.bytes() // metadata
		for k := d.count(1); k > 0; k-- {
			d.uvarint()
		}
	}
}

// decodeNodes decodes the node section (d holds exactly it) into nodes,
// one per node. It touches only the nodes' own fields, not their edge
// lists, and of g the maps no edge decode reads.
func (g *Graph) decodeNodes(d *decoder, nodes []*vertex, owners []*owner) error {
	prev := ""
	for i := 0; i < len(nodes) && d.err == nil; i++ {
		v := nodes[i]
		v.uid, v.present = d.str(), true
		if v.uid <= prev && prev != "" {
			d.fail("node order")
		}
		prev = v.uid
		v.kind = g.internBytes(d.bytes())
		v.label = d.str()
		v.path = g.internBytes(d.bytes())
		v.extractor = g.internBytes(d.bytes())
		v.line, v.endLine = int(d.varint()), int(d.varint())
		v.meta = cloneMeta(d.bytes())
		v.owners = readOwners(d, owners)
		for _, o := range v.owners.all() {
			if !o.isAgent {
				o.nodes = append(o.nodes, v)
			}
		}
		g.vertices[v.uid] = v
		g.byLabel[v.label] = append(g.byLabel[v.label], v)
		g.nodes++
		g.unresolved.add(unresolvedOf(v.kind, v.meta), 1)
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("node section")
	}
	return d.err
}

// edgeDecoder decodes the edge section beside decodeNodes: it reads no
// field decodeNodes writes (a node's uid among them), so what needs a
// node's uid is left for after both (stubs, mixed).
type edgeDecoder struct {
	g      *Graph
	d      *decoder
	nodes  []*vertex
	owners []*owner
	// stubs are the endpoints that are not nodes, by uid.
	stubs map[string]*vertex
	// mixed are the consecutive targets of one source, one a node and one
	// not, whose uid order is checked once the nodes are decoded.
	mixed [][2]*vertex
}

// ref reads an endpoint: the vertex and its node position (0 for an
// endpoint that is not a node).
func (ed *edgeDecoder) ref() (*vertex, uint64) {
	d := ed.d
	i := d.uvarint()
	if i > uint64(len(ed.nodes)) {
		d.fail("node reference")
		return &vertex{}, 0
	}
	if i > 0 {
		return ed.nodes[i-1], i
	}
	b := d.bytes()
	if v := ed.stubs[string(b)]; v != nil {
		return v, 0
	}
	v := &vertex{uid: string(b)}
	ed.stubs[v.uid] = v
	return v, 0
}

// decode reads the edge section and returns the edge count it announces.
func (ed *edgeDecoder) decode() uint64 {
	g, d := ed.g, ed.d
	nEdges := d.uvarint()
	for n := d.count(2); n > 0 && d.err == nil; n-- {
		src, _ := ed.ref()
		m := d.count(3)
		chunk := make([]edgeState, m)
		src.out = slices.Grow(src.out, m)
		var prevOrd uint64
		for j := 0; j < m && d.err == nil; j++ {
			dst, ord := ed.ref()
			e := &chunk[j]
			e.src, e.dst, e.outIdx, e.inIdx = src, dst, len(src.out), len(dst.in)
			e.typ = g.symBytes(d.bytes())
			e.ext = g.symBytes(d.bytes())
			e.line = int(d.varint())
			e.meta = cloneMeta(d.bytes())
			e.owners = readOwners(d, ed.owners)
			if d.err != nil {
				break // a bad owner set has no first owner to index
			}
			if j > 0 {
				// Targets ascend by uid: nodes by position (their uids
				// ascend with it), others by uid; a node beside another
				// endpoint waits for the node's uid.
				before := chunk[j-1].dst
				switch {
				case dst == before:
					if e.typ == chunk[j-1].typ && e.ext == chunk[j-1].ext {
						d.fail("edge order (duplicate or unsorted)")
					}
				case ord > 0 && prevOrd > 0:
					if ord < prevOrd {
						d.fail("edge order (duplicate or unsorted)")
					}
				case ord == 0 && prevOrd == 0:
					if dst.uid < before.uid {
						d.fail("edge order (duplicate or unsorted)")
					}
				default:
					ed.mixed = append(ed.mixed, [2]*vertex{before, dst})
				}
				if d.err != nil {
					break
				}
			}
			prevOrd = ord
			g.edges++
			if o := e.owners.first; !o.isAgent {
				o.edges = append(o.edges, e)
			}
			for _, o := range e.owners.rest {
				if !o.isAgent {
					o.edges = append(o.edges, e)
				}
			}
			src.out = append(src.out, e)
			dst.in = append(dst.in, e)
		}
	}
	return nEdges
}
