// Package envelope is the wire contract of every cos_* tool answer
// (docs/envelope.md, docs/errors.md): the success and failure envelopes, the
// token budget that keeps an answer inside an agent's context, the error
// catalogue, and the safe-call wrapper that turns panics and unexpected
// errors into envelopes plus a server-side forensic record. It knows nothing
// about MCP: package tools builds every envelope, and the mcp transport
// sends Envelope.JSON() both as structuredContent and as the text content.
//
// # Basics
//
// A handler returns OK(data, meta, opts) or Fail(err):
//
//	{"ok":true,"data":{…,"meta":{"layer":"graph","log_seq":42,"tokens_estimated":310,"truncated":false}}}
//	{"ok":false,"error":{"category":"validation","code":"E_ARGUMENT","details":{},"message":"…","retryable":false}}
//
// data is always a JSON object. data.meta is written only here: the handler
// supplies Meta (layer, log_seq and the typed per-tool keys of ToolMeta); the
// trimmer adds tokens_estimated (script-aware: ASCII about 4 characters per
// token, any other character one token), truncated (true iff something was
// cut), the truncated_* markers and envelope_unshrinkable.
//
// Failures carry a Code from one catalogue (code.go), each code with one
// Category whose default sets "retryable" (category.go); Error.WithRetryable
// overrides it for one call.
//
// # Token budget
//
// Sizes are token-normalised, max(bytes, tokens×4), so a CJK answer trims at
// the real budget. The default budget is 32,000 (DefaultBudgetChars);
// {nodes, edges} bodies are cut to it by a coherent subgraph trim
// (subgraph.go), or to the 5,000,000 ceiling without an agent budget
// (Options.NoBudget, for browser routes, which skips the ladder); a tool may
// ask for a larger budget for one answer (ToolMeta.BudgetChars). The ladder
// is described in budget.go.
// Trimming runs on the decoded generic tree, with per-element costs that add
// up exactly to the serialized size (cost.go); it never cuts bytes and never
// splits a UTF-8 sequence.
//
// # Caveats
//
// OK encodes a struct body with encoding/json and decodes it back with its
// own decoder (decode.go, equivalent to a Decoder with UseNumber, fuzzed
// against it). Top-level trimmable lists stay encoded until an element is
// needed (lazy.go), so dropped elements are never decoded; for a large
// struct body the json.Marshal, not the trim, is the cost. A body that is
// already a generic map[string]any skips the round trip. Lists are trimmed
// at the top level of data only; long strings anywhere (the containers on
// their path are copied first, never modified). The JSON the envelope emits does not HTML-escape
// '<', '>' and '&'.
package envelope
