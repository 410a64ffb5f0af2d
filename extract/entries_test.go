package extract

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// entryRows renders every entry point of the payloads as one line:
// "<uid> line=<n> [key=value…] -> <handler uid>…", its metadata sorted and
// its handled_by targets sorted, and checks each is contained by its file.
func entryRows(t *testing.T, payloads map[string]graph.FileExtracted) []string {
	t.Helper()
	var rows []string
	for _, p := range payloads {
		handlers := map[string][]string{}
		contained := map[string]bool{}
		for _, e := range p.Edges {
			switch e.Type {
			case graph.EdgeHandledBy:
				handlers[e.Source] = append(handlers[e.Source], e.Target)
			case graph.EdgeContains:
				if e.Source == graph.SourceFileUID(p.Path) {
					contained[e.Target] = true
				}
			}
		}
		for _, n := range p.Nodes {
			if n.Kind != graph.KindEntrypoint {
				continue
			}
			if !contained[n.UID] {
				t.Errorf("%s: not contained by its file", n.UID)
			}
			if n.Path != p.Path {
				t.Errorf("%s: path %q, want %q", n.UID, n.Path, p.Path)
			}
			var meta []string
			for k, v := range n.Metadata {
				meta = append(meta, fmt.Sprintf("%s=%v", k, v))
			}
			sort.Strings(meta)
			hs := handlers[n.UID]
			sort.Strings(hs)
			rows = append(rows, fmt.Sprintf("%s line=%d %s -> %s", n.UID, n.Line, strings.Join(meta, " "), strings.Join(hs, ", ")))
		}
		for src := range handlers {
			if !strings.HasPrefix(src, "entry:") {
				t.Errorf("handled_by from %s, not an entry point", src)
			}
		}
	}
	sort.Strings(rows)
	return rows
}

// checkEntries compares the entry rows of an indexed fixture with want.
func checkEntries(t *testing.T, got, want []string) {
	t.Helper()
	sort.Strings(want)
	if slices.Equal(got, want) {
		return
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing  %s", w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("unwanted %s", g)
		}
	}
}

func TestEntries_Python(t *testing.T) {
	res := index(t, copyTree(t, filepath.Join("testdata", "entries", "python")), Options{}, nil)
	checkEntries(t, entryRows(t, res.Payloads), []string{
		// Flask: methods=, Blueprint url_prefix, add_url_rule; a local
		// decorator named route is no app.
		"entry:http:web/flask_app.py::GET%20/ line=9 entry_kind=http framework=flask method=GET route=/ -> code:function:web/flask_app.py::index",
		"entry:http:web/flask_app.py::GET%20/login line=14 entry_kind=http framework=flask method=GET route=/login -> code:function:web/flask_app.py::login",
		"entry:http:web/flask_app.py::POST%20/login line=14 entry_kind=http framework=flask method=POST route=/login -> code:function:web/flask_app.py::login",
		"entry:http:web/flask_app.py::GET%20/admin/users line=19 entry_kind=http framework=flask method=GET route=/admin/users -> code:function:web/flask_app.py::users",
		"entry:http:web/flask_app.py::GET%20/about line=24 entry_kind=http framework=flask method=GET route=/about -> code:function:web/views.py::about",
		"entry:http:web/flask_app.py::GET%20/ping line=25 anonymous=true entry_kind=http framework=flask method=GET route=/ping -> code:file:web/flask_app.py",
		// FastAPI: APIRouter prefix under include_router's prefix.
		"entry:http:web/api.py::GET%20/api/items/{item_id} line=8 entry_kind=http framework=fastapi method=GET route=/api/items/{item_id} -> code:function:web/api.py::read_item",
		"entry:http:web/api.py::POST%20/orders line=13 entry_kind=http framework=fastapi method=POST route=/orders -> code:function:web/api.py::create_order",
		"entry:http:web/api.py::GET%20/health line=18 entry_kind=http framework=fastapi method=GET route=/health -> code:function:web/api.py::health",
		"entry:http:web/api.py::HEAD%20/health line=18 entry_kind=http framework=fastapi method=HEAD route=/health -> code:function:web/api.py::health",
		"entry:websocket:web/api.py::/ws line=23 entry_kind=websocket framework=fastapi route=/ws -> code:function:web/api.py::ws",
		// Django: a view function through the import, a class view, a
		// regex route; include() is not a view.
		"entry:http:web/urls.py::ANY%20/articles/<int:year>/ line=7 entry_kind=http framework=django method=ANY route=/articles/<int:year>/ -> code:function:web/views.py::article",
		"entry:http:web/urls.py::ANY%20/articles/ line=8 entry_kind=http framework=django method=ANY route=/articles/ -> code:class:web/views.py::ArticleView",
		"entry:http:web/urls.py::ANY%20^archive/(?P<year>[0-9]{4})/$ line=9 entry_kind=http framework=django method=ANY route=^archive/(?P<year>[0-9]{4})/$ -> code:function:web/views.py::article",
		// click groups and commands; argparse sub-commands with a func.
		"entry:cli:cli/tool.py::cli line=6 command=cli entry_kind=cli framework=click -> code:function:cli/tool.py::cli",
		"entry:cli:cli/tool.py::cli%20sync-all line=11 command=cli sync-all entry_kind=cli framework=click -> code:function:cli/tool.py::sync_all",
		"entry:cli:cli/tool.py::cli%20push line=16 command=cli push entry_kind=cli framework=click -> code:function:cli/tool.py::push_cmd",
		"entry:cli:cli/tool.py::standalone line=21 command=standalone entry_kind=cli framework=click -> code:function:cli/tool.py::alone",
		"entry:cli:cli/tool.py::tool%20run line=37 command=tool run entry_kind=cli framework=argparse -> code:function:cli/tool.py::run",
		"entry:cli:cli/tool.py::tool%20show line=39 command=tool show entry_kind=cli framework=argparse -> code:function:cli/tool.py::show",
		// __main__: the function it calls, else the module.
		"entry:main:cli/tool.py::main line=45 entry_kind=main framework=python -> code:function:cli/tool.py::main",
		"entry:main:cli/script.py::__main__ line=5 anonymous=true entry_kind=main framework=python -> code:file:cli/script.py",
		// FastMCP tools; a grpcio servicer.
		"entry:mcp_tool:svc/server.py::add line=11 entry_kind=mcp_tool framework=fastmcp tool=add -> code:function:svc/server.py::add",
		"entry:mcp_tool:svc/server.py::echo_text line=16 entry_kind=mcp_tool framework=fastmcp tool=echo_text -> code:function:svc/server.py::echo",
		"entry:mcp_tool:svc/server.py::ping line=21 entry_kind=mcp_tool framework=fastmcp tool=ping -> code:function:svc/server.py::ping",
		"entry:grpc:svc/server.py::Greeter line=33 entry_kind=grpc framework=grpcio service=Greeter -> code:class:svc/server.py::Greeter",
	})
}
