package hub_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// overviewOf reads GET /api/graph/overview from the fixture's Hub.
func overviewOf(t *testing.T, f *browserFixture, query string) map[string]any {
	t.Helper()
	res, err := http.Get(f.Hub.URL + "/api/graph/overview?" + query)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var env struct {
		OK   bool           `json:"ok"`
		Data map[string]any `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&env); err != nil || !env.OK {
		t.Fatalf("GET /api/graph/overview?%s: %d %v %v", query, res.StatusCode, err, env)
	}
	return env.Data
}

// browserGraphMap: #/graph with nothing chosen draws the map — one box and
// one table row per package the overview answers, the counts in the status
// line, a legend; a package drills into its files, a file into its
// neighbourhood.
func browserGraphMap(t *testing.T, f *browserFixture, browser context.Context) {
	want := overviewOf(t, f, "")
	groups := want["groups"].([]any)
	members := int(want["counts"].(map[string]any)["members"].(float64))
	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/graph")
	p.wait(fmt.Sprintf(`document.querySelectorAll('#graph-map tbody tr').length === %d && window.cosGraph && window.cosGraph.nodes('.group').length === %d`, len(groups), len(groups)),
		fmt.Sprintf("the map: %d packages in the table and the drawing", len(groups)))
	p.wait(fmt.Sprintf(`document.querySelector('#graph-status').textContent.includes('%d nodes')`, members), "the status line counting the nodes")
	p.wait(`!document.querySelector('#graph-map').hidden && document.querySelector('#node-detail').hidden && document.querySelectorAll('#graph-map .legend li').length >= 3`,
		"the map's legend shown instead of the node panel")
	if role := evalJS[string](p, `document.querySelector('#graph-canvas').getAttribute('role') + ' ' + document.querySelector('#graph-canvas').getAttribute('aria-label')`); !strings.HasPrefix(role, "img Map of") {
		t.Errorf("the canvas is %q, want role img labelled as a map", role)
	}
	p.screenshot("graph-map")

	// The first package drills into its files.
	first := groups[0].(map[string]any)["id"].(string)
	p.click(`#graph-map tbody tr:first-child a[data-drill]`)
	files := overviewOf(t, f, "level=file")["groups"].([]any)
	if first != "." {
		files = overviewOf(t, f, "level=file&under="+first)["groups"].([]any)
	}
	p.wait(fmt.Sprintf(`location.hash.includes('level=file') && document.querySelectorAll('#graph-map tbody tr').length === %d && window.cosGraph.nodes('.group').length === %d`, len(files), len(files)),
		fmt.Sprintf("the %d files of package %s", len(files), first))
	p.wait(`document.querySelector('#graph-map tr[data-group="recorder.go"] a[data-drill]')`, "recorder.go listed with a link")
	p.screenshot("graph-map-files")

	// A file drills into its neighbourhood.
	p.click(`#graph-map tr[data-group="recorder.go"] a[data-drill]`)
	p.wait(`window.cosGraph.getElementById('code:file:recorder.go').hasClass('root') && window.cosGraph.nodes('.group').length === 0`, "recorder.go's neighbourhood drawn")
	p.wait(`document.querySelector('#graph-map').hidden && !document.querySelector('#node-detail').hidden`, "the node panel back")
	p.wait(`/neighbours drawn/.test(document.querySelector('#graph-status').textContent)`, "the status line counting neighbours")

	// Back to the whole map from the nav link.
	p.click(`a[data-view=graph]`)
	p.wait(fmt.Sprintf(`document.querySelectorAll('#graph-map tbody tr').length === %d`, len(groups)), "the map again from the nav link")

	// Coloured by cluster, the legend names the packages' communities.
	p.click("#colour-clusters")
	p.wait(`[...document.querySelectorAll('#graph-map .legend li')].some(li => /^ ?cluster .+/.test(li.textContent.trim()))`, "the legend naming a call-graph cluster")
	p.screenshot("graph-map-clusters")
}

// browserGraphNeighboursCut: a node with 320 callers is drawn with 300 of
// them and says so; "Draw more" draws the rest.
func browserGraphNeighboursCut(t *testing.T, f *browserFixture, browser context.Context) {
	const fan = "code:function:recorder.go::FanIn"
	nodes := []map[string]any{{"uid": fan, "kind": "function", "label": "FanIn", "path": "recorder.go", "line": 1}}
	var edges []map[string]any
	for i := range 320 {
		uid := fmt.Sprintf("code:function:recorder.go::FanCaller%d", i)
		nodes = append(nodes, map[string]any{"uid": uid, "kind": "function", "label": fmt.Sprintf("FanCaller%d", i), "path": "recorder.go", "line": 1})
		edges = append(edges, map[string]any{"source": uid, "target": fan, "type": "calls"})
	}
	f.call(t, "cos_graph_upsert", map[string]any{"nodes": nodes, "edges": edges})

	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/graph?uid=" + fan)
	p.wait(`document.querySelector('#graph-status').textContent === '300 of 320 neighbours drawn.' && window.cosGraph.nodes().length === 301`,
		"300 of 320 neighbours drawn, and said")
	p.wait(`(() => { const b = document.querySelector('#graph-more'); return !b.hidden && b.textContent === 'Draw 20 more'; })()`, "a Draw more button")
	p.screenshot("graph-neighbours-cut")
	p.click("#graph-more")
	p.wait(`document.querySelector('#graph-status').textContent === 'All 320 neighbours drawn.' && window.cosGraph.nodes().length === 321 && document.querySelector('#graph-more').hidden`,
		"every neighbour drawn after Draw more")
}

// browserGraphExactName: a search for a name exactly one node has draws it
// at once; an ambiguous one lists candidates.
func browserGraphExactName(t *testing.T, f *browserFixture, browser context.Context) {
	const uid = "code:function:recorder.go::NewRecorder"
	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/graph")
	p.setValue("#graph-q", "NewRecorder")
	p.click("#graph-go")
	p.wait(fmt.Sprintf(`location.hash === '#/graph?uid=' + encodeURIComponent(%q) && window.cosGraph.getElementById(%q).hasClass('root')`, uid, uid),
		"NewRecorder drawn at once")
	p.setValue("#graph-q", "Recorder")
	p.click("#graph-go")
	p.wait(`document.querySelectorAll('#candidates li[data-uid]').length > 1`, "candidates for a name no node has exactly")
}

// browserGraphLibraryLazy: the board loads no part of the graph library;
// the graph view loads it and draws.
func browserGraphLibraryLazy(t *testing.T, f *browserFixture, browser context.Context) {
	const loaded = `performance.getEntriesByType('resource').some(e => e.name.includes('cytoscape'))`
	p := openTab(t, browser)
	p.open(f.Hub.URL + "/#/board")
	if evalJS[bool](p, loaded+` || typeof window.cytoscape !== 'undefined'`) {
		t.Fatal("the board view loaded cytoscape")
	}
	p.click(`a[data-view=graph]`)
	p.wait(`window.cosGraph && window.cosGraph.nodes().length > 0`, "the map drawn once the library loaded")
	if !evalJS[bool](p, loaded) {
		t.Error("no cytoscape resource after the graph view opened")
	}
}
