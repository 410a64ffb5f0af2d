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
		"entry:http:web/flask_app.py::GET%20/items line=44 entry_kind=http framework=flask method=GET route=/items -> code:class:web/flask_app.py::ItemView",
		"entry:http:web/flask_app.py::GET%20/ping line=25 anonymous=true entry_kind=http framework=flask method=GET route=/ping -> code:file:web/flask_app.py",
		// FastAPI: APIRouter prefix under include_router's prefix; a view
		// declared in a function is handled by that function.
		"entry:http:web/api.py::GET%20/api/items/{item_id} line=8 entry_kind=http framework=fastapi method=GET route=/api/items/{item_id} -> code:function:web/api.py::read_item",
		"entry:http:web/api.py::POST%20/orders line=13 entry_kind=http framework=fastapi method=POST route=/orders -> code:function:web/api.py::create_order",
		"entry:http:web/api.py::GET%20/health line=18 entry_kind=http framework=fastapi method=GET route=/health -> code:function:web/api.py::health",
		"entry:http:web/api.py::HEAD%20/health line=18 entry_kind=http framework=fastapi method=HEAD route=/health -> code:function:web/api.py::health",
		"entry:http:web/api.py::GET%20/inner line=34 anonymous=true entry_kind=http framework=fastapi method=GET route=/inner -> code:function:web/api.py::make_app",
		"entry:websocket:web/api.py::/ws line=23 entry_kind=websocket framework=fastapi route=/ws -> code:function:web/api.py::ws",
		// Django: a view function through the import, a class view, a
		// regex route; include() is not a view.
		"entry:http:web/urls.py::ANY%20/articles/<int:year>/ line=8 entry_kind=http framework=django method=ANY route=/articles/<int:year>/ -> code:function:web/views.py::article",
		"entry:http:web/urls.py::ANY%20/about/ line=12 entry_kind=http framework=django method=ANY route=/about/ -> code:external:django.views.generic.TemplateView",
		"entry:http:web/urls.py::ANY%20/articles/ line=9 entry_kind=http framework=django method=ANY route=/articles/ -> code:class:web/views.py::ArticleView",
		"entry:http:web/urls.py::ANY%20^archive/(?P<year>[0-9]{4})/$ line=10 entry_kind=http framework=django method=ANY route=^archive/(?P<year>[0-9]{4})/$ -> code:function:web/views.py::article",
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

