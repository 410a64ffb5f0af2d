package mcp

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/cos-dev/cos/tools"
)

// instructions is the initialize result's instructions: what every tool
// shares, said once instead of in each tool's description, so the whole
// tools/list stays small enough for an agent to read.
const instructions = "cos answers about this repository's code/doc graph, its task board and agent evidence. " +
	"Every answer is an envelope: {ok: true, data: {…, meta}} or {ok: false, error: {code, category, retryable, message, details}}; " +
	"retry only when retryable is true. meta.log_seq is the log position the answer reflects.\n" +
	"Start with cos_graph_resolve to find a node's uid. Arguments named uid, uid_or_name, root, source or target accept a uid, " +
	"a repo-relative path or a name; meta.resolved_match says how it matched (uid, path, exact, bare_name, " +
	"exact_case_insensitive, whole_label, words, typo, …): anything but uid, path, exact or bare_name is a guess to verify.\n" +
	"Paged answers carry next_cursor (empty on the last page): send it back as cursor with the same other arguments; " +
	"a malformed cursor is E_CURSOR, one the data moved under is STALE_CURSOR (start again without it).\n" +
	"Writes accept request_id (1–128 characters): a resend with the same request_id and arguments answers the first write " +
	"and writes nothing; other arguments under a used request_id are E_REQUEST_REUSE. A write that committed stays " +
	"committed: problems after it are meta.warnings, never a failure.\n" +
	"Graph reads re-index the files they name when those changed on disk (meta.index.stale_files says how many could not be)."

// toolOf is the MCP tool for t: its name, title, description, input
// schema, output schema (the envelope with t's data fields) and hints.
func toolOf(t *tools.Tool) mcp.Tool {
	tool := mcp.NewToolWithRawSchema(t.Name, t.Description, t.InputSchema())
	for _, opt := range []mcp.ToolOption{
		mcp.WithToolTitle(t.Title),
		mcp.WithRawOutputSchema(t.OutputSchema()),
		mcp.WithReadOnlyHintAnnotation(t.ReadOnly),
		mcp.WithDestructiveHintAnnotation(t.Destructive),
		mcp.WithIdempotentHintAnnotation(t.Idempotent || t.ReadOnly),
		mcp.WithOpenWorldHintAnnotation(false),
	} {
		opt(&tool)
	}
	return tool
}
