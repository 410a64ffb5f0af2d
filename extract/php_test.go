package extract

import (
	"sort"
	"strings"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// dumpEdges logs every non-folder edge of the payloads, for writing
// fixture expectations.
func dumpEdges(t *testing.T, payloads map[string]graph.FileExtracted) {
	var all []string
	for p, pl := range payloads {
		for _, e := range pl.Edges {
			if e.Extractor != "folder" && e.Type != graph.EdgeContains {
				all = append(all, p+": "+e.Type+" "+shortUID(e.Source)+" -> "+shortUID(e.Target))
			}
		}
	}
	sort.Strings(all)
	t.Log("\n" + strings.Join(all, "\n"))
}

func TestPHP_Dump(t *testing.T) {
	res := index(t, copyTree(t, "testdata/php"), Options{CacheDir: t.TempDir()}, nil)
	dumpEdges(t, res.Payloads)
}
