package history

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
)

// fileKey is what one extraction replaces: an extractor's facts of a path.
type fileKey struct{ path, extractor string }

// fileState is the last extraction of a fileKey: its nodes sorted by uid,
// and the hashes of its edges, sorted.
type fileState struct {
	nodes []nodeRec
	edges []uint64
}

// nodeRec is one node of an extraction and the hash of what a change
// compares (kind, label, extractor, metadata, line span).
type nodeRec struct {
	uid  string
	hash uint64
}

// pendingExtraction is a part-0 extraction whose parts may follow.
type pendingExtraction struct {
	key   fileKey
	pos   uint32 // entry of the part-0 event
	seq   uint64 // seq of its last part so far
	built fileState
	// summary prefix written before the diff ("a.go (go): ").
	prefix string
}

// extractedPayload is graph.FileExtracted decoded for what history needs.
type extractedPayload struct {
	Path      string `json:"path"`
	Extractor string `json:"extractor"`
	Part      int    `json:"part"`
	Nodes     []struct {
		UID       string          `json:"uid"`
		Kind      string          `json:"kind"`
		Label     string          `json:"label"`
		Line      int             `json:"line"`
		EndLine   int             `json:"end_line"`
		Extractor string          `json:"extractor"`
		Metadata  json.RawMessage `json:"metadata"`
	} `json:"nodes"`
	Edges []graph.EdgeKey `json:"edges"`
}

// continues reports whether ev is a later part of the pending extraction.
func continues(ev *eventlog.Event, p *pendingExtraction) bool {
	var h struct {
		Path      string `json:"path"`
		Extractor string `json:"extractor"`
		Part      int    `json:"part"`
	}
	return ev.Seq == p.seq+1 && json.Unmarshal(ev.Data, &h) == nil && h.Part > 0 &&
		(fileKey{h.Path, h.Extractor}) == p.key
}

// extracted handles graph.file_extracted: part 0 starts a pending
// extraction, a later part adds to it; the diff is written into the part-0
// entry when it settles.
func (x *Index) extracted(ev *eventlog.Event, pos uint32, t *touches) string {
	var p extractedPayload
	if err := json.Unmarshal(ev.Data, &p); err != nil {
		return ev.Type
	}
	t.paths = append(t.paths, p.Path)
	key := fileKey{p.Path, p.Extractor}
	var part fileState
	for _, n := range p.Nodes {
		part.nodes = append(part.nodes, nodeRec{uid: n.UID, hash: nodeHash(n.Kind, n.Label, n.Extractor, n.EndLine-n.Line, n.Metadata)})
	}
	for _, e := range p.Edges {
		part.edges = append(part.edges, edgeHash(e))
	}
	if p.Part > 0 && x.pending != nil && x.pending.key == key {
		x.pending.built.nodes = append(x.pending.built.nodes, part.nodes...)
		x.pending.built.edges = append(x.pending.built.edges, part.edges...)
		x.pending.seq = ev.Seq
		return fmt.Sprintf("%s (%s): part %d of the extraction at seq %d, %s, %s",
			p.Path, p.Extractor, p.Part, x.entries[x.pending.pos].seq, count(len(p.Nodes), "node"), count(len(p.Edges), "edge"))
	}
	if p.Part > 0 {
		// A part whose part 0 was settled already (a batch boundary fell
		// between them): add it to the file's last extraction.
		fs := x.file(key)
		added := fs.add(part)
		t.uids = append(t.uids, added...)
		return fmt.Sprintf("%s (%s): part %d, +%s, %s", p.Path, p.Extractor, p.Part, count(len(added), "node"), count(len(p.Edges), "edge"))
	}
	x.pending = &pendingExtraction{key: key, pos: pos, seq: ev.Seq, built: part, prefix: p.Path + " (" + p.Extractor + "): "}
	return x.pending.prefix + "extracted"
}

// removed handles graph.file_removed: every extractor's facts of the path
// go.
func (x *Index) removed(ev *eventlog.Event, t *touches) string {
	var p graph.FileRemoved
	if json.Unmarshal(ev.Data, &p) != nil {
		return ev.Type
	}
	t.paths = append(t.paths, p.Path)
	var gone []string
	edges := 0
	for k, fs := range x.files {
		if k.path != p.Path {
			continue
		}
		for _, n := range fs.nodes {
			gone = append(gone, n.uid)
		}
		edges += len(fs.edges)
		delete(x.files, k)
	}
	slices.Sort(gone)
	gone = slices.Compact(gone)
	t.uids = append(t.uids, gone...)
	return p.Path + " removed: -" + count(len(gone), "node") + listed(labels(gone)) + ", -" + count(edges, "edge")
}

