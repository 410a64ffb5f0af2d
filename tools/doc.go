// Package tools defines the cos_* MCP tools and runs them: argument
// validation that names the field and shows a corrected example (DESIGN.md
// §8), the module gate, the safe-tool wrapper, freshness before every read
// (DESIGN.md §5), the envelope and its token budget (seed 000), and the MCP
// transports (stdio, streamable HTTP).
//
// # Calling a tool
//
// Server.Call(ctx, name, rawJSONArgs) is the one entry point: the MCP
// handlers, `cos call` and the tests all go through it, so they answer
// byte-for-byte alike. A read-only tool's handler runs under the tailer's
// read lock after the tailer caught up with the log head, and its envelope
// carries meta.log_seq, the log position it reflects. A write tool appends
// to the log, waits until its own projections include the write, and
// answers with the post-write state read back from them.
//
// # Failures
//
// Every failure is an envelope with ok=false — never a JSON-RPC error: bad
// arguments (E_ARGUMENT), an unknown tool (E_UNKNOWN_TOOL with the nearest
// names), a disabled module (module_disabled), a panic (E_INTERNAL, with the
// stack in <state>/.mcp.log only).
package tools
