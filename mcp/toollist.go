package mcp

import (
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/cos-dev/cos/tools"
)

// instructions is the initialize result's instructions: what every tool
// shares, said once instead of in each tool's description or schema, so
// the whole tools/list stays small enough for an agent to read.
var instructions = instructionsText + vocabularyText(tools.SharedVocabularies())

const instructionsText = "cos answers about this repository's code/doc graph, its task board and agent evidence. " +
	"Every answer is an envelope: {ok: true, data: {…, meta}} or {ok: false, error: {code, category, retryable, message, details}}; " +
	"retry only when retryable is true. meta.log_seq is the log position the answer reflects.\n" +
	"Every tool refuses an argument its inputSchema does not list: E_ARGUMENT names the accepted ones.\n" +
	"Start with cos_graph_resolve to find a node's uid. Arguments named uid, uid_or_name, root, source or target accept a uid, " +
	"a repo-relative path or a name; meta.resolved_match says how it matched (uid, path, exact, bare_name, " +
	"exact_case_insensitive, whole_label, words, typo, …): anything but uid, path, exact or bare_name is a guess to verify. " +
	"meta.completeness is exact, or lower_bound when callers may be missing (meta.completeness_reasons says why; " +
	"meta.fallback_files names the first syntax_fallback_files, cos_graph_doctor {list: syntax_fallback_files} pages them all).\n" +
	"Paged answers carry next_cursor (empty on the last page): send it back as cursor with the same other arguments; " +
	"limit is the page size used, count the rows the question matches, listed the rows on this page, walk_log_seq the log seq " +
	"every page reads: a later page is the data as of then, meta.events_since_walk counts the events since (start again " +
	"without cursor for fresh data); meta.page_cut budget says the budget held fewer rows than limit. A malformed cursor is E_CURSOR, one of other arguments STALE_CURSOR.\n" +
	"Tools marked readOnlyHint take at: a log seq (an integer ≥ 0) or an RFC 3339 time; the answer is the state " +
	"at that point, with meta.at_seq. The others refuse it.\n" +
	"Writes accept request_id (1–128 characters): a resend with the same request_id and arguments answers the first write " +
	"and writes nothing; other arguments under a used request_id are E_REQUEST_REUSE. A write that committed stays " +
	"committed: problems after it are meta.warnings, never a failure.\n" +
	"Graph reads re-index the files they name when those changed on disk (meta.index.stale_files says how many could not be).\n" +
	"Interface methods are nodes (code:function:<path>::<Iface>.<Method>): their references are the calls through the interface. " +
	"A method's references add those of the interface methods it implements (via implements, through that method); " +
	"An impact row's via is the edge type that reached it, through the node that edge points at (one hop closer, or the interface method dispatching to it); " +
	"Callers to depth N: impact with edge_types [calls] (static calls; dispatch: true, the default with implements, adds calls through interface methods). " +
	"build_excluded: in a Go file the build never compiles (build constraints, testdata/, _*/, .*/); references and impact leave those out, " +
	"count them in build_excluded_count and list them with include_build_excluded: true. " +
	"paths and exclude_paths keep or drop rows by file: repo-relative files, folders or globs (** any folders).\n"

// vocabularyText states each shared vocabulary once: its values and the
// arguments that take them.
func vocabularyText(vs []tools.Vocabulary) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "%s (%s): %s.\n", v.Name, v.Where, strings.Join(v.Values, ", "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// toolOf is the MCP tool for t: its name, title, description, input
// schema, output schema (the envelope with t's data fields) and hints.
func toolOf(t *tools.Tool) mcp.Tool {
	tool := mcp.NewToolWithRawSchema(t.Name, t.Description, t.InputSchema())
	mcp.WithToolTitle(t.Title)(&tool)
	mcp.WithRawOutputSchema(t.OutputSchema())(&tool)
	tool.Annotations = annotationsOf(t)
	return tool
}

// annotationsOf is t's tool hints, each sent only where it differs from
// the value MCP assumes when it is absent (readOnlyHint false,
// destructiveHint true, idempotentHint false, openWorldHint true): a read
// tool is {readOnlyHint: true, openWorldHint: false} (MCP reads
// destructive and idempotent only on a tool that writes); every cos tool
// is closed-world, it touches nothing but its repository and state folder.
func annotationsOf(t *tools.Tool) mcp.ToolAnnotation {
	a := mcp.ToolAnnotation{OpenWorldHint: mcp.ToBoolPtr(false)}
	if t.ReadOnly {
		a.ReadOnlyHint = mcp.ToBoolPtr(true)
		return a
	}
	if !t.Destructive {
		a.DestructiveHint = mcp.ToBoolPtr(false)
	}
	if t.Idempotent {
		a.IdempotentHint = mcp.ToBoolPtr(true)
	}
	return a
}
