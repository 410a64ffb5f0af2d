package extract

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/cos-dev/cos/graph"
)

// payloadHash is a digest of what a payload puts in the graph (its nodes,
// edges and parse errors; not its timing), to tell a re-extraction that
// changed nothing.
func payloadHash(p graph.FileExtracted) string {
	h := sha256.New()
	w := func(s string) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	meta := func(m map[string]any) {
		if len(m) == 0 {
			w("")
			return
		}
		b, _ := json.Marshal(m) // sorted keys
		h.Write(b)
		h.Write([]byte{0})
	}
	w(p.Path)
	w(p.Extractor)
	w(p.ContentHash)
	for _, n := range p.Nodes {
		w(n.UID)
		w(n.Kind)
		w(n.Label)
		w(n.Path)
		w(strconv.Itoa(n.Line))
		w(strconv.Itoa(n.EndLine))
		w(n.Extractor)
		meta(n.Metadata)
	}
	w("edges")
	for _, e := range p.Edges {
		w(e.Source)
		w(e.Target)
		w(e.Type)
		w(e.Extractor)
		w(strconv.Itoa(e.Line))
		meta(e.Metadata)
	}
	w("errors")
	for _, s := range p.ParseErrors {
		w(s)
	}
	return hex.EncodeToString(h.Sum(nil))
}
