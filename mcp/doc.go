// Package mcp is the Model Context Protocol transport of cos: it lists the
// tools of a tools.Runner and answers tools/call over stdio
// (newline-delimited JSON-RPC, ServeStdio) and over streamable HTTP (Mount,
// at /mcp on a mux the caller serves). It is the only package that imports
// mcp-go.
//
// Every answer is the envelope the runner returns, trimmed to the agent
// budget (Options.Budget): structuredContent is the envelope and the one
// text content is the same envelope as JSON; isError is set iff ok is
// false. A failure is never a JSON-RPC error: a call to a tool no one has
// is answered here with E_UNKNOWN_TOOL and the nearest names, before mcp-go
// would turn it into one. Nothing but MCP messages is written to stdout.
//
// # Resources and module switches
//
// Five resources answer resources/read with the envelope of a tool (the
// first page of cos_task_board for cos://board, cos_task_get for
// cos://task/{task_id}, cos_graph_context for cos://node/{uid},
// cos_evidence_bundle for cos://evidence/{session_id}, cos_health for
// cos://health). A session that subscribes (resources/subscribe, or a
// subscriptions/listen stream) gets notifications/resources/updated {uri}
// after a committed event of any process changes the resource, at most one
// per resource per 100 ms (health: per second). A URI that names no
// resource is a JSON-RPC error -32602 naming it. A module switched off in
// any process takes its tools off the list (notifications/tools/list_changed);
// they still answer E_MODULE_DISABLED when called. See resources.go.
//
// # Limits and checks
//
// One message is at most MaxMessageBytes (64 MiB). On stdio a longer line
// is read to its end in bounded memory, answered with a JSON-RPC error
// (-32600, the message's id when it can be recovered, else null) and
// skipped; the session goes on. Over HTTP every request is checked before
// mcp-go sees it: a present Origin must be the server's own or one of
// HTTPOptions.AllowedOrigins (else 403, as the MCP transport requires
// against DNS rebinding); with a token, "Authorization: Bearer <token>"
// (scheme in any case, token compared in constant time; else 401 with
// WWW-Authenticate: Bearer); a POST body over the limit is 413.
//
// # Caveats
//
// When its context ends ServeStdio returns without waiting for a read from
// stdin that is blocked at that moment: a read from a pipe cannot be
// interrupted, and the process is about to exit anyway.
package mcp
