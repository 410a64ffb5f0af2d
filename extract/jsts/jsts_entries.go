package jsts

import (
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/cos-dev/cos/graph"
)

// Entry points of a JavaScript or TypeScript file: the ways into the
// program it registers, told from what its imports bind (an app is what
// the express package's default export returned, never a variable that
// merely reads like one).
//
//   - Express (app/router .get/.post/…/.all, .use with a path, .route(p)
//     chains, router prefixes of app.use("/p", router) in the same file),
//     Koa (@koa/router, koa-router, with their prefix option), Fastify
//     (.get…, .route({method, url, handler})), NestJS (@Controller(p)
//     with @Get(q)…): http "<METHOD> <route>".
//   - commander (.command("x").action(fn), nested commands, the program's
//     .name()), yargs (.command("x", desc, builder, handler) and the
//     object form): cli.
//   - the MCP SDK's McpServer .tool(name, …, fn) and .registerTool: mcp_tool.
//   - @grpc/grpc-js Server .addService(Svc.service, impl): grpc.
//   - node:events EventEmitter .on/.once/.addListener(name, fn), kafkajs
//     consumer.run({eachMessage}) with the topics it subscribed: event.
//   - ws WebSocketServer .on("connection", fn): websocket.

// jsObj is a value of a framework the file holds in a variable.
type jsObj struct {
	fw     string // express, koa, fastify, mcp, events, ws, kafka, kafkajs, grpc, commander, yargs
	prefix string // route prefix (a mounted router, a Koa router's prefix)
	words  string // commander: the command's words from the program down
	path   string // ws: the server's path option
	topics []string
	root   bool // commander: the program itself
}

// jsHTTPMethods are the route methods of Express, Koa and Fastify.
var jsHTTPMethods = map[string]string{"get": "GET", "post": "POST", "put": "PUT", "delete": "DELETE", "del": "DELETE", "patch": "PATCH", "options": "OPTIONS", "head": "HEAD", "all": "ANY"}

// jsNestMethods are NestJS's route decorators.
var jsNestMethods = map[string]string{"Get": "GET", "Post": "POST", "Put": "PUT", "Delete": "DELETE", "Patch": "PATCH", "Options": "OPTIONS", "Head": "HEAD", "All": "ANY"}

type jsEntries struct {
	js   *jsFile
	set  *lang.EntrySet
	objs map[string]*jsObj
	// program is the commander program's name (.name("x")).
	program string
	// consts are the string constants of the file (const name = "echo"),
	// declared once.
	consts map[string]string
}

// entries emits the file's entry points; it runs once the file's
// declarations and imports are known.
func (js *jsFile) entries(root *sitter.Node) {
	en := &jsEntries{js: js, set: lang.NewEntrySet(js.fr, js.fileUID), objs: map[string]*jsObj{}, consts: map[string]string{}}
	if !en.importsFramework() {
		return
	}
	g := &js.grammar
	// Variables first (apps, routers, servers, programs), with the
	// prefixes and topics later calls give them.
	ts.WalkSym(root, func(x *sitter.Node, id uint16) bool {
		if int(id) >= len(g.kinds) || g.types[id] {
			return int(id) >= len(g.kinds)
		}
		switch g.kinds[id] {
		case "variable_declarator":
			en.declarator(x)
		case "required_parameter", "optional_parameter":
			en.typedParam(x)
		case "call_expression":
			en.configure(x)
		}
		return true
	})
	ts.WalkSym(root, func(x *sitter.Node, id uint16) bool {
		if int(id) >= len(g.kinds) || g.types[id] {
			return int(id) >= len(g.kinds)
		}
		switch g.kinds[id] {
		case "call_expression":
			en.register(x)
		case "class_declaration", "abstract_class_declaration":
			en.nest(x)
		}
		return true
	})
}

