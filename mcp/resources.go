package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/state"
	"github.com/cos-dev/cos/tools"
)

// Live resources and module switches.
//
// Every MCP server a Server builds (MCP: one for stdio, one for HTTP)
// serves the resources of ResourceSpecs, read through the runner, and
// keeps per session the URIs it subscribed to. A subscription opens a
// tools.Runner.Subscribe (fed by the state's tailer, so commits of any process
// on the state folder reach it, with or without a bus); each batch of
// changes that touches a subscribed resource sends that session
// notifications/resources/updated {uri}, at most one per resource per
// ResourceRef.MinInterval: the first at once, later ones held to the end of
// the interval, so a burst costs at most one notification per interval.
//
// A module switched off (cos module disable, in any process) takes its
// tools off every server's list (a tool filter) and sends every session
// notifications/tools/list_changed; switched on, they come back. The tools
// stay registered: a call to one is answered E_MODULE_DISABLED by the
// runner's module gate.

// liveState is the module state shared by every MCP server of a Server.
type liveState struct {
	// mu guards everything below; it is taken before a liveServer's mu.
	mu      sync.Mutex
	servers []*liveServer
	// pending are the subscriptions requests in flight reserved, by
	// session (reserve).
	pending map[string]map[string]bool
	// unlisted are the tools whose module is off: left out of the lists.
	unlisted map[string]bool
	// profile are the tools the profile lists (nil: all).
	profile map[string]bool
	modules *tools.ModuleWatch
}

// liveServer is the live part of one mcp-go server.
type liveServer struct {
	s   *Server
	srv *mcpserver.MCPServer

	// mu guards sessions and watch (and every subscription's fields).
	mu       sync.Mutex
	sessions map[string]map[string]*subscription // session id → uri → subscription
	watch    *state.Subscription
}

// subscription is one session's subscription to one URI.
type subscription struct {
	ref ResourceRef
	// last is when the last notification was sent; timer, when set, sends
	// the next one at last+interval.
	last  time.Time
	timer *time.Timer
}

// setupLive adds the resources, the subscription hooks and the module
// switch to srv; MCP calls it once per server it builds.
func (s *Server) setupLive(srv *mcpserver.MCPServer) {
	mcpserver.WithToolCapabilities(true)(srv)
	mcpserver.WithResourceCapabilities(true, false)(srv)
	mcpserver.WithToolFilter(s.live.listFilter)(srv)
	ls := &liveServer{s: s, srv: srv, sessions: map[string]map[string]*subscription{}}
	for _, spec := range ResourceSpecs() {
		if spec.URI != "" {
			srv.AddResource(mcp.NewResource(spec.URI, spec.Name, mcp.WithResourceTitle(spec.Title),
				mcp.WithResourceDescription(spec.Description), mcp.WithMIMEType(ResourceMIMEType)), ls.read)
			continue
		}
		srv.AddResourceTemplate(mcp.NewResourceTemplate(spec.URITemplate, spec.Name, mcp.WithTemplateTitle(spec.Title),
			mcp.WithTemplateDescription(spec.Description), mcp.WithTemplateMIMEType(ResourceMIMEType)), ls.read)
	}
	hooks := srv.GetHooks()
	if hooks == nil {
		hooks = &mcpserver.Hooks{}
		mcpserver.WithHooks(hooks)(srv)
	}
	hooks.AddAfterSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		if session := mcpserver.ClientSessionFromContext(ctx); session != nil {
			ls.subscribe(session.SessionID(), req.Params.URI)
			s.live.settle(session.SessionID(), req.Params.URI)
		}
	})
	hooks.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		if session := mcpserver.ClientSessionFromContext(ctx); session != nil {
			ls.unsubscribe(session.SessionID(), req.Params.URI)
		}
	})
	// Protocol 2026-07-28 subscribes through a subscriptions/listen stream
	// instead: its URIs are subscribed while the stream is open.
	hooks.AddBeforeSubscriptionsListen(func(ctx context.Context, _ any, req *mcp.SubscriptionsListenRequest) {
		if session := mcpserver.ClientSessionFromContext(ctx); session != nil {
			for _, uri := range req.Params.Notifications.ResourceSubscriptions {
				ls.subscribe(session.SessionID(), uri)
			}
			s.live.settle(session.SessionID(), req.Params.Notifications.ResourceSubscriptions...)
		}
	})
	listenEnded := func(ctx context.Context, req *mcp.SubscriptionsListenRequest) {
		if session := mcpserver.ClientSessionFromContext(ctx); session != nil {
			for _, uri := range req.Params.Notifications.ResourceSubscriptions {
				ls.unsubscribe(session.SessionID(), uri)
			}
		}
	}
	hooks.AddAfterSubscriptionsListen(func(ctx context.Context, _ any, req *mcp.SubscriptionsListenRequest, _ *mcp.SubscriptionsListenResult) {
		listenEnded(ctx, req)
	})
	hooks.AddOnError(func(ctx context.Context, _ any, method mcp.MCPMethod, message any, _ error) {
		if req, ok := message.(*mcp.SubscriptionsListenRequest); ok && method == mcp.MethodSubscriptionsListen {
			listenEnded(ctx, req)
		}
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, session mcpserver.ClientSession) {
		ls.dropSession(session.SessionID())
		s.live.dropPending(session.SessionID())
	})

	l := &s.live
	l.mu.Lock()
	defer l.mu.Unlock()
	l.servers = append(l.servers, ls)
	if l.modules == nil {
		w, err := s.r.WatchModules(s.modulesSwitched)
		if err != nil {
			s.logger.Warn("module switches are not watched; a session's tool list stays as it is", "err", err)
		} else {
			l.modules = w
		}
		l.unlisted = unlistedOf(s.r.Tools(), s.r.ToolsEnabled())
	}
}

