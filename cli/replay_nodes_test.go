package cli

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
)

// `cos replay --dump nodes` lists the nodes `--dump graph` lists, by uid,
// with their kind, label and path, and no edges.
func TestReplay_DumpNodes_NodesOfTheGraphDump(t *testing.T) {
	g := testutil.GitRepo(t, map[string]string{
		"main.go": "package main\n\nfunc main() { helper() }\n\nfunc helper() {}\n",
		"util.go": "package main\n\ntype T struct{}\n\nfunc (T) M() {}\n",
	})
	state := t.TempDir()
	if code, _, errs := run(t, state, "index", g.Root); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	type node struct{ UID, Kind, Label, Path string }
	var full struct {
		Nodes []node          `json:"nodes"`
		Edges json.RawMessage `json:"edges"`
	}
	var only struct {
		Nodes []node          `json:"nodes"`
		Edges json.RawMessage `json:"edges"`
	}
	for _, c := range []struct {
		dump string
		into any
	}{{"graph", &full}, {"nodes", &only}} {
		code, out, errs := run(t, state, "replay", "--until", "999999", "--dump", c.dump)
		if code != 0 {
			t.Fatalf("replay --dump %s: %d %s", c.dump, code, errs)
		}
		if err := json.Unmarshal([]byte(out), c.into); err != nil {
			t.Fatalf("replay --dump %s: %v", c.dump, err)
		}
	}
	if len(full.Nodes) < 5 || len(full.Edges) == 0 {
		t.Fatalf("--dump graph: %d nodes, edges %s; want a graph", len(full.Nodes), full.Edges)
	}
	if !slices.Equal(only.Nodes, full.Nodes) {
		t.Errorf("--dump nodes:\n%+v\nwant the nodes of --dump graph:\n%+v", only.Nodes, full.Nodes)
	}
	if only.Edges != nil {
		t.Errorf("--dump nodes printed edges: %s", only.Edges)
	}
	if code, _, _ := run(t, state, "replay", "--until", "999999", "--dump", "edges"); code == 0 {
		t.Error("--dump edges: exit 0, want a usage error")
	}
}
