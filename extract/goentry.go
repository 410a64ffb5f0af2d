package extract

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/golang"
	"github.com/cos-dev/cos/extract/lang"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/cos-dev/cos/graph"
)

// Entry points of Go code, found by the typed pass only: a registration
// is recognised by its callee's package path and name as go/types resolves
// them (never by the text of the call), so a router variable of any name
// and a package imported under any name are seen, and a method of the
// same name on an unrelated type is not. Files of _test.go are skipped:
// what a test registers is not a way into the program.

// Import paths (or their prefix, for major versions) of the frameworks.
const (
	pkgNetHTTP     = "net/http"
	pkgChi         = "github.com/go-chi/chi"
	pkgGin         = "github.com/gin-gonic/gin"
	pkgEcho        = "github.com/labstack/echo"
	pkgMux         = "github.com/gorilla/mux"
	pkgCobra       = "github.com/spf13/cobra"
	pkgUrfave      = "github.com/urfave/cli"
	pkgMCPServer   = "github.com/mark3labs/mcp-go/server"
	pkgMCP         = "github.com/mark3labs/mcp-go/mcp"
	pkgGRPC        = "google.golang.org/grpc"
	pkgNATS        = "github.com/nats-io/nats.go"
	pkgGorillaWS   = "github.com/gorilla/websocket"
	pkgCoderWS     = "github.com/coder/websocket"
	pkgNhooyrWS    = "nhooyr.io/websocket"
	methodAny      = "ANY"
	metaAnonymous  = "anonymous"
	metaFactory    = "factory"
	metaDynamic    = "dynamic"
	metaUnresolved = "handler_unresolved"
)

// inPkg reports whether the import path p is prefix or a major version of
// it (prefix/v5).
func inPkg(p, prefix string) bool {
	if p == prefix {
		return true
	}
	rest, ok := strings.CutPrefix(p, prefix+"/v")
	return ok && rest != "" && !strings.Contains(rest, "/")
}

// httpVerbs are the route methods of chi (Get), gin and echo (GET).
var httpVerbs = map[string]bool{"GET": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "HEAD": true, "OPTIONS": true, "CONNECT": true, "TRACE": true}

// pkgEntries is what the entry points of one package need from all of its
// files: the single initialiser of each variable, and the parent of each
// command literal (cobra's AddCommand, urfave/cli's Commands).
type pkgEntries struct {
	init   map[types.Object]ast.Expr
	parent map[*ast.CompositeLit]*ast.CompositeLit
}

// entryState is one file's entry point detection state.
type entryState struct {
	// prefix is the route prefix of a router parameter (chi Route and
	// Group callbacks).
	prefix map[types.Object]string
	// consumed are registrations already recorded by an enclosing call
	// (gorilla/mux's HandleFunc(...).Methods(...)).
	consumed map[*ast.CallExpr]bool
	// lits are the function literals of the body being walked, outermost
	// first.
	lits []*ast.FuncLit
}

// entries returns the package's entry point tables, scanning its files
// on first use (shared by the package's files).
func (fx *typedFileExtraction) entries() *pkgEntries {
	if fx.pkgEnt.init == nil {
		*fx.pkgEnt = *scanPkgEntries(fx.cp.files, fx.cp.info)
	}
	return fx.pkgEnt
}