// listFilter is every server's tool filter: tools/list leaves out the
// tools whose module is switched off and those the profile does not list. They stay registered, so a call that
// raced a switch is answered by the tool (E_MODULE_DISABLED), never by a
// protocol error for an unknown tool.
func (l *liveState) listFilter(_ context.Context, in []mcp.Tool) []mcp.Tool {
	if len(in) == 1 {
		// mcp-go asks the filters about the one tool a tools/call names
		// too: let it through, so that the tool answers (its module gate:
		// E_MODULE_DISABLED). A list is never one tool: every module has
		// two or more, and the tools of no module (cos_health, cos_history)
		// are never switched off.
		return in
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.unlisted) == 0 && l.profile == nil {
		return in
	}
	out := make([]mcp.Tool, 0, len(in))
	for _, t := range in {
		if !l.unlisted[t.Name] && (l.profile == nil || l.profile[t.Name]) {
			out = append(out, t)
		}
	}
	return out
}

// unlistedOf returns the names of all that are not in enabled.
func unlistedOf(all, enabled []*tools.Tool) map[string]bool {
	out := map[string]bool{}
	for _, t := range all {
		out[t.Name] = true
	}
	for _, t := range enabled {
		delete(out, t.Name)
	}
	return out
}

// modulesSwitched is the module watch: it brings every server's tool list
// in line with enabled.
func (s *Server) modulesSwitched(enabled []*tools.Tool) {
	l := &s.live
	l.mu.Lock()
	before := l.unlisted
	l.unlisted = unlistedOf(s.r.Tools(), enabled)
	same := maps.Equal(before, l.unlisted)
	servers := slices.Clone(l.servers)
	l.mu.Unlock()
	if same {
		return
	}
	for _, ls := range servers {
		ls.srv.SendNotificationToAllClients(mcp.MethodNotificationToolsListChanged, nil)
	}
	s.logger.Info("module switch: tool list changed", "unlisted", len(l.unlisted))
}

// read answers resources/read with the envelope of the resource's tool.
func (ls *liveServer) read(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	ref, err := ParseResourceURI(req.Params.URI)
	if err != nil {
		return nil, err // the filter answers bad URIs first (liveResponse)
	}
	env := readResource(ctx, ls.s.r, ref, ls.s.opts.Budget)
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: ResourceMIMEType, Text: string(env.JSON())}}, nil
}

// MaxSubscriptions is the most resources one session may subscribe to at
// once: each costs memory and a check of every committed event.
const MaxSubscriptions = 1000

var errTooManySubscriptions = errors.New("this session already holds the most subscriptions a session may (" + strconv.Itoa(MaxSubscriptions) + "); unsubscribe from some first")

// reserve counts uris against session's MaxSubscriptions when the
// request is read, before mcp-go applies it: the subscriptions the session
// holds plus the ones its requests in flight reserved (so a burst of
// pipelined subscribes cannot slip past the limit). It reports false, and
// reserves nothing, when the new ones would take the session past the
// limit; a uri held or reserved already counts once. settle drops the
// reservation once the subscription is recorded; dropPending when the
// session ends.
func (l *liveState) reserve(session string, uris []string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	held := map[string]bool{}
	for _, ls := range l.servers {
		ls.mu.Lock()
		for u := range ls.sessions[session] {
			held[u] = true
		}
		ls.mu.Unlock()
	}
	for u := range l.pending[session] {
		held[u] = true
	}
	n := len(held)
	for _, u := range uris {
		if !held[u] {
			held[u] = true
			n++
		}
	}
	if n > MaxSubscriptions {
		return false
	}
	if l.pending == nil {
		l.pending = map[string]map[string]bool{}
	}
	if l.pending[session] == nil {
		l.pending[session] = map[string]bool{}
	}
	for _, u := range uris {
		l.pending[session][u] = true
	}
	return true
}