// importsFramework reports whether the file imports a package whose
// entry points are read (most files do not: the walks are skipped).
func (en *jsEntries) importsFramework() bool {
	for _, b := range en.js.bindings {
		switch jsPackage(b.pkg) {
		case "express", "@koa/router", "koa-router", "fastify", "@nestjs/common", "commander", "yargs",
			"@modelcontextprotocol/sdk", "events", "kafkajs", "ws", "@grpc/grpc-js", "grpc":
			return true
		}
	}
	return false
}

// jsPackage is an npm package name without node:'s scheme.
func jsPackage(pkg string) string { return strings.TrimPrefix(pkg, "node:") }

// qualified is the dotted name an expression stands for through the
// file's package imports ("express.Router" for Router after import
// {Router} from "express"; "express" for its default export or
// require("express")); "" when it is not reached through one.
func (en *jsEntries) qualified(n *sitter.Node) string {
	js := en.js
	if n == nil {
		return ""
	}
	switch js.kind(n) {
	case "identifier":
		b, ok := js.bindings[ts.Text(n, js.src)]
		if !ok || b.pkg == "" {
			return ""
		}
		if b.name == "" || b.name == "default" {
			return jsPackage(b.pkg)
		}
		return jsPackage(b.pkg) + "." + b.name
	case "member_expression":
		q := en.qualified(js.field(n, "object"))
		prop := ts.Text(js.field(n, "property"), js.src)
		if q == "" || prop == "" {
			return ""
		}
		if prop == "default" {
			return q
		}
		return q + "." + prop
	case "call_expression":
		if spec, ok := js.requireSpec(n); ok {
			_, pkg := js.resolveSpec(spec)
			return jsPackage(pkg)
		}
	case "parenthesized_expression", "await_expression", "non_null_expression", "as_expression":
		return en.qualified(n.NamedChild(0))
	}
	return ""
}

// construct tells the framework value a call or new expression makes.
func (en *jsEntries) construct(v *sitter.Node) *jsObj {
	js := en.js
	for v != nil && (js.kind(v) == "await_expression" || js.kind(v) == "parenthesized_expression") {
		v = v.NamedChild(0)
	}
	if v == nil {
		return nil
	}
	var f *sitter.Node
	switch js.kind(v) {
	case "call_expression":
		f = js.field(v, "function")
	case "new_expression":
		f = js.field(v, "constructor")
	default:
		return nil
	}
	args := js.field(v, "arguments")
	switch en.qualified(f) {
	case "express", "express.Router":
		return &jsObj{fw: "express"}
	case "@koa/router", "koa-router", "@koa/router.Router", "koa-router.Router":
		return &jsObj{fw: "koa", prefix: en.option(en.arg(args, 0), "prefix")}
	case "fastify", "fastify.fastify", "fastify.Fastify":
		return &jsObj{fw: "fastify"}
	case "@modelcontextprotocol/sdk.McpServer":
		return &jsObj{fw: "mcp"}
	case "events", "events.EventEmitter":
		return &jsObj{fw: "events"}
	case "ws.WebSocketServer", "ws.Server", "ws.WebSocket.Server":
		return &jsObj{fw: "ws", path: en.option(en.arg(args, 0), "path")}
	case "kafkajs.Kafka":
		return &jsObj{fw: "kafka"}
	case "@grpc/grpc-js.Server", "grpc.Server":
		return &jsObj{fw: "grpc"}
	case "commander.Command", "commander.createCommand":
		if name := en.str(en.arg(args, 0)); name != "" && en.program == "" {
			en.program = name // new Command("tool")
		}
		return &jsObj{fw: "commander", root: true}
	case "yargs":
		return &jsObj{fw: "yargs"}
	}
	if f == nil || js.kind(f) != "member_expression" {
		return nil
	}
	recv := en.obj(js.field(f, "object"))
	prop := ts.Text(js.field(f, "property"), js.src)
	switch {
	case recv == nil:
	case recv.fw == "kafka" && prop == "consumer":
		return &jsObj{fw: "kafkajs"}
	case recv.fw == "commander" && prop == "command":
		if name := jsCommandWord(en.str(en.arg(args, 0))); name != "" {
			return &jsObj{fw: "commander", words: en.wordsOf(recv, name)}
		}
	}
	return nil
}

