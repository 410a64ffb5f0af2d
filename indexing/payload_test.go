package indexing

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// fuzzPayload builds a payload from fuzz input: nodes nodes with labels of
// sizes drawn from sizes (a byte each, times scale, of the character ch),
// each contained by the file node and calling the one before it.
func fuzzPayload(nodes int, sizes []byte, scale int, ch byte, errs int) graph.FileExtracted {
	p := graph.FileExtracted{Path: "dist/bundle.min.js", Extractor: "js", ContentHash: strings.Repeat("a", 64),
		Nodes: []graph.Node{{UID: "code:file:dist/bundle.min.js", Kind: graph.KindFile, Label: "bundle.min.js"}}}
	for i := range errs {
		p.ParseErrors = append(p.ParseErrors, fmt.Sprintf("error %d: %s", i, strings.Repeat(string(rune(ch)), scale)))
	}
	for i := range nodes {
		size := 1
		if len(sizes) > 0 {
			size += int(sizes[i%len(sizes)]) * scale
		}
		uid := fmt.Sprintf("code:function:dist/bundle.min.js::f%d", i)
		p.Nodes = append(p.Nodes, graph.Node{UID: uid, Kind: graph.KindFunction, Label: strings.Repeat(string(rune(ch)), size),
			Metadata: map[string]any{"doc": strings.Repeat("d", size%97)}})
		p.Edges = append(p.Edges, graph.Edge{Source: p.Nodes[0].UID, Target: uid, Type: graph.EdgeContains})
		if i > 0 {
			p.Edges = append(p.Edges, graph.Edge{Source: uid, Target: p.Nodes[i].UID, Type: graph.EdgeCalls, Line: i})
		}
	}
	return p
}

// FuzzTrimPayload: whatever the sizes of a file's nodes, edges and parse
// errors, encoding never panics, every event fits the limit, nothing is
// invented (what is kept is a subsequence of what was given, in order,
// and no edge points at a dropped node), and a trimmed payload says so.
func FuzzTrimPayload(f *testing.F) {
	f.Add(40, []byte{1, 2, 3}, 10, byte('x'), 0, 2048)
	f.Add(300, []byte{0, 0, 255}, 40, byte('<'), 2, 4096) // one node far over the limit
	f.Add(2000, []byte{0}, 1, byte('a'), 0, 1500)         // many tiny nodes, ~60x the limit
	f.Add(5, []byte{200}, 200, byte(0x01), 30, 1024)      // parse errors over the limit
	f.Add(0, []byte{}, 0, byte('a'), 0, 300)              // just the file node
	f.Fuzz(func(t *testing.T, nodes int, sizes []byte, scale int, ch byte, errs, limit int) {
		nodes, scale, errs = abs(nodes)%3000, abs(scale)%300, abs(errs)%40
		limit = 600 + abs(limit)%(64<<10)
		p := fuzzPayload(nodes, sizes, scale, ch, errs)
		uids := map[string]int{}
		for i, n := range p.Nodes {
			uids[n.UID] = i
		}
		parts, trimmed, err := encodePayloadLimit(&p, limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(parts) == 0 {
			t.Fatal("no event")
		}
		kept, last := map[string]bool{}, -1
		for i, data := range parts {
			if len(data) > limit {
				t.Fatalf("part %d of %d: %d bytes over the %d-byte limit", i, len(parts), len(data), limit)
			}
			var q graph.FileExtracted
			if err := json.Unmarshal(data, &q); err != nil {
				t.Fatal(err)
			}
			if q.Part != i || q.Path != p.Path {
				t.Fatalf("part %d numbered %d, path %q", i, q.Part, q.Path)
			}
			for _, n := range q.Nodes {
				j, ok := uids[n.UID]
				if !ok || j <= last {
					t.Fatalf("node %s invented or out of order", n.UID)
				}
				last = j
				kept[n.UID] = true
			}
			if i == 0 && trimmed && !strings.Contains(strings.Join(q.ParseErrors, "\n"), "trimmed to fit") {
				t.Fatalf("a trimmed payload does not say so: %q", q.ParseErrors)
			}
		}
		for i, data := range parts {
			var q graph.FileExtracted
			_ = json.Unmarshal(data, &q)
			for _, e := range q.Edges {
				if _, ok := uids[e.Target]; ok && !kept[e.Target] && trimmed {
					t.Fatalf("part %d: edge to dropped node %s", i, e.Target)
				}
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		if n == -n { // the smallest int
			return 0
		}
		return -n
	}
	return n
}

// TestEncodeParts_SymbolHashes: each part of a split payload carries the
// symbol hashes of its own nodes, and all of them are carried once.
func TestEncodeParts_SymbolHashes(t *testing.T) {
	p := fuzzPayload(200, []byte{40}, 10, 'x', 0)
	p.SymbolHashes = map[string]string{}
	for i, n := range p.Nodes {
		if i > 0 {
			p.SymbolHashes[n.UID] = fmt.Sprintf("%016x", i)
		}
	}
	parts, trimmed, err := encodePayloadLimit(&p, 16<<10)
	if err != nil || trimmed || len(parts) < 2 {
		t.Fatalf("%d parts, trimmed %v, err %v: want a split", len(parts), trimmed, err)
	}
	seen := map[string]bool{}
	for i, data := range parts {
		var q graph.FileExtracted
		if err := json.Unmarshal(data, &q); err != nil {
			t.Fatal(err)
		}
		own := map[string]bool{}
		for _, n := range q.Nodes {
			own[n.UID] = true
		}
		for uid, h := range q.SymbolHashes {
			if !own[uid] || p.SymbolHashes[uid] != h || seen[uid] {
				t.Fatalf("part %d carries the hash of %s (own %v, seen %v)", i, uid, own[uid], seen[uid])
			}
			seen[uid] = true
		}
	}
	if len(seen) != len(p.SymbolHashes) {
		t.Fatalf("%d of %d hashes carried", len(seen), len(p.SymbolHashes))
	}
}