// scanPkgEntries builds the tables of pkgEntries over a package's files.
func scanPkgEntries(files []*ast.File, info *types.Info) *pkgEntries {
	pe := &pkgEntries{init: map[types.Object]ast.Expr{}, parent: map[*ast.CompositeLit]*ast.CompositeLit{}}
	seen := map[types.Object]int{}
	assign := func(id *ast.Ident, e ast.Expr) {
		o := info.Defs[id]
		if o == nil {
			o = info.Uses[id]
		}
		if _, ok := o.(*types.Var); !ok {
			return
		}
		seen[o]++
		if seen[o] == 1 {
			pe.init[o] = e
		} else {
			delete(pe.init, o) // assigned twice: not one value
		}
	}
	var adds []*ast.CallExpr
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				if len(n.Names) == len(n.Values) {
					for i, id := range n.Names {
						assign(id, n.Values[i])
					}
				}
			case *ast.AssignStmt:
				if len(n.Lhs) == len(n.Rhs) && (n.Tok == token.DEFINE || n.Tok == token.ASSIGN) {
					for i, l := range n.Lhs {
						if id, ok := l.(*ast.Ident); ok {
							assign(id, n.Rhs[i])
						}
					}
				}
			case *ast.CallExpr:
				if fn, ok := typeutil.Callee(info, n).(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == pkgCobra && fn.Name() == "AddCommand" {
					adds = append(adds, n)
				}
			case *ast.CompositeLit:
				if urfaveCommand(info.TypeOf(n)) {
					for _, kv := range n.Elts {
						kv, ok := kv.(*ast.KeyValueExpr)
						if !ok {
							continue
						}
						if k, ok := kv.Key.(*ast.Ident); ok && (k.Name == "Commands" || k.Name == "Subcommands") {
							if list, ok := ast.Unparen(kv.Value).(*ast.CompositeLit); ok {
								for _, el := range list.Elts {
									if c := pe.literal(info, el); c != nil {
										pe.parent[c] = n
									}
								}
							}
						}
					}
				}
			}
			return true
		})
	}
	for _, c := range adds {
		sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr)
		if !ok {
			continue
		}
		parent := pe.literal(info, sel.X)
		if parent == nil {
			continue
		}
		for _, a := range c.Args {
			if child := pe.literal(info, a); child != nil {
				pe.parent[child] = parent
			}
		}
	}
	return pe
}

// literal returns the composite literal e is (through &, parentheses and
// a variable with a single initialiser), nil when there is none.
func (pe *pkgEntries) literal(info *types.Info, e ast.Expr) *ast.CompositeLit {
	for range 8 {
		switch x := ast.Unparen(e).(type) {
		case *ast.CompositeLit:
			return x
		case *ast.UnaryExpr:
			if x.Op != token.AND {
				return nil
			}
			e = x.X
		case *ast.Ident:
			init, ok := pe.init[info.Uses[x]]
			if !ok {
				return nil
			}
			e = init
		default:
			return nil
		}
	}
	return nil
}

// namedIn reports whether t (through pointers) is the named type name of
// a package for which match holds.
func namedIn(t types.Type, match func(pkg string) bool, names ...string) bool {
	n := namedOf(t)
	if n == nil || n.Obj().Pkg() == nil || !match(n.Obj().Pkg().Path()) {
		return false
	}
	for _, name := range names {
		if n.Obj().Name() == name {
			return true
		}
	}
	return false
}

func urfaveCommand(t types.Type) bool {
	return t != nil && namedIn(t, func(p string) bool { return inPkg(p, pkgUrfave) }, "App", "Command")
}

func cobraCommand(t types.Type) bool {
	return t != nil && namedIn(t, func(p string) bool { return p == pkgCobra }, "Command")
}

// handlerRef is the function an entry point is handled by.
type handlerRef struct {
	uid  string
	meta map[string]any
}

// constString returns the constant string value of e, or its source text
// and false when it is not a constant.
func (fx *typedFileExtraction) constString(e ast.Expr) (string, bool) {
	if tv, ok := fx.cp.info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
		return constant.StringVal(tv.Value), true
	}
	return types.ExprString(e), false
}

// emitEntry adds an entry point node of kind named name at line, contained
// by the file, and its handled_by edges.
func (fx *typedFileExtraction) emitEntry(kind, name string, line int, meta map[string]any, handlers ...handlerRef) {
	uid := graph.EntryUID(kind, fx.path, name)
	meta["entry_kind"] = kind
	if len(handlers) == 0 {
		meta[metaUnresolved] = true
	}
	fx.node(graph.Node{UID: uid, Kind: graph.KindEntrypoint, Label: lang.CleanString(golang.EntryLabel(kind, name)), Line: line, Metadata: meta})
	fx.edge(fx.fileUID, uid, graph.EdgeContains, line)
	for _, h := range handlers {
		i := fx.edge(uid, h.uid, graph.EdgeHandledBy, line)
		if i >= 0 && len(h.meta) > 0 && fx.edges[i].Metadata == nil {
			fx.edges[i].Metadata = h.meta
		}
	}
}

// enclosing returns the handler that is the function whose body is being
// walked: src, marked anonymous when the position lies in a function
// literal.
func (fx *typedFileExtraction) enclosing(src string, pos token.Pos) handlerRef {
	for _, l := range fx.ent.lits {
		if l.Pos() <= pos && pos < l.End() {
			return handlerRef{uid: src, meta: map[string]any{metaAnonymous: true}}
		}
	}
	return handlerRef{uid: src}
}