// wordsOf is the words of the command name declared on the commander
// value recv.
func (en *jsEntries) wordsOf(recv *jsObj, name string) string {
	if recv.root {
		return strings.TrimSpace(en.program + " " + name)
	}
	return recv.words + " " + name
}

// jsCommandWord is a command's name: the first word of its usage ("serve
// [port]" is serve); "" for none or yargs's default command $0.
func jsCommandWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 || f[0] == "$0" || f[0] == "*" {
		return ""
	}
	return f[0]
}

// obj is the framework value an expression stands for: a variable given
// one, or a name imported as one (commander's program).
func (en *jsEntries) obj(n *sitter.Node) *jsObj {
	js := en.js
	if n == nil {
		return nil
	}
	switch js.kind(n) {
	case "identifier":
		if o, ok := en.objs[ts.Text(n, js.src)]; ok {
			return o
		}
		switch en.qualified(n) {
		case "commander.program", "commander":
			return &jsObj{fw: "commander", root: true}
		case "yargs":
			return &jsObj{fw: "yargs"}
		}
	case "call_expression", "new_expression":
		return en.construct(n)
	case "parenthesized_expression", "await_expression", "non_null_expression", "as_expression":
		return en.obj(n.NamedChild(0))
	}
	return nil
}

func (en *jsEntries) declarator(d *sitter.Node) {
	js := en.js
	name := js.field(d, "name")
	if name == nil || js.kind(name) != "identifier" {
		return
	}
	if v := en.str(js.field(d, "value")); v != "" {
		n := ts.Text(name, js.src)
		if _, twice := en.consts[n]; twice {
			v = "" // two constants of one name in two scopes: neither
		}
		en.consts[n] = v
	}
	if o := en.construct(js.field(d, "value")); o != nil {
		en.objs[ts.Text(name, js.src)] = o
	} else if o := en.typed(js.field(d, "type")); o != nil {
		en.objs[ts.Text(name, js.src)] = o
	}
}

// typedParam reads a parameter typed as a framework value (app: Express,
// fastify: FastifyInstance).
func (en *jsEntries) typedParam(p *sitter.Node) {
	js := en.js
	pat := js.field(p, "pattern")
	if pat == nil || js.kind(pat) != "identifier" {
		return
	}
	if o := en.typed(js.field(p, "type")); o != nil {
		en.objs[ts.Text(pat, js.src)] = o
	}
}

// typed tells the framework value a type annotation names.
func (en *jsEntries) typed(t *sitter.Node) *jsObj {
	js := en.js
	if t == nil || t.NamedChildCount() == 0 {
		return nil
	}
	t = t.NamedChild(0)
	for t != nil && js.kind(t) == "generic_type" {
		t = js.field(t, "name")
	}
	q := ""
	switch {
	case t == nil:
		return nil
	case js.kind(t) == "type_identifier":
		b, ok := js.bindings[ts.Text(t, js.src)]
		if !ok || b.pkg == "" {
			return nil
		}
		q = jsPackage(b.pkg) + "." + b.name
	case js.kind(t) == "nested_type_identifier": // express.Express
		b, ok := js.bindings[ts.Text(js.field(t, "module"), js.src)]
		if !ok || b.pkg == "" || (b.name != "" && b.name != "default") {
			return nil
		}
		q = jsPackage(b.pkg) + "." + ts.Text(js.field(t, "name"), js.src)
	}
	switch q {
	case "express.Express", "express.Application", "express.Router":
		return &jsObj{fw: "express"}
	case "fastify.FastifyInstance":
		return &jsObj{fw: "fastify"}
	case "@modelcontextprotocol/sdk.McpServer":
		return &jsObj{fw: "mcp"}
	}
	return nil
}

