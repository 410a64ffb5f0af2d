package python

import (
	"regexp"
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/cos-dev/cos/graph"
)

// Entry points of a Python file: the ways into the program it registers,
// told from what its imports bind (an app is a flask.Flask the file
// imported, never a name that merely reads like one).
//
//   - Flask (@app.route with methods=, @app.get…, Blueprint url_prefix,
//     app.add_url_rule) and FastAPI (@app.get…, @app.api_route,
//     @app.websocket, APIRouter prefix, include_router prefix): http
//     "<METHOD> <route>" (websocket for @app.websocket).
//   - Django: path()/re_path() of django.urls with a view function or
//     View.as_view(): http "ANY /<route>".
//   - click (@click.command, @click.group, @<group>.command): cli with
//     the group's words first; argparse add_parser("x") whose parser
//     set_defaults(func=f): cli "<prog> x".
//   - FastMCP (@mcp.tool, @mcp.tool(name=…)): mcp_tool.
//   - grpcio add_<Svc>Servicer_to_server(impl, server) of a *_pb2_grpc
//     module: grpc "<Svc>" handled by impl's class.
//   - if __name__ == "__main__": main, named after the function it calls.

// pyObj is a value of a framework the file holds in a variable.
type pyObj struct {
	role   string // flask, fastapi, fastmcp, parser, subparsers
	prefix string // route prefix (Blueprint url_prefix, APIRouter prefix)
	words  string // argparse: the command's words from the program down
	// handler and line of an argparse parser's set_defaults(func=…).
	handler *sitter.Node
	line    int
	named   bool // an add_parser("x") parser
}

// pyHTTPMethods are the decorators naming one HTTP method.
var pyHTTPMethods = map[string]string{"get": "GET", "post": "POST", "put": "PUT", "delete": "DELETE", "patch": "PATCH", "head": "HEAD", "options": "OPTIONS", "trace": "TRACE"}

var pyServicerAdd = regexp.MustCompile(`^add_(\w+?)Servicer_to_server$`)

type pyEntries struct {
	py   *pyFile
	set  *lang.EntrySet
	objs map[string]*pyObj
	// groups are the click groups declared so far: function name → words.
	groups map[string]string
	// parsers are the argparse parsers in the order add_parser made them.
	parsers []*pyObj
}

// entries emits the file's entry points; it runs once the declarations
// and imports of the file are known.
func (py *pyFile) entries(root *sitter.Node) {
	en := &pyEntries{py: py, set: lang.NewEntrySet(py.fr, py.fileUID), objs: map[string]*pyObj{}, groups: map[string]string{}}
	if !py.importsFramework() {
		for _, c := range ts.Children(root) {
			if c.Kind() == "if_statement" {
				en.mainBlock(&c)
			}
		}
		return
	}
	// Variables first (apps, routers, parsers), with the prefixes that
	// include_router and register_blueprint give them.
	ts.WalkSym(root, func(x *sitter.Node, sym uint16) bool {
		switch sym {
		case pyAssignmentID:
			en.assignment(x)
		case pyCallID:
			en.call(x)
		}
		return true
	})
	for _, p := range en.parsers {
		if p.handler != nil {
			entry := en.set.Add(graph.EntryCLI, p.words, "argparse", p.line, map[string]any{"command": p.words})
			en.handler(entry, p.handler)
		}
	}
	en.definitions(root, "", false)
}

// importsFramework reports whether the file imports a module whose
// registrations are read (most files do not: the walks are skipped).
func (py *pyFile) importsFramework() bool {
	for _, b := range py.bindings {
		top, _, _ := strings.Cut(b.module, ".")
		switch top {
		case "flask", "fastapi", "django", "click", "argparse", "mcp", "fastmcp":
			return true
		}
		if strings.HasSuffix(b.module, "_pb2_grpc") {
			return true
		}
	}
	return false
}