// handlerOf resolves a handler argument: a function or method value, a
// func literal (the enclosing function, anonymous), a conversion
// (http.HandlerFunc(f)), a call building the handler (the called
// function, as a factory) or a value whose type has the method
// serveMethod (ServeHTTP). ok is false when nothing is known.
func (fx *typedFileExtraction) handlerOf(src string, e ast.Expr, serveMethod string) (handlerRef, bool) {
	info := fx.cp.info
	for range 8 {
		e = ast.Unparen(e)
		switch x := e.(type) {
		case *ast.FuncLit:
			return handlerRef{uid: src, meta: map[string]any{metaAnonymous: true}}, true
		case *ast.CallExpr:
			if tv, ok := info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
				e = x.Args[0] // a conversion
				continue
			}
			if fn, ok := typeutil.Callee(info, x).(*types.Func); ok {
				if h, ok := fx.funcHandler(fn); ok {
					h.meta = map[string]any{metaFactory: true}
					return h, true
				}
			}
			return handlerRef{}, false
		}
		break
	}
	var id *ast.Ident
	switch x := e.(type) {
	case *ast.Ident:
		id = x
	case *ast.SelectorExpr:
		id = x.Sel
	}
	if id != nil {
		if fn, ok := info.Uses[id].(*types.Func); ok {
			return fx.funcHandler(fn)
		}
		if o, ok := info.Uses[id].(*types.Var); ok {
			if init, ok := fx.entries().init[o]; ok {
				if _, lit := ast.Unparen(init).(*ast.FuncLit); !lit {
					if h, ok := fx.handlerOf(src, init, serveMethod); ok {
						return h, true
					}
				}
			}
		}
	}
	if serveMethod == "" {
		return handlerRef{}, false
	}
	t := info.TypeOf(e)
	if t == nil {
		return handlerRef{}, false
	}
	if _, isSig := t.Underlying().(*types.Signature); isSig {
		return handlerRef{}, false
	}
	if _, isIface := t.Underlying().(*types.Interface); isIface {
		return handlerRef{}, false
	}
	if fn, ok := lookupMethod(t, serveMethod); ok {
		return fx.funcHandler(fn)
	}
	return handlerRef{}, false
}

// lookupMethod returns the method name of t's method set (pointer
// receivers included).
func lookupMethod(t types.Type, name string) (*types.Func, bool) {
	o, _, _ := types.LookupFieldOrMethod(t, true, nil, name)
	fn, ok := o.(*types.Func)
	return fn, ok
}

// funcHandler is the handler that is fn, adding the stub of an
// out-of-tree function.
func (fx *typedFileExtraction) funcHandler(fn *types.Func) (handlerRef, bool) {
	uid, in, stub, ok := fx.funcTarget(fn)
	if !ok {
		return handlerRef{}, false
	}
	if !in {
		fx.stubNode(uid, stub)
	}
	return handlerRef{uid: uid}, true
}

// entryCall recognises a registration call, its callee fn resolved.
func (fx *typedFileExtraction) entryCall(src string, c *ast.CallExpr, fn *types.Func) {
	if fn.Pkg() == nil || fx.ent.consumed[c] {
		return
	}
	p, name := fn.Pkg().Path(), fn.Name()
	line := fx.line(c.Pos())
	switch {
	case p == pkgNetHTTP:
		if (name == "Handle" || name == "HandleFunc") && len(c.Args) == 2 && (recvName(fn) == "" || recvName(fn) == "ServeMux") {
			pattern, isConst := fx.constString(c.Args[0])
			method, route := methodAny, pattern
			if m, r, ok := strings.Cut(pattern, " "); ok && isConst && m != "" && !strings.Contains(m, "/") {
				method, route = m, strings.TrimLeft(r, " \t")
			}
			fx.httpEntry(src, "net/http", method, route, isConst, line, c.Args[1], "ServeHTTP")
		}
	case inPkg(p, pkgChi):
		fx.chiCall(src, c, name, line)
	case p == pkgGin:
		fx.ginEchoCall(src, c, name, line, "gin")
	case inPkg(p, pkgEcho):
		fx.ginEchoCall(src, c, name, line, "echo")
	case p == pkgMux:
		fx.muxCall(src, c, fn, line)
	case p == pkgMCPServer:
		if name == "AddTool" && len(c.Args) == 2 {
			tool, isConst := fx.toolName(c.Args[0])
			meta := map[string]any{"tool": tool, "framework": "mcp-go"}
			if !isConst {
				meta[metaDynamic] = true
			}
			fx.emitEntry(graph.EntryMCPTool, tool, line, meta, fx.handlers(src, c.Args[1], "")...)
		}
	case p == pkgNATS:
		fx.natsCall(src, c, name, line)
	case p == pkgGorillaWS && name == "Upgrade" && recvName(fn) == "Upgrader",
		(p == pkgCoderWS || p == pkgNhooyrWS) && name == "Accept" && recvName(fn) == "":
		fw := strings.TrimPrefix(strings.TrimPrefix(p, "github.com/"), "nhooyr.io/")
		if p == pkgNhooyrWS {
			fw = pkgNhooyrWS
		}
		handler := fx.bodyName
		if handler == "" {
			handler = path.Base(fx.path)
		}
		fx.emitEntry(graph.EntryWebSocket, handler, line, map[string]any{"framework": fw}, fx.enclosing(src, c.Pos()))
	case strings.HasPrefix(name, "Register") && strings.HasSuffix(name, "Server") && len(name) > len("RegisterServer") && recvName(fn) == "":
		fx.grpcRegister(c, fn, line)
	}
}

