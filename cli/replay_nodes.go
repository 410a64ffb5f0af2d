package cli

import (
	"bufio"
	"encoding/json"
	"io"
	"slices"
	"strings"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// dumpNodes is `cos replay --dump nodes`: the graph's nodes without their
// edges, owners or metadata, for a tool that needs the names of a graph too
// large to dump whole (the kernel's 4M edges take minutes to print).
const dumpNodes = "nodes"

// nodeLine is one node of `--dump nodes`.
type nodeLine struct {
	UID   string `json:"uid"`
	Kind  string `json:"kind"`
	Label string `json:"label"`
	Path  string `json:"path,omitempty"`
}

// nodeLines lists g's nodes by uid. Call it inside the tailer's View.
func nodeLines(g *projections.Graph) []nodeLine {
	var out []nodeLine
	g.Nodes(func(n graph.Node) bool {
		out = append(out, nodeLine{UID: n.UID, Kind: n.Kind, Label: n.Label, Path: n.Path})
		return true
	})
	slices.SortFunc(out, func(a, b nodeLine) int { return strings.Compare(a.UID, b.UID) })
	return out
}

// writeNodeLines writes {"nodes": [ … ]} with one node a line: the shape
// of `--dump graph`'s nodes, so a reader of one reads the other.
func writeNodeLines(w io.Writer, nodes []nodeLine) error {
	bw := bufio.NewWriter(w)
	if _, err := bw.WriteString("{\"nodes\": ["); err != nil {
		return err
	}
	for i, n := range nodes {
		b, err := json.Marshal(n)
		if err != nil {
			return err
		}
		if i > 0 {
			_ = bw.WriteByte(',')
		}
		_ = bw.WriteByte('\n')
		_, _ = bw.Write(b)
	}
	if _, err := bw.WriteString("\n]}\n"); err != nil {
		return err
	}
	return bw.Flush()
}