// qualified is the dotted name an expression stands for through the
// file's imports ("flask.Flask" for Flask after from flask import Flask);
// "" when it is not reached through an import.
func (en *pyEntries) qualified(n *sitter.Node) string {
	head, rest, ok := en.py.dottedRoot(n)
	if !ok {
		return ""
	}
	b, bound := en.py.bindings[head]
	if !bound {
		return ""
	}
	q := b.module
	if b.name != "" {
		q += "." + b.name
	}
	if rest != "" {
		q += "." + rest
	}
	return q
}

// ctor tells the framework value a call constructs.
func (en *pyEntries) ctor(call *sitter.Node) *pyObj {
	f := call.ChildByFieldName("function")
	if f == nil {
		return nil
	}
	switch q := en.qualified(f); q {
	case "flask.Flask", "flask.Blueprint", "flask.blueprints.Blueprint":
		return &pyObj{role: "flask", prefix: en.kwString(call, "url_prefix")}
	case "fastapi.FastAPI", "fastapi.APIRouter", "fastapi.routing.APIRouter":
		return &pyObj{role: "fastapi", prefix: en.kwString(call, "prefix")}
	case "mcp.server.fastmcp.FastMCP", "mcp.server.FastMCP", "fastmcp.FastMCP":
		return &pyObj{role: "fastmcp"}
	case "argparse.ArgumentParser":
		return &pyObj{role: "parser", words: en.kwString(call, "prog")}
	}
	if f.Kind() != "attribute" {
		return nil
	}
	recv := en.obj(f.ChildByFieldName("object"))
	attr := ts.Text(f.ChildByFieldName("attribute"), en.py.src)
	switch {
	case recv == nil:
	case recv.role == "parser" && attr == "add_subparsers":
		return &pyObj{role: "subparsers", words: recv.words}
	case recv.role == "subparsers" && attr == "add_parser":
		name := en.argString(call, 0)
		if name == "" {
			return nil
		}
		p := &pyObj{role: "parser", words: strings.TrimSpace(recv.words + " " + name), line: ts.Line(call), named: true}
		en.parsers = append(en.parsers, p)
		return p
	}
	return nil
}

// obj is the framework value a name stands for, nil when none.
func (en *pyEntries) obj(n *sitter.Node) *pyObj {
	if n == nil || n.Kind() != "identifier" {
		return nil
	}
	return en.objs[ts.Text(n, en.py.src)]
}

func (en *pyEntries) assignment(a *sitter.Node) {
	left, right := a.ChildByFieldName("left"), a.ChildByFieldName("right")
	if left == nil || right == nil || left.Kind() != "identifier" || right.Kind() != "call" {
		return
	}
	if o := en.ctor(right); o != nil {
		en.objs[ts.Text(left, en.py.src)] = o
	}
}

// call reads the calls that register or configure: include_router,
// register_blueprint, set_defaults, add_url_rule, Django's path(),
// grpcio's add_…Servicer_to_server, and a parser made without a name
// (sub.add_parser("x").set_defaults(func=f)).
func (en *pyEntries) call(call *sitter.Node) {
	f := call.ChildByFieldName("function")
	if f == nil {
		return
	}
	if q := en.qualified(f); q != "" {
		en.qualifiedCall(call, q)
		return
	}
	if f.Kind() != "attribute" {
		return
	}
	obj := f.ChildByFieldName("object")
	attr := ts.Text(f.ChildByFieldName("attribute"), en.py.src)
	recv := en.obj(obj)
	if recv == nil && obj != nil && obj.Kind() == "call" && attr == "set_defaults" {
		recv = en.ctor(obj) // sub.add_parser("x").set_defaults(func=f)
	}
	if recv == nil {
		return
	}
	switch {
	case attr == "include_router" && recv.role == "fastapi":
		if r := en.obj(en.arg(call, 0)); r != nil && r.role == "fastapi" {
			r.prefix = lang.JoinRoute(en.kwString(call, "prefix"), r.prefix)
		}
	case attr == "register_blueprint" && recv.role == "flask":
		if bp := en.obj(en.arg(call, 0)); bp != nil && bp.role == "flask" {
			if p := en.kwString(call, "url_prefix"); p != "" {
				bp.prefix = p
			}
		}
	case attr == "set_defaults" && recv.role == "parser" && recv.named:
		if h := en.kw(call, "func"); h != nil {
			recv.handler = h
		}
	case attr == "add_url_rule" && recv.role == "flask":
		route := en.argString(call, 0)
		view := en.kw(call, "view_func")
		if view == nil {
			view = en.arg(call, 2)
		}
		if route == "" || view == nil {
			return
		}
		for _, m := range en.methods(call, "GET") {
			full := lang.JoinRoute(recv.prefix, route)
			entry := en.set.Add(graph.EntryHTTP, m+" "+full, "flask", ts.Line(call), map[string]any{"method": m, "route": full})
			en.handler(entry, view)
		}
	}
}