// recvName returns the name of fn's receiver's named type, "" for a
// function.
func recvName(fn *types.Func) string {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return ""
	}
	if n := namedOf(sig.Recv().Type()); n != nil {
		return n.Obj().Name()
	}
	return ""
}

// handlers is handlerOf as a list (empty when unresolved).
func (fx *typedFileExtraction) handlers(src string, e ast.Expr, serveMethod string) []handlerRef {
	if h, ok := fx.handlerOf(src, e, serveMethod); ok {
		return []handlerRef{h}
	}
	return nil
}

// httpEntry adds an http entry point "<method> <route>".
func (fx *typedFileExtraction) httpEntry(src, framework, method, route string, isConst bool, line int, handler ast.Expr, serveMethod string) {
	meta := map[string]any{"method": method, "route": route, "framework": framework}
	if !isConst {
		meta[metaDynamic] = true
	}
	var hs []handlerRef
	if handler != nil {
		hs = fx.handlers(src, handler, serveMethod)
	}
	fx.emitEntry(graph.EntryHTTP, method+" "+route, line, meta, hs...)
}

// routePrefix returns the route prefix a router expression carries: the
// groups it was made from (gin and echo Group, chi Route and Group
// callbacks and With, gorilla/mux PathPrefix(...).Subrouter()).
func (fx *typedFileExtraction) routePrefix(e ast.Expr, depth int) string {
	if depth > 8 {
		return ""
	}
	info := fx.cp.info
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		o := info.Uses[x]
		if p, ok := fx.ent.prefix[o]; ok {
			return p
		}
		if init, ok := fx.entries().init[o]; ok {
			return fx.routePrefix(init, depth+1)
		}
	case *ast.CallExpr:
		fn, ok := typeutil.Callee(info, x).(*types.Func)
		sel, isSel := ast.Unparen(x.Fun).(*ast.SelectorExpr)
		if !ok || !isSel || fn.Pkg() == nil {
			return ""
		}
		p := fn.Pkg().Path()
		switch {
		case (p == pkgGin || inPkg(p, pkgEcho)) && fn.Name() == "Group" && len(x.Args) >= 1:
			s, _ := fx.constString(x.Args[0])
			return fx.routePrefix(sel.X, depth+1) + s
		case inPkg(p, pkgChi) && (fn.Name() == "With" || fn.Name() == "Group"):
			return fx.routePrefix(sel.X, depth+1)
		case p == pkgMux && fn.Name() == "Subrouter":
			return fx.routePrefix(sel.X, depth+1)
		case p == pkgMux && fn.Name() == "PathPrefix" && len(x.Args) == 1:
			s, _ := fx.constString(x.Args[0])
			return fx.routePrefix(sel.X, depth+1) + s
		}
	}
	return ""
}

// receiverOf returns the receiver expression of a method call.
func receiverOf(c *ast.CallExpr) ast.Expr {
	if sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr); ok {
		return sel.X
	}
	return nil
}

