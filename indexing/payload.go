package indexing

import (
	"encoding/json"
	"fmt"

	"github.com/cos-dev/cos/graph"
)

// maxTrimNoteBytes bounds each parse error a trimmed payload keeps, and
// maxTrimNotes their number, so that a file's own parse errors cannot keep
// its payload over the limit.
const (
	maxTrimNoteBytes = 1 << 10
	maxTrimNotes     = 20
)

// encodePayload marshals p as one event, or, when it is over
// maxPayloadBytes, as parts (graph.FileExtracted.Part) of at most that
// size each, its nodes and edges shared out in order: a generated file of
// 20,000 functions keeps every node and edge. Only a payload that cannot be
// split small enough (a node or edge over the limit on its own) is trimmed
// (trimPayload), reported by trimmed.
func encodePayload(p *graph.FileExtracted) (parts [][]byte, trimmed bool, err error) {
	return encodePayloadLimit(p, maxPayloadBytes)
}

// encodePayloadLimit is encodePayload with the event limit as a parameter
// (limit in bytes), so that tests can drive it with small payloads.
func encodePayloadLimit(p *graph.FileExtracted, limit int) (parts [][]byte, trimmed bool, err error) {
	data, err := json.Marshal(p)
	if err != nil {
		return nil, false, fmt.Errorf("encode payload of %s: %w", p.Path, err)
	}
	if len(data) <= limit {
		return [][]byte{data}, false, nil
	}
	if parts, ok, err := splitPayload(p, len(data), limit); err != nil || ok {
		return parts, false, err
	}
	parts, err = trimPayload(p, len(data), limit)
	return parts, true, err
}

// splitPayload tries ever more parts, from the fewest the size allows up to
// one node or edge a part; ok is false when no split fits (an item over
// limit on its own).
func splitPayload(p *graph.FileExtracted, size, limit int) (parts [][]byte, ok bool, err error) {
	items := len(p.Nodes) + len(p.Edges)
	n := size/limit + 1
	for {
		if n > items {
			n = items
		}
		if n < 1 {
			return nil, false, nil
		}
		if parts, ok, err := encodeParts(p, n, limit); err != nil || ok {
			return parts, ok, err
		}
		if n == items {
			return nil, false, nil
		}
		n = n*2 + 1
	}
}

// encodeParts splits p into n parts, nodes and edges each cut into n runs
// in order, part 0 carrying the file's own fields; ok is false when a part
// is still over limit.
func encodeParts(p *graph.FileExtracted, n, limit int) (parts [][]byte, ok bool, err error) {
	for i := range n {
		q := graph.FileExtracted{Path: p.Path, Extractor: p.Extractor, ContentHash: p.ContentHash, Size: p.Size, Part: i,
			Nodes: p.Nodes[i*len(p.Nodes)/n : (i+1)*len(p.Nodes)/n],
			Edges: p.Edges[i*len(p.Edges)/n : (i+1)*len(p.Edges)/n]}
		q.SymbolHashes = hashesOf(p.SymbolHashes, q.Nodes)
		if i == 0 {
			q.ParseErrors, q.DurationMS = p.ParseErrors, p.DurationMS
		}
		if q.Nodes == nil {
			q.Nodes = []graph.Node{}
		}
		if q.Edges == nil {
			q.Edges = []graph.Edge{}
		}
		data, err := json.Marshal(&q)
		if err != nil {
			return nil, false, fmt.Errorf("encode payload of %s: %w", p.Path, err)
		}
		if len(data) > limit {
			return nil, false, nil
		}
		parts = append(parts, data)
	}
	return parts, true, nil
}

