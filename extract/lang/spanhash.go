package lang

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"

	"github.com/cos-dev/cos/graph"
)

// SpanHash is the hash of the lines of one node (graph.FileExtracted
// .SymbolHashes): the first 8 bytes of the SHA-256 of lines Line through
// EndLine of the file, each line with its newline.
type SpanHash struct {
	UID           string
	Line, EndLine int
	Hash          [8]byte
}

// HashSpans records in r.Spans the hash of the lines of every symbol of
// the file (graph.IsSymbolKind, Path the file's, Line > 0, EndLine ≥
// Line), the first node of a uid only: the graph tells changes of symbols
// only. data is the content r was extracted from.
func HashSpans(r *Result, data []byte) {
	r.Spans = r.Spans[:0]
	var starts []int // starts[i] is the offset of line i+1
	seen := map[string]bool{}
	// Nodes on the same lines (a minified file: every node on line 1)
	// share one hash, so the cost stays near the file's size.
	memo := map[[2]int][8]byte{}
	for _, n := range r.Nodes {
		if !graph.IsSymbolKind(n.Kind) || n.Path != r.Path || n.Line <= 0 || n.EndLine < n.Line || seen[n.UID] {
			continue
		}
		seen[n.UID] = true
		if starts == nil {
			starts = append(make([]int, 0, bytes.Count(data, []byte{'\n'})+1), 0)
			for i, c := range data {
				if c == '\n' && i+1 < len(data) {
					starts = append(starts, i+1)
				}
			}
		}
		if n.Line > len(starts) {
			continue
		}
		from, to := starts[n.Line-1], len(data)
		if n.EndLine < len(starts) {
			to = starts[n.EndLine]
		}
		s := SpanHash{UID: n.UID, Line: n.Line, EndLine: n.EndLine}
		var ok bool
		if s.Hash, ok = memo[[2]int{n.Line, n.EndLine}]; !ok {
			sum := sha256.Sum256(data[from:to])
			copy(s.Hash[:], sum[:8])
			memo[[2]int{n.Line, n.EndLine}] = s.Hash
		}
		r.Spans = append(r.Spans, s)
	}
	if len(r.Spans) == 0 {
		r.Spans = nil
	}
}

// SymbolHashes returns the hashes of Spans whose node is among nodes with
// the same line span, as 16 hex digits by uid; nil when none. A node whose
// lines moved since the spans were taken (a later pass re-made it) gets
// none rather than a wrong one.
func SymbolHashes(spans []SpanHash, nodes []graph.Node) map[string]string {
	if len(spans) == 0 {
		return nil
	}
	by := make(map[string]*SpanHash, len(spans))
	for i := range spans {
		by[spans[i].UID] = &spans[i]
	}
	var out map[string]string
	for _, n := range nodes {
		s := by[n.UID]
		if s == nil || s.Line != n.Line || s.EndLine != n.EndLine {
			continue
		}
		if out == nil {
			out = make(map[string]string, len(spans))
		}
		out[n.UID] = hex.EncodeToString(s.Hash[:])
	}
	return out
}