// chiCall recognises chi's Get/Post/…, Handle, HandleFunc, Method,
// MethodFunc and Mount, and gives Route and Group callbacks their prefix.
func (fx *typedFileExtraction) chiCall(src string, c *ast.CallExpr, name string, line int) {
	recv := receiverOf(c)
	if recv == nil {
		return
	}
	prefix := func() string { return fx.routePrefix(recv, 0) }
	switch {
	case name == "Route" && len(c.Args) == 2, name == "Group" && len(c.Args) == 1:
		lit, ok := ast.Unparen(c.Args[len(c.Args)-1]).(*ast.FuncLit)
		if !ok || lit.Type.Params == nil || len(lit.Type.Params.List) == 0 || len(lit.Type.Params.List[0].Names) == 0 {
			return
		}
		p := prefix()
		if name == "Route" {
			s, _ := fx.constString(c.Args[0])
			p += s
		}
		if o := fx.cp.info.Defs[lit.Type.Params.List[0].Names[0]]; o != nil {
			if fx.ent.prefix == nil {
				fx.ent.prefix = map[types.Object]string{}
			}
			fx.ent.prefix[o] = p
		}
	case httpVerbs[strings.ToUpper(name)] && name != strings.ToUpper(name) && len(c.Args) == 2:
		route, isConst := fx.constString(c.Args[0])
		fx.httpEntry(src, "chi", strings.ToUpper(name), prefix()+route, isConst, line, c.Args[1], "ServeHTTP")
	case (name == "Handle" || name == "HandleFunc" || name == "Mount") && len(c.Args) == 2:
		route, isConst := fx.constString(c.Args[0])
		fx.httpEntry(src, "chi", methodAny, prefix()+route, isConst, line, c.Args[1], "ServeHTTP")
	case (name == "Method" || name == "MethodFunc") && len(c.Args) == 3:
		method, mConst := fx.constString(c.Args[0])
		route, isConst := fx.constString(c.Args[1])
		fx.httpEntry(src, "chi", strings.ToUpper(method), prefix()+route, isConst && mConst, line, c.Args[2], "ServeHTTP")
	}
}

// ginEchoCall recognises gin's and echo's GET/POST/…, Any and Handle/Add.
// gin's last handler runs the route (the others are middleware); echo's
// handler follows the path.
func (fx *typedFileExtraction) ginEchoCall(src string, c *ast.CallExpr, name string, line int, framework string) {
	recv := receiverOf(c)
	if recv == nil {
		return
	}
	method, args := "", c.Args
	switch {
	case httpVerbs[name]:
		method = name
	case name == "Any":
		method = methodAny
	case (framework == "gin" && name == "Handle") || (framework == "echo" && name == "Add"):
		if len(args) < 3 {
			return
		}
		m, _ := fx.constString(args[0])
		method, args = strings.ToUpper(m), args[1:]
	default:
		return
	}
	if len(args) < 2 {
		return
	}
	route, isConst := fx.constString(args[0])
	handler := args[1]
	if framework == "gin" {
		handler = args[len(args)-1]
		if c.Ellipsis.IsValid() {
			handler = nil // handlers passed as a slice
		}
	}
	fx.httpEntry(src, framework, method, fx.routePrefix(recv, 0)+route, isConst, line, handler, "")
}

// muxCall recognises gorilla/mux's Router.Handle/HandleFunc, with the
// methods of an enclosing .Methods(...) call.
func (fx *typedFileExtraction) muxCall(src string, c *ast.CallExpr, fn *types.Func, line int) {
	name := fn.Name()
	switch {
	case name == "Methods" && recvName(fn) == "Route":
		inner, ok := ast.Unparen(receiverOf(c)).(*ast.CallExpr)
		if !ok {
			return
		}
		ifn, ok := typeutil.Callee(fx.cp.info, inner).(*types.Func)
		if !ok || ifn.Pkg() == nil || ifn.Pkg().Path() != pkgMux || recvName(ifn) != "Router" || (ifn.Name() != "HandleFunc" && ifn.Name() != "Handle") || len(inner.Args) != 2 {
			return
		}
		if fx.ent.consumed == nil {
			fx.ent.consumed = map[*ast.CallExpr]bool{}
		}
		fx.ent.consumed[inner] = true
		route, isConst := fx.constString(inner.Args[0])
		route = fx.routePrefix(receiverOf(inner), 0) + route
		for _, a := range c.Args {
			m, mConst := fx.constString(a)
			fx.httpEntry(src, "gorilla/mux", strings.ToUpper(m), route, isConst && mConst, fx.line(inner.Pos()), inner.Args[1], "ServeHTTP")
		}
	case (name == "HandleFunc" || name == "Handle") && recvName(fn) == "Router" && len(c.Args) == 2:
		route, isConst := fx.constString(c.Args[0])
		fx.httpEntry(src, "gorilla/mux", methodAny, fx.routePrefix(receiverOf(c), 0)+route, isConst, line, c.Args[1], "ServeHTTP")
	}
}