// settle drops session's reservations of uris (now recorded, or gone).
func (l *liveState) settle(session string, uris ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, u := range uris {
		delete(l.pending[session], u)
	}
	if len(l.pending[session]) == 0 {
		delete(l.pending, session)
	}
}

// dropPending drops every reservation of session (it ended).
func (l *liveState) dropPending(session string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.pending, session)
}

// subscribe records a session's subscription and makes sure committed
// events are watched.
func (ls *liveServer) subscribe(session, uri string) {
	ref, err := ParseResourceURI(uri)
	if err != nil {
		return // refused by the filter before mcp-go saw it
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	subs := ls.sessions[session]
	if subs == nil {
		subs = map[string]*subscription{}
		ls.sessions[session] = subs
	}
	if subs[uri] == nil {
		subs[uri] = &subscription{ref: ref}
	}
	if ls.watch == nil {
		w, err := ls.s.r.Subscribe(func(ch state.Changes) { ls.changed(ls.changesOf(ch)) })
		if err != nil {
			ls.s.logger.Warn("resource updates are not watched", "err", err)
			return
		}
		ls.watch = w
	}
}

// unsubscribe removes a session's subscription to uri (none: nothing).
func (ls *liveServer) unsubscribe(session, uri string) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if sub := ls.sessions[session][uri]; sub != nil {
		if sub.timer != nil {
			sub.timer.Stop()
		}
		delete(ls.sessions[session], uri)
		if len(ls.sessions[session]) == 0 {
			delete(ls.sessions, session)
		}
	}
	ls.unwatchLocked()
}

// dropSession removes every subscription of a session that ended.
func (ls *liveServer) dropSession(session string) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for _, sub := range ls.sessions[session] {
		if sub.timer != nil {
			sub.timer.Stop()
		}
	}
	delete(ls.sessions, session)
	ls.unwatchLocked()
}

// unwatchLocked stops watching events once no subscription is left.
func (ls *liveServer) unwatchLocked() {
	if len(ls.sessions) == 0 && ls.watch != nil {
		ls.watch.Close()
		ls.watch = nil
	}
}

// changesOf sums up a batch and reads which subscribed tasks it added a
// change under to (outside ls.mu: the read may wait for the projections).
func (ls *liveServer) changesOf(batch state.Changes) *ResourceChanges {
	ch := changesOf(batch)
	if !ch.mayNotice {
		return ch
	}
	if err := ch.noticeTasks(context.Background(), ls.subscribedTasks(), ls.s.r.NewestNotices); err != nil {
		ls.s.logger.Debug("changes under tasks not read", "err", err)
	}
	return ch
}

// subscribedTasks returns the ids of the tasks some session subscribes to.
func (ls *liveServer) subscribedTasks() []string {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	seen := map[string]bool{}
	var ids []string
	for _, subs := range ls.sessions {
		for _, sub := range subs {
			if sub.ref.Kind == ResourceTask && !seen[sub.ref.ID] {
				seen[sub.ref.ID] = true
				ids = append(ids, sub.ref.ID)
			}
		}
	}
	return ids
}

// changed is the resource watch: it notifies every subscription the
// changes touch, coalesced per MinInterval.
func (ls *liveServer) changed(ch *ResourceChanges) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	now := time.Now()
	for session, subs := range ls.sessions {
		for uri, sub := range subs {
			if sub.timer != nil || !ch.Touches(sub.ref) {
				continue // a notification is already due
			}
			if wait := sub.last.Add(sub.ref.MinInterval()).Sub(now); wait > 0 {
				sub.timer = time.AfterFunc(wait, func() { ls.due(session, uri, sub) })
				continue
			}
			ls.notifyLocked(session, uri, sub, now)
		}
	}
}

// due sends a held notification, unless the subscription ended meanwhile.
func (ls *liveServer) due(session, uri string, sub *subscription) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.sessions[session][uri] != sub {
		return
	}
	sub.timer = nil
	ls.notifyLocked(session, uri, sub, time.Now())
}

