package projections

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/graph"
)

// shadowSrc is a file with three functions; the variants below change one
// body each.
const shadowSrc = `package p

func A() int {
	return 1
}

func B() int {
	return 2
}

func C() int {
	return 3
}
`

func overlayApply(t *testing.T, g *Graph, typ, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.ApplyOverlay(eventlog.Event{Seq: 1, Type: typ, Data: data}, path); err != nil {
		t.Fatal(err)
	}
	if _, uids := g.LastChangedSymbols(); len(uids) != 0 {
		t.Fatalf("an overlay reported changes %v", uids)
	}
}

// TestGraph_OverlayChangesToldAgainstTheLog: a process whose graph has an
// overlay (a worktree's version of a file) tells the changes of a later
// log event on that file exactly as a process without the overlay does —
// against the log's content, not the overlay's.
func TestGraph_OverlayChangesToldAgainstTheLog(t *testing.T) {
	edit := func(name, body string) string {
		return strings.Replace(shadowSrc, "func "+name+"() int {\n", "func "+name+"() int {\n\t"+body+"\n", 1)
	}
	for _, tc := range []struct {
		name     string
		overlay  string // the worktree's version ("" removes the file)
		logNext  string // the log's next version ("" removes it)
		wantTold []string
	}{
		{"worktree changes C, log changes A", edit("C", "_ = 0"), edit("A", "_ = 0"), []string{"A"}},
		{"both change B alike", edit("B", "_ = 0"), edit("B", "_ = 0"), []string{"B"}},
		{"worktree adds D, log changes A", shadowSrc + "\nfunc D() int {\n\treturn 4\n}\n", edit("A", "_ = 0"), []string{"A"}},
		{"worktree removes the file, log changes A", "", edit("A", "_ = 0"), []string{"A"}},
		{"worktree changes C, log removes the file", edit("C", "_ = 0"), "", []string{"A", "B", "C"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var plainSeq, overSeq uint64
			plain, over := NewGraph(), NewGraph()
			symApply(t, plain, &plainSeq, "p.go", shadowSrc, false)
			symApply(t, over, &overSeq, "p.go", shadowSrc, false)
			if tc.overlay == "" {
				overlayApply(t, over, graph.TypeFileRemoved, "p.go", graph.FileRemoved{Path: "p.go"})
			} else {
				overlayApply(t, over, graph.TypeFileExtracted, "p.go", extract.File("p.go", []byte(tc.overlay)))
			}
			var told [2][]string
			for i, g := range []*Graph{plain, over} {
				seq := &plainSeq
				if i == 1 {
					seq = &overSeq
				}
				if tc.logNext == "" {
					data, _ := json.Marshal(graph.FileRemoved{Path: "p.go"})
					*seq++
					if err := g.Apply(eventlog.Event{Seq: *seq, Type: graph.TypeFileRemoved, Data: data}); err != nil {
						t.Fatal(err)
					}
					told[i] = changedNames(t, g, "p.go")
				} else {
					symApply(t, g, seq, "p.go", tc.logNext, false)
					told[i] = changedNames(t, g, "p.go")
				}
			}
			if !slices.Equal(told[0], tc.wantTold) {
				t.Fatalf("without an overlay the log event told %v, want %v", told[0], tc.wantTold)
			}
			if !slices.Equal(told[1], told[0]) {
				t.Errorf("with an overlay the log event told %v, without %v", told[1], told[0])
			}
		})
	}
}