// toolName returns the name of the mcp.Tool an expression builds
// (mcp.NewTool("name", …), mcp.Tool{Name: …}, or a variable holding one).
func (fx *typedFileExtraction) toolName(e ast.Expr) (string, bool) {
	info := fx.cp.info
	for range 8 {
		switch x := ast.Unparen(e).(type) {
		case *ast.CallExpr:
			if fn, ok := typeutil.Callee(info, x).(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == pkgMCP && strings.HasPrefix(fn.Name(), "NewTool") && len(x.Args) > 0 {
				return fx.constString(x.Args[0])
			}
			return types.ExprString(x), false
		case *ast.CompositeLit:
			for _, el := range x.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Name" {
						return fx.constString(kv.Value)
					}
				}
			}
			return types.ExprString(x), false
		case *ast.UnaryExpr:
			e = x.X
		case *ast.Ident:
			init, ok := fx.entries().init[info.Uses[x]]
			if !ok {
				return x.Name, false
			}
			e = init
		default:
			return types.ExprString(e), false
		}
	}
	return types.ExprString(e), false
}

// natsCall recognises nats.go's Subscribe and QueueSubscribe (handled by
// their callback) and ChanSubscribe, ChanQueueSubscribe, SubscribeSync
// and QueueSubscribeSync (handled by the function that subscribes).
func (fx *typedFileExtraction) natsCall(src string, c *ast.CallExpr, name string, line int) {
	if len(c.Args) == 0 {
		return
	}
	subject, isConst := fx.constString(c.Args[0])
	meta := map[string]any{"subject": subject, "framework": "nats"}
	if !isConst {
		meta[metaDynamic] = true
	}
	var hs []handlerRef
	switch name {
	case "Subscribe", "QueueSubscribe":
		want := 2
		if name == "QueueSubscribe" {
			want = 3
		}
		if len(c.Args) < want {
			return
		}
		hs = fx.handlers(src, c.Args[want-1], "")
	case "ChanSubscribe", "ChanQueueSubscribe", "SubscribeSync", "QueueSubscribeSync":
		hs = []handlerRef{fx.enclosing(src, c.Pos())}
	default:
		return
	}
	if strings.HasPrefix(name, "Queue") || strings.HasPrefix(name, "ChanQueue") {
		if len(c.Args) > 1 {
			if q, ok := fx.constString(c.Args[1]); ok {
				meta["queue"] = q
			}
		}
	}
	fx.emitEntry(graph.EntryEvent, subject, line, meta, hs...)
}

// grpcRegister recognises a generated Register<Service>Server(s, impl):
// its first parameter is grpc's ServiceRegistrar (or *grpc.Server), its
// second the service's server interface. The service's full name comes
// from the generated <Service>_<Method>_FullMethodName constants, else
// from the <Service>_ServiceDesc literal of this package, else it is the
// Go name of the service; the impl's methods of the interface handle it.
func (fx *typedFileExtraction) grpcRegister(c *ast.CallExpr, fn *types.Func, line int) {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Params().Len() != 2 || len(c.Args) != 2 {
		return
	}
	if !namedIn(sig.Params().At(0).Type(), func(p string) bool { return p == pkgGRPC }, "ServiceRegistrar", "Server") {
		return
	}
	iface, ok := sig.Params().At(1).Type().Underlying().(*types.Interface)
	if !ok {
		return
	}
	svc := strings.TrimSuffix(strings.TrimPrefix(fn.Name(), "Register"), "Server")
	full := fx.grpcServiceName(fn.Pkg(), svc)
	meta := map[string]any{"service": full, "framework": "grpc"}
	var hs []handlerRef
	if t := fx.cp.info.TypeOf(c.Args[1]); t != nil {
		for i := range iface.NumMethods() {
			m := iface.Method(i)
			if !m.Exported() {
				continue
			}
			impl, ok := lookupMethod(t, m.Name())
			if !ok {
				continue
			}
			if h, ok := fx.funcHandler(impl); ok {
				h.meta = map[string]any{"rpc": m.Name()}
				hs = append(hs, h)
			}
		}
	}
	fx.emitEntry(graph.EntryGRPC, full, line, meta, hs...)
}