func (x *Index) file(k fileKey) *fileState {
	fs := x.files[k]
	if fs == nil {
		fs = &fileState{}
		x.files[k] = fs
	}
	return fs
}

// settle writes the pending extraction's diff into its entry and records
// the uids it touched; x.mu is held.
func (x *Index) settle() {
	p := x.pending
	if p == nil {
		return
	}
	x.pending = nil
	next := p.built
	slices.SortFunc(next.nodes, func(a, b nodeRec) int { return strings.Compare(a.uid, b.uid) })
	next.nodes = slices.CompactFunc(next.nodes, func(a, b nodeRec) bool { return a.uid == b.uid })
	slices.Sort(next.edges)
	next.edges = slices.Compact(next.edges)
	prev := x.files[p.key]
	if prev == nil {
		prev = &fileState{}
	}
	var added, removed, changed []string
	i, j := 0, 0
	for i < len(prev.nodes) || j < len(next.nodes) {
		switch {
		case j == len(next.nodes) || (i < len(prev.nodes) && prev.nodes[i].uid < next.nodes[j].uid):
			removed = append(removed, prev.nodes[i].uid)
			i++
		case i == len(prev.nodes) || next.nodes[j].uid < prev.nodes[i].uid:
			added = append(added, next.nodes[j].uid)
			j++
		default:
			if prev.nodes[i].hash != next.nodes[j].hash {
				changed = append(changed, next.nodes[j].uid)
			}
			i++
			j++
		}
	}
	edgesAdded, edgesRemoved := 0, 0
	i, j = 0, 0
	for i < len(prev.edges) || j < len(next.edges) {
		switch {
		case j == len(next.edges) || (i < len(prev.edges) && prev.edges[i] < next.edges[j]):
			edgesRemoved++
			i++
		case i == len(prev.edges) || next.edges[j] < prev.edges[i]:
			edgesAdded++
			j++
		default:
			i++
			j++
		}
	}
	x.files[p.key] = &next
	var parts []string
	if len(prev.nodes) == 0 && len(prev.edges) == 0 {
		parts = append(parts, "first extraction: "+count(len(next.nodes), "node")+listed(labels(added))+", "+count(len(next.edges), "edge"))
	} else {
		if len(added) > 0 {
			parts = append(parts, "+"+count(len(added), "node")+listed(labels(added)))
		}
		if len(removed) > 0 {
			parts = append(parts, "-"+count(len(removed), "node")+listed(labels(removed)))
		}
		if len(changed) > 0 {
			parts = append(parts, count(len(changed), "node")+" changed"+listed(labels(changed)))
		}
		if edgesAdded > 0 || edgesRemoved > 0 {
			parts = append(parts, fmt.Sprintf("+%d -%d edges", edgesAdded, edgesRemoved))
		}
		if len(parts) == 0 {
			parts = append(parts, "no node or edge changed")
		}
	}
	x.entries[p.pos].summary = clip(p.prefix+strings.Join(parts, "; "), MaxSummary)
	for _, list := range [][]string{added, removed, changed} {
		for _, u := range list {
			x.byUID[u] = insertPos(x.byUID[u], p.pos)
		}
	}
}

// insertPos adds pos to a sorted list of positions (at the end, unless a
// later event of the same uid was indexed before the extraction settled).
func insertPos(l []uint32, pos uint32) []uint32 {
	i, found := slices.BinarySearch(l, pos)
	if found {
		return l
	}
	return slices.Insert(l, i, pos)
}

// add merges a later part into a settled extraction and returns the uids
// it added.
func (fs *fileState) add(part fileState) []string {
	var added []string
	for _, n := range part.nodes {
		i, found := slices.BinarySearchFunc(fs.nodes, n.uid, func(a nodeRec, u string) int { return strings.Compare(a.uid, u) })
		if !found {
			fs.nodes = slices.Insert(fs.nodes, i, n)
			added = append(added, n.uid)
		}
	}
	for _, e := range part.edges {
		if i, found := slices.BinarySearch(fs.edges, e); !found {
			fs.edges = slices.Insert(fs.edges, i, e)
		}
	}
	return added
}

func nodeHash(kind, label, extractor string, span int, meta json.RawMessage) uint64 {
	h := fnv.New64a()
	for _, s := range []string{kind, label, extractor, fmt.Sprint(span)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	h.Write(meta)
	return h.Sum64()
}

func edgeHash(e graph.EdgeKey) uint64 {
	h := fnv.New64a()
	for _, s := range []string{e.Source, e.Target, e.Type, e.Extractor} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return h.Sum64()
}