// qualifiedCall reads a call of an imported function: Django's path()
// and re_path(), grpcio's generated add_…Servicer_to_server.
func (en *pyEntries) qualifiedCall(call *sitter.Node, q string) {
	switch q {
	case "django.urls.path", "django.urls.re_path", "django.conf.urls.url":
		route := en.argString(call, 0)
		view := en.arg(call, 1)
		if view == nil || (route == "" && en.arg(call, 0) == nil) {
			return
		}
		if view.Kind() == "call" && asView(view, en.py.src) == nil {
			return // include(…) and other views made by a call
		}
		if !strings.HasSuffix(q, ".re_path") && !strings.HasSuffix(q, ".url") {
			route = lang.JoinRoute("", route)
		}
		entry := en.set.Add(graph.EntryHTTP, "ANY "+route, "django", ts.Line(call), map[string]any{"method": "ANY", "route": route})
		en.handler(entry, view)
		return
	}
	mod, name := q, q
	if i := strings.LastIndexByte(q, '.'); i >= 0 {
		mod, name = q[:i], q[i+1:]
	}
	m := pyServicerAdd.FindStringSubmatch(name)
	if m == nil || !strings.HasSuffix(mod, "_pb2_grpc") {
		return
	}
	impl := en.arg(call, 0)
	if impl == nil {
		return
	}
	if impl.Kind() == "call" {
		impl = impl.ChildByFieldName("function")
	}
	entry := en.set.Add(graph.EntryGRPC, m[1], "grpcio", ts.Line(call), map[string]any{"service": m[1]})
	en.handler(entry, impl)
}

// definitions reads the decorated functions of a block: the module, the
// body of class owner, or, nested, a function's body (whose own
// functions are no graph nodes: the function around them handles their
// entry points, marked anonymous); and the module's if __name__ ==
// "__main__".
func (en *pyEntries) definitions(block *sitter.Node, owner string, nested bool) {
	for _, c := range ts.Children(block) {
		switch c.Kind() {
		case "decorated_definition":
			d := c.ChildByFieldName("definition")
			if d == nil {
				continue
			}
			name := ts.Text(d.ChildByFieldName("name"), en.py.src)
			if d.Kind() == "class_definition" {
				if owner == "" && !nested {
					en.definitions(d.ChildByFieldName("body"), name, false)
				}
				continue
			}
			uid := ""
			if !nested {
				full := name
				if owner != "" {
					full = owner + "." + name
				}
				uid = lang.CodeUID("function", en.py.fr.Path, full)
			}
			for _, dec := range ts.Children(&c) {
				if dec.Kind() == "decorator" && dec.NamedChildCount() > 0 {
					en.decorator(dec.NamedChild(0), ts.Line(&dec), name, uid)
				}
			}
			en.definitions(d.ChildByFieldName("body"), "", true)
		case "function_definition":
			en.definitions(c.ChildByFieldName("body"), "", true)
		case "class_definition":
			if owner == "" && !nested {
				en.definitions(c.ChildByFieldName("body"), ts.Text(c.ChildByFieldName("name"), en.py.src), false)
			}
		case "if_statement":
			if owner == "" && !nested {
				en.mainBlock(&c)
			}
			en.definitions(&c, owner, nested)
		case "block", "else_clause", "elif_clause", "try_statement", "except_clause", "finally_clause", "with_statement", "for_statement", "while_statement":
			en.definitions(&c, owner, nested)
		}
	}
}