// trimPayload is the last resort of encodePayload, for a payload that no
// split fits: some node or edge is over the limit on its own (a minified
// bundle's import of a megabyte-long specifier, a heading of a whole
// file). In this order it drops node and edge metadata, then every node
// and edge over the limit on its own (and the edges that touch a dropped
// node), and splits what is left as encodePayload does; only if that still
// does not fit does it cut edges from the end, then nodes, in rounds that
// never cut more than is there. A parse error says what was dropped, so
// doctor's files_with_parse_errors shows the file. Every part returned is
// at most limit bytes, unless the file's own fields (its path) are.
func trimPayload(p *graph.FileExtracted, size, limit int) ([][]byte, error) {
	nodes0, edges0 := len(p.Nodes), len(p.Edges)
	for i := range p.Nodes {
		p.Nodes[i].Metadata = nil
	}
	for i := range p.Edges {
		p.Edges[i].Metadata = nil
	}
	errs0 := p.ParseErrors
	if len(errs0) > maxTrimNotes {
		errs0 = errs0[:maxTrimNotes]
	}
	for i, e := range errs0 {
		if len(e) > maxTrimNoteBytes {
			errs0 = append([]string(nil), errs0...)
			errs0[i] = graph.CleanString(e[:maxTrimNoteBytes]) + "…"
		}
	}
	errsN := len(p.ParseErrors)
	note := func() string {
		s := fmt.Sprintf("payload of %d bytes trimmed to fit the log's %d-byte event limit: kept %d of %d nodes, %d of %d edges, metadata dropped",
			size, limit, len(p.Nodes), nodes0, len(p.Edges), edges0)
		if len(errs0) < errsN {
			s += fmt.Sprintf(", %d of %d parse errors kept", len(errs0), errsN)
		}
		return s
	}
	// An item fits only when the payload around it leaves room: the
	// file's own fields, its parse errors and the note. The parse errors
	// go from the end until that shell takes at most half the limit.
	var base []byte
	for {
		shell := graph.FileExtracted{Path: p.Path, Extractor: p.Extractor, ContentHash: p.ContentHash, Size: p.Size,
			ParseErrors: append(append([]string(nil), errs0...), note()), DurationMS: p.DurationMS, Nodes: []graph.Node{}, Edges: []graph.Edge{}}
		var err error
		if base, err = json.Marshal(&shell); err != nil {
			return nil, fmt.Errorf("encode payload of %s: %w", p.Path, err)
		}
		if len(base) <= limit/2 || len(errs0) == 0 {
			break
		}
		errs0 = errs0[:len(errs0)-1]
	}
	room := limit - len(base) - 64 // the note's counts may grow by a few digits
	dropped := map[string]bool{}
	nodes := p.Nodes[:0:0]
	for _, n := range p.Nodes {
		if b, _ := json.Marshal(n); len(b) > room {
			dropped[n.UID] = true
			continue
		}
		nodes = append(nodes, n)
	}
	edges := p.Edges[:0:0]
	for _, e := range p.Edges {
		if dropped[e.Source] || dropped[e.Target] {
			continue
		}
		if b, _ := json.Marshal(e); len(b) > room {
			continue
		}
		edges = append(edges, e)
	}
	p.Nodes, p.Edges = nodes, edges
	for {
		p.SymbolHashes = hashesOf(p.SymbolHashes, p.Nodes)
		p.ParseErrors = append(append([]string(nil), errs0...), note())
		data, err := json.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("encode payload of %s: %w", p.Path, err)
		}
		if len(data) <= limit || (len(p.Nodes) == 0 && len(p.Edges) == 0) {
			return [][]byte{data}, nil
		}
		if parts, ok, err := splitPayload(p, len(data), limit); err != nil || ok {
			return parts, err
		}
		// Cut by the overshoot's share, at least one element and never
		// more than there are, so a payload needs a handful of rounds.
		over := float64(len(data)-limit) / float64(len(data))
		if len(p.Edges) > 0 {
			p.Edges = p.Edges[:len(p.Edges)-cutCount(len(p.Edges), over)]
			continue
		}
		p.Nodes = p.Nodes[:len(p.Nodes)-cutCount(len(p.Nodes), over)]
	}
}

// cutCount is how many of n elements to cut for an overshoot share over
// (0..1): that share and a tenth more, at least 1 and at most n.
func cutCount(n int, over float64) int {
	return min(n, max(1, int(float64(n)*over*1.1)))
}

// hashesOf returns the symbol hashes of nodes, nil when none: each part of
// a split payload carries those of its own nodes.
func hashesOf(all map[string]string, nodes []graph.Node) map[string]string {
	var out map[string]string
	for _, n := range nodes {
		if h, ok := all[n.UID]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[n.UID] = h
		}
	}
	return out
}
