package mcp

import (
	"context"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/cos-dev/cos/tools"
)

// callerContext returns ctx carrying who the call is made for (see
// tools.WithCaller): the name and version the client gave in its
// initialize request and the id of its session ("stdio" on the stdio
// transport, whose one session is told apart by the process id every event
// records; the Mcp-Session-Id over HTTP). A context without a session is
// returned as it is.
func callerContext(ctx context.Context) context.Context {
	sess := mcpserver.ClientSessionFromContext(ctx)
	if sess == nil {
		return ctx
	}
	var name, version string
	if ci, ok := sess.(mcpserver.SessionWithClientInfo); ok {
		info := ci.GetClientInfo()
		name, version = info.Name, info.Version
	}
	return tools.WithCaller(ctx, name, version, sess.SessionID())
}
