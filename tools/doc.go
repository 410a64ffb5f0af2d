// Package tools defines the cos_* tools and runs them, whatever the
// transport: tool specs (name, parameters, module, layer, annotations),
// argument parsing that names the field and shows a corrected example, the
// module gate, the call pipeline (Runner.Call) and every handler.
//
// # Calling a tool
//
// Runner.Call(ctx, name, rawJSONArgs, budget) is the one entry point: the
// MCP transport (package mcp), `cos call` and the tests all go through it,
// so they answer byte for byte alike; the budget is chosen per call (the
// agent budget over MCP, none for a browser route). A read-only tool's
// handler runs inside a view of the state (state.State.Read: the tailer
// caught up with the log head first, then its read lock held) and receives
// that view in Call.V; its envelope carries meta.log_seq, the log position
// it reflects. A write tool appends through Call.Append, waits until the
// projections include its events and answers with the post-write state
// read back (Call.ReadBack).
//
// A handler receives what it reads — the view, its arguments, the indexer
// for cos_graph_index — never a server, so a handler test opens a state
// folder and a Runner over it, with no transport.
//
// # Failures
//
// Every failure is an envelope with ok=false, never a Go error or a
// JSON-RPC error: bad arguments (E_ARGUMENT), an unknown tool
// (E_UNKNOWN_TOOL with the nearest names), a disabled module
// (E_MODULE_DISABLED), a panic (E_INTERNAL, with the stack in the state
// folder's .mcp.log only). ToEnvelopeError is the one mapping from any
// error to its code; docs/errors.md lists the catalogue.
package tools
