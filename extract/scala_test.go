package extract

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// scalaEdges lists the edges of one type with the fixture's source root
// cut.
func scalaEdges(p map[string]graph.FileExtracted, typ string) []string {
	var out []string
	for _, e := range edgesOfType(p, typ) {
		out = append(out, strings.ReplaceAll(e, "src/main/scala/com/acme/", ""))
	}
	return out
}

func TestScala_Dump(t *testing.T) {
	root := copyTree(t, "testdata/scala")
	res := index(t, root, Options{}, nil)
	for _, typ := range []string{graph.EdgeCalls, graph.EdgeInheritsFrom, graph.EdgeImplements, graph.EdgeImports, graph.EdgeContains, graph.EdgeRequires} {
		fmt.Println(typ)
		for _, e := range scalaEdges(res.Payloads, typ) {
			fmt.Printf("\t%q,\n", e)
		}
	}
}