// configure reads the calls that configure a value before routes are
// read: app.use("/p", router) mounts router under /p, consumer.subscribe
// names its topics, program.name("x") the program.
func (en *jsEntries) configure(call *sitter.Node) {
	js := en.js
	f := js.field(call, "function")
	if f == nil || js.kind(f) != "member_expression" {
		return
	}
	obj := js.field(f, "object")
	recv := en.obj(obj)
	if recv == nil {
		return
	}
	prop := ts.Text(js.field(f, "property"), js.src)
	args := js.field(call, "arguments")
	switch {
	case recv.fw == "express" && prop == "use":
		p := en.str(en.arg(args, 0))
		if r := en.obj(en.arg(args, 1)); r != nil && r.fw == "express" && p != "" && js.kind(en.arg(args, 1)) == "identifier" {
			r.prefix = lang.JoinRoute(lang.JoinRoute(recv.prefix, p), r.prefix)
		}
	case recv.fw == "kafkajs" && prop == "subscribe":
		o := en.arg(args, 0)
		if t := en.option(o, "topic"); t != "" {
			recv.topics = append(recv.topics, t)
		}
		recv.topics = append(recv.topics, en.optionList(o, "topics")...)
	case recv.fw == "commander" && recv.root && prop == "name" && js.kind(obj) == "identifier":
		if s := en.str(en.arg(args, 0)); s != "" {
			en.program = s
		}
	}
}

// register reads one call that may register an entry point.
func (en *jsEntries) register(call *sitter.Node) {
	js := en.js
	f := js.field(call, "function")
	if f == nil || js.kind(f) != "member_expression" {
		return
	}
	obj := js.field(f, "object")
	prop := ts.Text(js.field(f, "property"), js.src)
	args := js.field(call, "arguments")
	line := ts.Line(js.field(f, "property"))  // of .get in a chain
	if r, o := en.routeChain(obj); o != nil { // app.route("/p").get(h)
		if m := jsHTTPMethods[prop]; m != "" && prop != "del" {
			en.http(o, m, r, en.last(args), line)
		}
		return
	}
	switch prop {
	case "action":
		en.commanderAction(obj, args, line)
		return
	case "command":
		if en.yargsChain(obj) {
			en.yargs(args, line)
			return
		}
	}
	recv := en.obj(obj)
	if recv == nil {
		return
	}
	first := en.arg(args, 0)
	switch recv.fw {
	case "express", "koa", "fastify":
		route := en.str(first)
		if route == "" {
			if recv.fw == "fastify" && prop == "route" {
				en.fastifyRoute(recv, first, line)
			}
			return
		}
		if m := jsHTTPMethods[prop]; m != "" && (prop != "del" || recv.fw == "koa") {
			en.http(recv, m, route, en.last(args), line)
		} else if prop == "use" && recv.fw == "express" {
			if r := en.obj(en.arg(args, 1)); r != nil && r.fw == "express" {
				return // a mounted router: its routes carry the prefix
			}
			en.http(recv, "ANY", route, en.last(args), line)
		}
	case "mcp":
		if (prop == "tool" || prop == "registerTool") && en.str(first) != "" {
			name := en.str(first)
			entry := en.set.Add(graph.EntryMCPTool, name, "@modelcontextprotocol/sdk", line, map[string]any{"tool": name})
			en.handler(entry, en.last(args), line)
		}
	case "events":
		if (prop == "on" || prop == "once" || prop == "addListener") && en.str(first) != "" {
			name := en.str(first)
			entry := en.set.Add(graph.EntryEvent, name, "node:events", line, map[string]any{"subject": name})
			en.handler(entry, en.arg(args, 1), line)
		}
	case "ws":
		if prop == "on" && en.str(first) == "connection" {
			h := en.arg(args, 1)
			name := recv.path
			if name == "" && h != nil && js.kind(h) == "identifier" {
				name = ts.Text(h, js.src)
			}
			if name == "" {
				name = "connection"
			}
			meta := map[string]any{}
			if recv.path != "" {
				meta["route"] = recv.path
			}
			entry := en.set.Add(graph.EntryWebSocket, name, "ws", line, meta)
			en.handler(entry, h, line)
		}
	case "kafkajs":
		if prop == "run" {
			en.kafkaRun(recv, first, line)
		}
	case "grpc":
		if prop == "addService" {
			en.grpcService(first, en.arg(args, 1), line)
		}
	}
}