func TestEntries_JSTS(t *testing.T) {
	res := index(t, copyTree(t, filepath.Join("testdata", "entries", "jsts")), Options{}, nil)
	checkEntries(t, entryRows(t, res.Payloads), []string{
		// Express: a Router mounted under /users, an inline handler (the file),
		// app.route chains, a typed parameter (the function around it), a
		// route named by a constant, a handler from a package (its stub);
		// Map.get is no route.
		"entry:http:src/app.ts::ANY%20/health line=15 entry_kind=http framework=express method=ANY route=/health -> code:function:src/app.ts::health",
		"entry:http:src/app.ts::GET%20/inside line=30 anonymous=true entry_kind=http framework=express method=GET route=/inside -> code:function:src/app.ts::mount",
		"entry:http:src/app.ts::GET%20/metrics line=34 entry_kind=http framework=express method=GET route=/metrics -> code:external:prom-middleware.metrics",
		"entry:http:src/app.ts::GET%20/items line=16 entry_kind=http framework=express method=GET route=/items -> code:function:src/app.ts::listItems",
		"entry:http:src/app.ts::GET%20/users line=8 entry_kind=http framework=express method=GET route=/users -> code:function:src/handlers.ts::listUsers",
		"entry:http:src/app.ts::GET%20/users/:id line=9 entry_kind=http framework=express method=GET route=/users/:id -> code:function:src/handlers.ts::getUser",
		"entry:http:src/app.ts::POST%20/login line=12 anonymous=true entry_kind=http framework=express method=POST route=/login -> code:file:src/app.ts",
		"entry:http:src/app.ts::PUT%20/items line=16 entry_kind=http framework=express method=PUT route=/items -> code:function:src/app.ts::saveItem",
		// Koa (@koa/router with a prefix), Fastify (.get and .route).
		"entry:http:src/koa.js::DELETE%20/api/books/:id line=6 anonymous=true entry_kind=http framework=koa method=DELETE route=/api/books/:id -> code:file:src/koa.js",
		"entry:http:src/koa.js::GET%20/api/books line=5 entry_kind=http framework=koa method=GET route=/api/books -> code:function:src/koa.js::listBooks",
		"entry:http:src/fast.ts::GET%20/echo line=6 entry_kind=http framework=fastify method=GET route=/echo -> code:function:src/fast.ts::echo",
		"entry:http:src/fast.ts::GET%20/ping line=5 entry_kind=http framework=fastify method=GET route=/ping -> code:function:src/fast.ts::ping",
		"entry:http:src/fast.ts::POST%20/echo line=6 entry_kind=http framework=fastify method=POST route=/echo -> code:function:src/fast.ts::echo",
		// NestJS: @Controller prefix joined with the method's path.
		"entry:http:src/cats.controller.ts::GET%20/cats line=5 entry_kind=http framework=nestjs method=GET route=/cats -> code:function:src/cats.controller.ts::CatsController.findAll",
		"entry:http:src/cats.controller.ts::GET%20/cats/:id line=10 entry_kind=http framework=nestjs method=GET route=/cats/:id -> code:function:src/cats.controller.ts::CatsController.findOne",
		"entry:http:src/cats.controller.ts::POST%20/cats line=15 entry_kind=http framework=nestjs method=POST route=/cats -> code:function:src/cats.controller.ts::CatsController.create",
		// commander (nested commands, the program's name) and yargs.
		"entry:cli:src/cli.ts::clean line=26 command=clean entry_kind=cli framework=yargs -> code:function:src/cli.ts::clean",
		"entry:cli:src/cli.ts::serve line=25 command=serve entry_kind=cli framework=yargs -> code:function:src/cli.ts::serve",
		"entry:cli:src/cli.ts::tool%20build line=11 command=tool build entry_kind=cli framework=commander -> code:function:src/cli.ts::build",
		"entry:cli:src/cli.ts::tool%20db%20migrate line=14 anonymous=true command=tool db migrate entry_kind=cli framework=commander -> code:file:src/cli.ts",
		"entry:cli:src/root-cli.js::greet line=4 command=greet entry_kind=cli framework=commander -> code:function:src/root-cli.js::greet",
		// MCP SDK tools.
		// A tool named by a constant, registered in a function given a typed
		// McpServer (the function handles it).
		"entry:mcp_tool:src/echo-tool.ts::echo_tool line=6 anonymous=true entry_kind=mcp_tool framework=@modelcontextprotocol/sdk tool=echo_tool -> code:function:src/echo-tool.ts::registerEchoTool",
		"entry:mcp_tool:src/mcp.ts::add line=5 entry_kind=mcp_tool framework=@modelcontextprotocol/sdk tool=add -> code:function:src/mcp.ts::add",
		"entry:mcp_tool:src/mcp.ts::echo line=6 anonymous=true entry_kind=mcp_tool framework=@modelcontextprotocol/sdk tool=echo -> code:file:src/mcp.ts",
		// node:events, kafkajs with its topic, ws with its path, grpc-js;
		// .on of a plain object is no event.
		"entry:event:src/events.js::order.created line=7 entry_kind=event framework=node:events subject=order.created -> code:function:src/events.js::onOrder",
		"entry:event:src/events.js::payments line=17 anonymous=true entry_kind=event framework=kafkajs subject=payments -> code:function:src/events.js::start",
		"entry:grpc:src/events.js::Greeter line=25 entry_kind=grpc framework=@grpc/grpc-js service=Greeter -> code:function:src/events.js::sayHello",
		"entry:websocket:src/events.js::/live line=10 entry_kind=websocket framework=ws route=/live -> code:function:src/events.js::onConnection",
	})
}
