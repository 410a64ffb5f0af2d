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
package mcp