// http emits the route method+route on recv handled by h.
func (en *jsEntries) http(recv *jsObj, method, route string, h *sitter.Node, line int) {
	full := lang.JoinRoute(recv.prefix, route)
	entry := en.set.Add(graph.EntryHTTP, method+" "+full, recv.fw, line, map[string]any{"method": method, "route": full})
	en.handler(entry, h, line)
}

// routeChain reads app.route("/p") and the method calls chained on it:
// the route and the app, nil when n is no such chain.
func (en *jsEntries) routeChain(n *sitter.Node) (string, *jsObj) {
	js := en.js
	for n != nil && js.kind(n) == "call_expression" {
		f := js.field(n, "function")
		if f == nil || js.kind(f) != "member_expression" {
			return "", nil
		}
		prop := ts.Text(js.field(f, "property"), js.src)
		if prop == "route" {
			o := en.obj(js.field(f, "object"))
			route := en.str(en.arg(js.field(n, "arguments"), 0))
			if o == nil || o.fw != "express" || route == "" {
				return "", nil
			}
			return route, o
		}
		if jsHTTPMethods[prop] == "" {
			return "", nil
		}
		n = js.field(f, "object")
	}
	return "", nil
}

// fastifyRoute reads fastify.route({method, url, handler}).
func (en *jsEntries) fastifyRoute(recv *jsObj, o *sitter.Node, line int) {
	url := en.option(o, "url")
	if url == "" {
		return
	}
	methods := en.optionList(o, "method")
	if m := en.option(o, "method"); m != "" {
		methods = []string{m}
	}
	for _, m := range methods {
		en.http(recv, strings.ToUpper(m), url, en.property(o, "handler"), line)
	}
}

// commanderAction reads .action(fn) on a commander command: the command
// is the nearest .command("x") down the chain, or a command variable.
func (en *jsEntries) commanderAction(obj, args *sitter.Node, line int) {
	js := en.js
	words := ""
	for n := obj; n != nil; {
		switch js.kind(n) {
		case "call_expression":
			f := js.field(n, "function")
			if f == nil || js.kind(f) != "member_expression" {
				return
			}
			if ts.Text(js.field(f, "property"), js.src) == "command" && words == "" {
				recv := en.obj(js.field(f, "object"))
				name := jsCommandWord(en.str(en.arg(js.field(n, "arguments"), 0)))
				if recv == nil || recv.fw != "commander" || name == "" {
					return
				}
				words = en.wordsOf(recv, name)
				n = nil
				continue
			}
			n = js.field(f, "object")
		case "identifier", "new_expression":
			o := en.obj(n)
			if o == nil || o.fw != "commander" {
				return
			}
			words = o.words
			if o.root {
				words = en.program
			}
			n = nil
		default:
			return
		}
	}
	words = strings.TrimSpace(words)
	if words == "" {
		return
	}
	entry := en.set.Add(graph.EntryCLI, words, "commander", line, map[string]any{"command": words})
	en.handler(entry, en.arg(args, 0), line)
}

// yargsChain reports whether n is a yargs value: yargs(…) or a chain of
// calls on it.
func (en *jsEntries) yargsChain(n *sitter.Node) bool {
	js := en.js
	for n != nil {
		if o := en.obj(n); o != nil {
			return o.fw == "yargs"
		}
		if js.kind(n) != "call_expression" {
			return false
		}
		f := js.field(n, "function")
		if f == nil || js.kind(f) != "member_expression" {
			return false
		}
		n = js.field(f, "object")
	}
	return false
}

// yargs reads .command("x", desc, builder, handler) and .command({command,
// handler}).
func (en *jsEntries) yargs(args *sitter.Node, line int) {
	js := en.js
	first := en.arg(args, 0)
	if first == nil {
		return
	}
	var name string
	var h *sitter.Node
	if js.kind(first) == "object" {
		name = jsCommandWord(en.option(first, "command"))
		h = en.property(first, "handler")
	} else {
		name = jsCommandWord(en.str(first))
		h = en.arg(args, 3)
	}
	if name == "" || h == nil {
		return
	}
	entry := en.set.Add(graph.EntryCLI, name, "yargs", line, map[string]any{"command": name})
	en.handler(entry, h, line)
}