// notifyLocked sends notifications/resources/updated to one session. It
// never blocks: a session whose queue is full misses it (and is logged).
func (ls *liveServer) notifyLocked(session, uri string, sub *subscription, now time.Time) {
	sub.last = now
	if err := ls.srv.SendNotificationToSpecificClient(session, string(mcp.MethodNotificationResourceUpdated), map[string]any{"uri": uri}); err != nil {
		ls.s.logger.Debug("resource update not sent", "session", session, "uri", uri, "err", err)
	}
}

// liveRequest is the part of a JSON-RPC request liveResponse reads.
type liveRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		URI           *string `json:"uri"`
		Notifications struct {
			ResourceSubscriptions []string `json:"resourceSubscriptions"`
		} `json:"notifications"`
	} `json:"params"`
}

// uriData is the data of the error refusing uri: {uri}, or for a uri over
// MaxResourceURILen its first uriEchoBytes bytes (cut at a character,
// with "…") and {uri_bytes}, its length: an answer never echoes a long
// request back whole.
func uriData(uri string) map[string]any {
	if len(uri) <= MaxResourceURILen {
		return map[string]any{"uri": uri}
	}
	cut := uriEchoBytes
	for cut > 0 && !utf8.RuneStart(uri[cut]) {
		cut--
	}
	return map[string]any{"uri": uri[:cut] + "…", "uri_bytes": len(uri)}
}

// uriEchoBytes is how much of a too-long uri an error quotes.
const uriEchoBytes = 120

// liveResponse answers, before mcp-go sees them, a resources/read,
// resources/subscribe, resources/unsubscribe or subscriptions/listen whose
// uri (or one of whose resourceSubscriptions) names no cos resource, and a
// subscription past MaxSubscriptions for its session: JSON-RPC error
// -32602 naming the URI and why, data uriData. It returns nil for every
// other message.
func (s *Server) liveResponse(session string, line []byte) []byte {
	if !bytes.Contains(line, []byte(`"resources/`)) && !bytes.Contains(line, []byte(`"subscriptions/listen"`)) {
		return nil
	}
	var m liveRequest
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	badURI := func(uri string, err error) []byte {
		out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{
			"code": mcp.INVALID_PARAMS, "message": m.Method + ": " + err.Error(), "data": uriData(uri)}})
		return out
	}
	switch m.Method {
	case string(mcp.MethodResourcesRead), string(mcp.MethodResourcesSubscribe), string(mcp.MethodResourcesUnsubscribe):
		uri := ""
		if m.Params.URI != nil {
			uri = *m.Params.URI
		}
		ref, err := ParseResourceURI(uri)
		if err != nil {
			return badURI(uri, err)
		}
		if m.Method == string(mcp.MethodResourcesRead) {
			return s.readResponse(m.ID, ref)
		}
		if m.Method == string(mcp.MethodResourcesSubscribe) && !s.live.reserve(session, []string{uri}) {
			return badURI(uri, errTooManySubscriptions)
		}
		return nil
	case string(mcp.MethodSubscriptionsListen):
		subs := m.Params.Notifications.ResourceSubscriptions
		for _, uri := range subs {
			if _, err := ParseResourceURI(uri); err != nil {
				return badURI(uri, err)
			}
		}
		if len(subs) > 0 && !s.live.reserve(session, subs) {
			return badURI(subs[0], errTooManySubscriptions)
		}
		return nil
	}
	return nil
}

// readResponse answers resources/read of ref here rather than in mcp-go,
// whose handler errors are all -32603 and whose template match would
// refuse a uid written with a raw "/": the contents are the envelope of
// the resource's tool, and a task, node or session that does not exist is
// JSON-RPC error -32002 (resource not found) with data {uri, error: the
// envelope's error}.
func (s *Server) readResponse(id json.RawMessage, ref ResourceRef) []byte {
	env := readResource(context.Background(), s.r, ref, s.opts.Budget)
	var msg map[string]any
	if e := env.Err(); e != nil && e.Code == envelope.CodeNotFound {
		data := uriData(ref.URI)
		data["error"] = env.Map()["error"]
		msg = map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
			"code": mcp.RESOURCE_NOT_FOUND, "message": "resources/read: " + quoteURI(ref.URI) + ": " + e.Message, "data": data}}
	} else {
		msg = map[string]any{"jsonrpc": "2.0", "id": id, "result": mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
			mcp.TextResourceContents{URI: ref.URI, MIMEType: ResourceMIMEType, Text: string(env.JSON())}}}}
	}
	out, err := json.Marshal(msg)
	if err != nil {
		return nil
	}
	return out
}
