package tools

import (
	"context"

	"github.com/cos-dev/cos/state"
)

// WithCaller returns ctx carrying the client a call is made for — the MCP
// client's name and version from its initialize request and the session
// id — so that every event the call appends records them in
// actor.client, and cos_history shows them. Empty parts are left out; the
// text is cleaned of control characters and clipped (it comes from the
// network).
func WithCaller(ctx context.Context, name, version, session string) context.Context {
	return state.WithCaller(ctx, state.Caller{Name: name, Version: version, Session: session})
}