// decorator reads one decorator expression of the function fn (uid) at
// line.
func (en *pyEntries) decorator(x *sitter.Node, line int, fn, uid string) {
	call := (*sitter.Node)(nil)
	f := x
	if x.Kind() == "call" {
		call, f = x, x.ChildByFieldName("function")
	}
	if f == nil {
		return
	}
	switch q := en.qualified(f); q {
	case "click.command", "click.group":
		en.click(call, q == "click.group", "", line, fn, uid)
		return
	}
	if f.Kind() != "attribute" {
		return
	}
	obj := f.ChildByFieldName("object")
	attr := ts.Text(f.ChildByFieldName("attribute"), en.py.src)
	if obj != nil && obj.Kind() == "identifier" {
		if words, ok := en.groups[ts.Text(obj, en.py.src)]; ok && (attr == "command" || attr == "group") {
			en.click(call, attr == "group", words, line, fn, uid)
			return
		}
	}
	recv := en.obj(obj)
	if recv == nil {
		return
	}
	switch recv.role {
	case "fastmcp":
		if attr != "tool" {
			return
		}
		name := fn
		if call != nil {
			if s := en.kwString(call, "name"); s != "" {
				name = s
			} else if s := en.argString(call, 0); s != "" {
				name = s
			}
		}
		en.decorated(en.set.Add(graph.EntryMCPTool, name, "fastmcp", line, map[string]any{"tool": name}), uid, line)
	case "flask", "fastapi":
		if call == nil {
			return
		}
		route := en.argString(call, 0)
		if route == "" && en.kwString(call, "path") != "" {
			route = en.kwString(call, "path")
		}
		if en.arg(call, 0) == nil && route == "" {
			return
		}
		full := lang.JoinRoute(recv.prefix, route)
		var methods []string
		switch {
		case attr == "websocket" && recv.role == "fastapi":
			en.decorated(en.set.Add(graph.EntryWebSocket, full, recv.role, line, map[string]any{"route": full}), uid, line)
			return
		case attr == "route" && recv.role == "flask":
			methods = en.methods(call, "GET")
		case attr == "api_route" && recv.role == "fastapi":
			methods = en.methods(call, "GET")
		case pyHTTPMethods[attr] != "":
			methods = []string{pyHTTPMethods[attr]}
		default:
			return
		}
		for _, m := range methods {
			en.decorated(en.set.Add(graph.EntryHTTP, m+" "+full, recv.role, line, map[string]any{"method": m, "route": full}), uid, line)
		}
	}
}

// decorated adds the handled_by edge of entry to the decorated function
// uid; a function nested in another ("" uid) is handled by the code
// around it.
func (en *pyEntries) decorated(entry, uid string, line int) {
	if uid == "" {
		en.set.Anonymous(entry, line)
		return
	}
	en.set.HandledBy(entry, uid, line)
}

// click emits a click command or group under the group words; a group's
// words name the commands declared on it.
func (en *pyEntries) click(call *sitter.Node, group bool, words string, line int, fn, uid string) {
	name := strings.ReplaceAll(fn, "_", "-")
	if call != nil {
		if s := en.argString(call, 0); s != "" {
			name = s
		} else if s := en.kwString(call, "name"); s != "" {
			name = s
		}
	}
	full := strings.TrimSpace(words + " " + name)
	if group {
		en.groups[fn] = full
	}
	en.decorated(en.set.Add(graph.EntryCLI, full, "click", line, map[string]any{"command": full}), uid, line)
}

