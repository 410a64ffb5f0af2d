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
// Category whose default sets "retryable" (category.go).
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
// OK converts a typed body (structs, typed lists and maps) straight into the
// generic tree it trims, with reflection, into what encoding/json's bytes
// would decode to (typed.go), and serializes the trimmed tree once.
// Top-level trimmable lists are converted one element at a time as the
// trim reaches them, so dropped elements are never converted. A body holding
// what the conversion does not mirror (a json.Marshaler, []byte, …) is
// encoded with encoding/json and decoded back with OK's own decoder
// (decode.go, equivalent to a Decoder with UseNumber, fuzzed against it),
// its top-level trimmable lists left encoded until needed (lazy.go): the
// same bytes either way. A body that is already a generic map[string]any
// skips both. Lists are trimmed
// at the top level of data only; long strings anywhere (the containers on
// their path are copied first, never modified). The JSON the envelope emits does not HTML-escape
// '<', '>' and '&'.
package envelope