// kafkaRun reads consumer.run({eachMessage, eachBatch}): an event entry
// per topic the consumer subscribed to ("*" when none is known).
func (en *jsEntries) kafkaRun(recv *jsObj, o *sitter.Node, line int) {
	h := en.property(o, "eachMessage")
	if h == nil {
		h = en.property(o, "eachBatch")
	}
	if h == nil {
		return
	}
	topics := recv.topics
	if len(topics) == 0 {
		topics = []string{"*"}
	}
	for _, t := range topics {
		entry := en.set.Add(graph.EntryEvent, t, "kafkajs", line, map[string]any{"subject": t})
		en.handler(entry, h, line)
	}
}

// grpcService reads server.addService(Svc.service, impl): the service is
// named as the code spells it (the proto package is in the .proto file),
// handled by impl's functions (an object literal) or impl itself.
func (en *jsEntries) grpcService(svc, impl *sitter.Node, line int) {
	js := en.js
	if svc == nil || impl == nil {
		return
	}
	name := ts.Text(svc, js.src)
	name = strings.TrimSuffix(name, ".service")
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	if name == "" || strings.ContainsAny(name, "()[] ") {
		return
	}
	entry := en.set.Add(graph.EntryGRPC, name, "@grpc/grpc-js", line, map[string]any{"service": name})
	if js.kind(impl) != "object" {
		en.handler(entry, impl, line)
		return
	}
	for _, p := range ts.Children(impl) {
		switch js.kind(&p) {
		case "pair":
			en.handler(entry, js.field(&p, "value"), line)
		case "shorthand_property_identifier":
			en.handler(entry, &p, line)
		case "method_definition":
			en.handler(entry, &p, line)
		}
	}
}

// nest reads a NestJS controller: @Controller(prefix) on the class, a
// route decorator (@Get(path)…) on each handler method.
func (en *jsEntries) nest(class *sitter.Node) {
	js := en.js
	decs := ts.Children(class)
	if p := class.Parent(); p != nil && js.kind(p) == "export_statement" {
		decs = append(ts.Children(p), decs...)
	}
	prefix, ok := "", false
	for _, d := range decs {
		if js.kind(&d) != "decorator" {
			continue
		}
		if name, arg := en.decorator(&d); name == "@nestjs/common.Controller" {
			prefix, ok = en.nestPath(arg), true
		}
	}
	cname := ts.Text(js.field(class, "name"), js.src)
	if !ok || cname == "" {
		return
	}
	var pending []sitter.Node
	for _, m := range ts.Children(js.field(class, "body")) {
		switch js.kind(&m) {
		case "decorator":
			pending = append(pending, m)
			continue
		case "method_definition":
			mdecs := append(pending, ts.Children(&m)...)
			mname := js.memberName(js.field(&m, "name"))
			for _, d := range mdecs {
				if js.kind(&d) != "decorator" {
					continue
				}
				name, arg := en.decorator(&d)
				method := jsNestMethods[strings.TrimPrefix(name, "@nestjs/common.")]
				if !strings.HasPrefix(name, "@nestjs/common.") || method == "" || mname == "" {
					continue
				}
				route := lang.JoinRoute(prefix, en.nestPath(arg))
				entry := en.set.Add(graph.EntryHTTP, method+" "+route, "nestjs", ts.Line(&d), map[string]any{"method": method, "route": route})
				en.set.HandledBy(entry, lang.CodeUID("function", js.fr.Path, cname+"."+mname), ts.Line(&d))
			}
		}
		pending = nil
	}
}