// mainBlock reads if __name__ == "__main__": a main entry named after
// the first function of the file or its imports the block calls, handled
// by it; the module itself when it calls none.
func (en *pyEntries) mainBlock(n *sitter.Node) {
	cond := n.ChildByFieldName("condition")
	if cond == nil || cond.Kind() != "comparison_operator" {
		return
	}
	t := strings.Join(strings.Fields(strings.ReplaceAll(ts.Text(cond, en.py.src), "'", `"`)), " ")
	if t != `__name__ == "__main__"` && t != `"__main__" == __name__` {
		return
	}
	var callee *sitter.Node
	ts.WalkSkip(n.ChildByFieldName("consequence"), func(x *sitter.Node) bool {
		if callee != nil {
			return false
		}
		if x.Kind() == "call" {
			if f := x.ChildByFieldName("function"); f != nil && f.Kind() == "identifier" {
				name := ts.Text(f, en.py.src)
				if _, imported := en.py.bindings[name]; imported || en.py.fr.Decl.Names[name] == graph.KindFunction {
					c := *f
					callee = &c
				}
			}
		}
		return true
	})
	line := ts.Line(n)
	if callee == nil {
		entry := en.set.Add(graph.EntryMain, "__main__", "python", line, nil)
		en.set.Anonymous(entry, line)
		return
	}
	entry := en.set.Add(graph.EntryMain, ts.Text(callee, en.py.src), "python", line, nil)
	en.handler(entry, callee)
}

// handler adds the handled_by edge of entry to what the expression h
// names (a function, a method, a class): through the resolver, which
// follows imports, to the code:external: stub of an imported name outside
// the repository (django.views.generic.TemplateView); a lambda is
// handled by the code around it.
func (en *pyEntries) handler(entry string, h *sitter.Node) {
	if h.Kind() == "lambda" {
		en.set.Anonymous(entry, ts.Line(h))
		return
	}
	if v := asView(h, en.py.src); v != nil {
		h = v
	}
	refs := len(en.py.fr.Refs)
	en.py.refTo(h, entry, nil, lang.RefCall)
	for i := refs; i < len(en.py.fr.Refs); i++ {
		en.py.fr.Refs[i].Type = graph.EdgeHandledBy
		en.py.fr.Refs[i].Stub = lang.HandlerStub(en.py.fr.Refs[i].Stub)
	}
}

// methods reads methods=[…] of a route, def when it has none.
func (en *pyEntries) methods(call *sitter.Node, def string) []string {
	l := en.kw(call, "methods")
	if l == nil {
		return []string{def}
	}
	var out []string
	for _, s := range ts.Children(l) {
		if s.Kind() == "string" {
			out = append(out, strings.ToUpper(en.str(&s)))
		}
	}
	if len(out) == 0 {
		return []string{def}
	}
	return out
}

// arg is the i-th positional argument of call, nil when it has none.
func (en *pyEntries) arg(call *sitter.Node, i int) *sitter.Node {
	j := 0
	for _, a := range ts.Children(call.ChildByFieldName("arguments")) {
		if a.Kind() == "keyword_argument" || a.Kind() == "comment" {
			continue
		}
		if j == i {
			return &a
		}
		j++
	}
	return nil
}

// kw is the value of the keyword argument name of call.
func (en *pyEntries) kw(call *sitter.Node, name string) *sitter.Node {
	for _, a := range ts.Children(call.ChildByFieldName("arguments")) {
		if a.Kind() == "keyword_argument" && ts.Text(a.ChildByFieldName("name"), en.py.src) == name {
			return a.ChildByFieldName("value")
		}
	}
	return nil
}

func (en *pyEntries) argString(call *sitter.Node, i int) string { return en.str(en.arg(call, i)) }

func (en *pyEntries) kwString(call *sitter.Node, name string) string {
	return en.str(en.kw(call, name))
}

// str is the value of a plain string literal, "" for anything else (an
// f-string, a name).
func (en *pyEntries) str(n *sitter.Node) string {
	if n == nil || n.Kind() != "string" {
		return ""
	}
	var b strings.Builder
	for _, c := range ts.Children(n) {
		switch c.Kind() {
		case "string_content":
			b.WriteString(ts.Text(&c, en.py.src))
		case "interpolation":
			return ""
		}
	}
	return b.String()
}

// asView is the class of a class-based view View.as_view(…) (Django's
// and Flask's), nil when call is something else.
func asView(call *sitter.Node, src []byte) *sitter.Node {
	if call.Kind() != "call" {
		return nil
	}
	f := call.ChildByFieldName("function")
	if f == nil || f.Kind() != "attribute" || ts.Text(f.ChildByFieldName("attribute"), src) != "as_view" {
		return nil
	}
	return f.ChildByFieldName("object")
}