// grpcServiceName returns the full name of the service svc generated in
// package pkg.
func (fx *typedFileExtraction) grpcServiceName(pkg *types.Package, svc string) string {
	scope := pkg.Scope()
	for _, n := range scope.Names() {
		if !strings.HasPrefix(n, svc+"_") || !strings.HasSuffix(n, "_FullMethodName") {
			continue
		}
		if k, ok := scope.Lookup(n).(*types.Const); ok && k.Val().Kind() == constant.String {
			full := strings.TrimPrefix(constant.StringVal(k.Val()), "/")
			if i := strings.LastIndex(full, "/"); i > 0 {
				return full[:i]
			}
		}
	}
	if desc, ok := scope.Lookup(svc + "_ServiceDesc").(*types.Var); ok && pkg == fx.cp.types {
		if init, ok := fx.entries().init[desc]; ok {
			if lit, ok := ast.Unparen(init).(*ast.CompositeLit); ok {
				for _, el := range lit.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "ServiceName" {
							if s, ok := fx.constString(kv.Value); ok {
								return s
							}
						}
					}
				}
			}
		}
	}
	return svc
}

// commandLit recognises a cobra.Command literal with a run function, and
// a urfave/cli App or Command literal with an Action: a cli entry point
// named by its command path.
func (fx *typedFileExtraction) commandLit(src string, lit *ast.CompositeLit) {
	t := fx.cp.info.TypeOf(lit)
	var framework string
	var runFields []string
	switch {
	case cobraCommand(t):
		framework, runFields = "cobra", []string{"RunE", "Run", "PreRunE", "PreRun", "PersistentPreRunE", "PersistentPreRun"}
	case urfaveCommand(t):
		framework, runFields = "urfave/cli", []string{"Action"}
	default:
		return
	}
	fields := map[string]ast.Expr{}
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok {
				fields[k.Name] = kv.Value
			}
		}
	}
	var run ast.Expr
	for _, f := range runFields {
		if run = fields[f]; run != nil {
			break
		}
	}
	if run == nil {
		return
	}
	command, dynamic := fx.commandPath(lit, framework)
	meta := map[string]any{"command": command, "framework": framework}
	if dynamic {
		meta[metaDynamic] = true
	}
	fx.emitEntry(graph.EntryCLI, command, fx.line(lit.Pos()), meta, fx.handlers(src, run, "")...)
}

// commandName is a command literal's own name: the first word of cobra's
// Use, urfave/cli's Name; the source text of a value that is not a
// constant (dynamic true); "" when there is none.
func (fx *typedFileExtraction) commandName(lit *ast.CompositeLit, framework string) (name string, dynamic bool) {
	key := "Name"
	if framework == "cobra" {
		key = "Use"
	}
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == key {
				s, isConst := fx.constString(kv.Value)
				if !isConst {
					return s, true
				}
				if f := strings.Fields(s); len(f) > 0 {
					return f[0], false
				}
			}
		}
	}
	return "", false
}

// commandPath returns the command's words from the program down, as far
// as its parents are known in this package; a root without a name is
// named after the package's folder (what go build names the program).
func (fx *typedFileExtraction) commandPath(lit *ast.CompositeLit, framework string) (command string, dynamic bool) {
	parent := fx.entries().parent
	var words []string
	for cur, n := lit, 0; cur != nil && n < 16; cur, n = parent[cur], n+1 {
		w, dyn := fx.commandName(cur, framework)
		dynamic = dynamic || dyn
		if w == "" && parent[cur] == nil {
			w = path.Base(fx.cp.pkg.PkgPath)
		}
		if w != "" {
			words = append(words, w)
		}
	}
	for i, j := 0, len(words)-1; i < j; i, j = i+1, j-1 {
		words[i], words[j] = words[j], words[i]
	}
	return strings.Join(words, " "), dynamic
}

// mainEntry adds the main or init entry point a declaration is.
func (fx *typedFileExtraction) mainEntry(d *ast.FuncDecl) {
	n, edges, ok := golang.MainEntry(fx.path, fx.file.Name.Name, d, fx.line)
	if !ok {
		return
	}
	fx.node(n)
	for _, e := range edges {
		fx.edge(e.Source, e.Target, e.Type, e.Line)
	}
}