// decorator returns the qualified name of a decorator and its first
// argument (nil when it has none).
func (en *jsEntries) decorator(d *sitter.Node) (string, *sitter.Node) {
	js := en.js
	if d.NamedChildCount() == 0 {
		return "", nil
	}
	x := d.NamedChild(0)
	if js.kind(x) == "call_expression" {
		return en.qualified(js.field(x, "function")), en.arg(js.field(x, "arguments"), 0)
	}
	return en.qualified(x), nil
}

// nestPath is a Nest path argument: a string, or {path: "…"}; "" for none.
func (en *jsEntries) nestPath(arg *sitter.Node) string {
	if arg != nil && en.js.kind(arg) == "object" {
		return en.option(arg, "path")
	}
	return en.str(arg)
}

// handler adds the handled_by edge of entry to what the expression h
// stands for: a function or method (through the resolver, which follows
// imports and receivers), or the code:external: stub of a package's
// export (express.static); an inline function is handled by the code
// around the registration, a wrapper call f(handler) by its argument.
func (en *jsEntries) handler(entry string, h *sitter.Node, line int) {
	js := en.js
	if h == nil {
		return
	}
	switch js.kind(h) {
	case "arrow_function", "function_expression", "function", "generator_function", "method_definition":
		en.set.Anonymous(entry, line)
		return
	case "call_expression":
		if inner := en.last(js.field(h, "arguments")); inner != nil && js.kind(inner) != "call_expression" {
			en.handler(entry, inner, line)
		}
		return
	case "identifier", "member_expression", "shorthand_property_identifier":
	default:
		return
	}
	refs := len(js.fr.Refs)
	ctx := js.top
	ctx.from = entry
	js.reference(h, &ctx, lang.RefCall)
	for i := refs; i < len(js.fr.Refs); i++ {
		js.fr.Refs[i].Type = graph.EdgeHandledBy
		js.fr.Refs[i].Stub = lang.HandlerStub(js.fr.Refs[i].Stub)
	}
}

// arg is the i-th argument of an arguments node, nil when it has none.
func (en *jsEntries) arg(args *sitter.Node, i int) *sitter.Node {
	j := 0
	for _, a := range ts.Children(args) {
		if en.js.kind(&a) == "comment" {
			continue
		}
		if j == i {
			return &a
		}
		j++
	}
	return nil
}

// last is the last argument of an arguments node.
func (en *jsEntries) last(args *sitter.Node) *sitter.Node {
	var out *sitter.Node
	for _, a := range ts.Children(args) {
		if en.js.kind(&a) != "comment" {
			out = &a
		}
	}
	return out
}

// property is the value of the property key of an object literal (a
// method key(){} is its own value).
func (en *jsEntries) property(o *sitter.Node, key string) *sitter.Node {
	js := en.js
	if o == nil || js.kind(o) != "object" {
		return nil
	}
	for _, p := range ts.Children(o) {
		switch js.kind(&p) {
		case "pair":
			if js.memberName(js.field(&p, "key")) == key {
				return js.field(&p, "value")
			}
		case "method_definition":
			if js.memberName(js.field(&p, "name")) == key {
				return &p
			}
		case "shorthand_property_identifier":
			if ts.Text(&p, js.src) == key {
				return &p
			}
		}
	}
	return nil
}

// option is the string value of the property key of an object literal.
func (en *jsEntries) option(o *sitter.Node, key string) string { return en.str(en.property(o, key)) }

// optionList is the string values of an array property of an object
// literal.
func (en *jsEntries) optionList(o *sitter.Node, key string) []string {
	v := en.property(o, key)
	if v == nil || en.js.kind(v) != "array" {
		return nil
	}
	var out []string
	for _, s := range ts.Children(v) {
		if t := en.str(&s); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// str is the value of a string literal or a template without
// substitutions, "" for anything else.
func (en *jsEntries) str(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	switch en.js.kind(n) {
	case "identifier":
		return en.consts[ts.Text(n, en.js.src)]
	case "string":
		return jsString(n, en.js.src)
	case "template_string":
		for _, c := range ts.Children(n) {
			if en.js.kind(&c) == "template_substitution" {
				return ""
			}
		}
		return jsString(n, en.js.src)
	}
	return ""
}
