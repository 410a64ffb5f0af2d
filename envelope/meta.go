package envelope

// Keys of data.meta (docs/envelope.md, data.meta). The envelope
// code owns every one of them; a handler cannot set them except through
// Meta and ToolMeta.
const (
	KeyLayer                = "layer"
	KeyLogSeq               = "log_seq"
	KeyTokensEstimated      = "tokens_estimated"
	KeyTruncated            = "truncated"
	KeyTruncatedEdgesByType = "truncated_edges_by_type"
	KeyTruncatedStrings     = "truncated_string_fields"
	KeyTruncatedSubgraph    = "truncated_subgraph"
	KeyUnshrinkable         = "envelope_unshrinkable"

	KeyResolvedFrom            = "resolved_from"
	KeySourceResolvedFrom      = "source_resolved_from"
	KeyTargetResolvedFrom      = "target_resolved_from"
	KeyResolvedMatch           = "resolved_match"
	KeySourceResolvedMatch     = "source_resolved_match"
	KeyTargetResolvedMatch     = "target_resolved_match"
	KeyDefaultKindsPicked      = "default_kinds_picked"
	KeyNodeKind                = "node_kind"
	KeySemanticScope           = "semantic_scope"
	KeyFixableCategories       = "fixable_categories"
	KeyInformationalCategories = "informational_categories"
	KeyCompleteness            = "completeness"
	KeyCompletenessReasons     = "completeness_reasons"
	KeyIntegrity               = "integrity"
	KeyWarnings                = "warnings"
	KeyIndex                   = "index"
	KeyAtSeq                   = "at_seq"
	KeyPageCut                 = "page_cut"
	KeyPageBudgetChars         = "page_budget_chars"
	KeyFallbackFiles           = "fallback_files"
	KeyEventsSinceWalk         = "events_since_walk"

	// keyMeta is the key of the meta block inside data.
	keyMeta = "meta"
	// keyEdgesByType is the dict-of-lists body key trimmed after the list keys.
	keyEdgesByType = "edges_by_type"
	// keyNodes and keyEdges make a body graph-export shaped when both hold lists.
	keyNodes = "nodes"
	keyEdges = "edges"
	// keyNode is never shortened by the string stage: it is the caller's
	// root identity.
	keyNode = "node"
)

// TrimmableListKeys are the body keys the ladder shrinks, in ladder order
// (docs/envelope.md, the ladder). Each trimmed key K adds
// truncated_K_from and truncated_K_to to meta. Only top-level keys of data
// are trimmed.
var TrimmableListKeys = []string{
	"results",
	"neighbours",
	"references",
	"edges", // before nodes: the caller asked for nodes, edges are the tail
	"nodes",
	"processes",
	"call_sites",
	"import_sites",
	"doc_references",
	"test_references",
	"string_literals",
	"external_targets",
	"branches",
	"steps",
	"http_routes",
	"mcp_tools",
	"grpc_endpoints",
	"event_handlers",
	"websocket",
	"nodes_top",
	"samples",
	"rows",
	"entries",
	"cycles",
	"untested",
	"dead",
	"uids", // cos_graph_upsert: the uids written, which the caller sent
}

// TruncatedFromKey returns "truncated_<key>_from".
func TruncatedFromKey(key string) string { return "truncated_" + key + "_from" }

// TruncatedToKey returns "truncated_<key>_to".
func TruncatedToKey(key string) string { return "truncated_" + key + "_to" }

// Layers for meta.layer: graph, tasks, metrics, health and audit are used
// today; memory, docs, routing and learning are reserved (only docs has a
// constant, unexported: the tests use it).
const (
	layerDocs    = "docs"
	LayerTasks   = "tasks"
	LayerMetrics = "metrics"
	LayerGraph   = "graph"
	LayerHealth  = "health"
	LayerAudit   = "audit"
)

// Meta is what a handler may say about its answer. Everything else in
// data.meta (tokens_estimated, truncated, truncated_*,
// envelope_unshrinkable) is computed by OK.
type Meta struct {
	// Layer is meta.layer, one of the Layer* constants; omitted when empty.
	Layer string
	// LogSeq is meta.log_seq, the event-log sequence number the answer
	// reflects (0: the empty log). Always emitted.
	LogSeq uint64
	// Tool carries the per-tool keys (docs/envelope.md, data.meta).
	Tool ToolMeta
	// Integrity, when set, says the event log is damaged and the answer
	// reflects the state before the damage: meta.integrity is then
	// {"ok": false, "first_bad_seq": N, "events_after": M}. Nil (a log
	// that reads cleanly) omits the key.
	Integrity *Integrity
	// Index, when set, says how fresh a graph answer is: meta.index is
	// then {"root", "commit" (omitted when empty), "indexed_seq",
	// "stale_files", "state" (omitted when empty)}. Nil (the graph records no index run, or the answer
	// is not about the graph) omits the key.
	Index *Index
	// AtSeq, when set, says the answer is from the state at a past log
	// position (a read tool's `at` argument): meta.at_seq is the seq it
	// reflects. Nil (an answer from the live state) omits the key.
	AtSeq *uint64
	// EventsSinceWalk is meta.events_since_walk on a later page of a
	// paged listing: how many events committed after the log seq the walk
	// reads at (its first page's). 0 omits the key.
	EventsSinceWalk uint64
}

// Index describes the index a graph answer was read from, for meta.index.
type Index struct {
	// Root is the absolute folder of the root the answer's files belong
	// to (the first by name when they belong to several; the root last
	// indexed when the answer names no file); Name is that root's name,
	// "" (the key omitted) for the primary root, whose paths carry no
	// name. Roots names every root the answer's files belong to when
	// there are several (nil otherwise).
	Root  string
	Name  string
	Roots []string
	// Commit is the git commit HEAD named when that run began; "" (the
	// key omitted) outside git or when the run recorded none.
	Commit string
	// IndexedSeq is the seq of the last index run's graph.index_finished,
	// or of its graph.index_started while none is recorded.
	IndexedSeq uint64
	// StaleFiles counts the files the answer names whose content on disk
	// is not what the graph holds, after any re-index; 0 when the answer
	// is exact.
	StaleFiles int
	// State is IndexStateIndexing while the server's start index of a
	// folder is still filling the graph (the answer may miss what it has
	// not reached yet); "" (the key omitted) otherwise.
	State string
}

// IndexStateIndexing is Index.State while the graph is being filled.
const IndexStateIndexing = "indexing"

// Integrity describes a damaged event log for meta.integrity.
type Integrity struct {
	// FirstBadSeq is the first seq whose record could not be read (0: the
	// log's metadata).
	FirstBadSeq uint64
	// EventsAfter is the number of events the log holds after FirstBadSeq
	// (head seq − FirstBadSeq); the answer reflects none of them, nor
	// FirstBadSeq itself.
	EventsAfter uint64
	// SeenSeq, when set, is the newest seq the state folder had seen of a
	// log that now holds less (deleted, replaced or rebuilt empty):
	// meta.integrity.seen_seq. 0 omits the key.
	SeenSeq uint64
}

// ToolMeta is the typed channel for the per-tool keys of data.meta. A zero
// field is omitted from meta.
type ToolMeta struct {
	// ResolvedFrom: direct, path_prefix or fuzzy (uid-accepting tools).
	ResolvedFrom string
	// SourceResolvedFrom and TargetResolvedFrom: cos_graph_path's two ends.
	SourceResolvedFrom string
	TargetResolvedFrom string
	// ResolvedMatch: how the resolved node matched what was asked, one of
	// the resolver's match kinds (uid, path, exact, bare_name,
	// exact_case_insensitive, whole_label, words, typo, …); set beside
	// ResolvedFrom. Anything but uid, path, exact and bare_name is a guess.
	ResolvedMatch string
	// SourceResolvedMatch and TargetResolvedMatch: ResolvedMatch of
	// cos_graph_path's two ends.
	SourceResolvedMatch string
	TargetResolvedMatch string
	// DefaultKindsPicked: cos_graph_references; nil omits it.
	DefaultKindsPicked *bool
	// NodeKind: cos_graph_references, the kind of the resolved root node.
	NodeKind string
	// SemanticScope: cos_graph_impact, "transitive_depth_N".
	SemanticScope string
	// FixableCategories and InformationalCategories: cos_graph_doctor. Nil
	// omits the key; an empty non-nil slice is emitted as [].
	FixableCategories       []string
	InformationalCategories []string
	// Completeness: cos_graph_references, cos_graph_impact and
	// cos_graph_context, whether the callers and dependents the graph
	// records are all of them: "exact" or "lower_bound".
	Completeness string
	// CompletenessReasons: why an answer is a lower bound, reason → count
	// (func_value_calls, reflect_calls, syntax_fallback_files,
	// name_matched_nodes, inferred_files, unresolved_receivers,
	// inferred_sites; the tools document each). Nil omits the key.
	CompletenessReasons map[string]int
	// Warnings: what went wrong after a write committed (an export that
	// could not be written, …). The write stands and the answer is ok; a
	// retry would write nothing new. Nil omits the key.
	Warnings []string
	// PageBudgetChars, when > 0, says a paged answer holds fewer rows
	// than its limit because more would not fit in that budget
	// (token-normalised characters): meta.page_cut "budget" and
	// meta.page_budget_chars.
	PageBudgetChars int
	// FallbackFiles: the first Go files (sorted paths) read by syntax only
	// when completeness_reasons has syntax_fallback_files; nil omits it.
	FallbackFiles []string
	// BudgetChars, when > 0, is the budget the caller asked for with an
	// argument (cos_graph_export's max_chars), in token-normalised
	// characters: it replaces the agent budget for this answer, up to the
	// subgraph ceiling. Ignored without a budget (Options.NoBudget). Never
	// written to meta.
	BudgetChars int
}

// boolPtr returns &b, for ToolMeta.DefaultKindsPicked.
func boolPtr(b bool) *bool { return &b }

// generic returns the handler-supplied part of meta as a generic map.
func (m Meta) generic() map[string]any {
	out := map[string]any{KeyLogSeq: m.LogSeq}
	if m.Layer != "" {
		out[KeyLayer] = m.Layer
	}
	if m.Integrity != nil {
		out[KeyIntegrity] = map[string]any{
			"ok":            false,
			"first_bad_seq": m.Integrity.FirstBadSeq,
			"events_after":  m.Integrity.EventsAfter,
		}
		if m.Integrity.SeenSeq != 0 {
			out[KeyIntegrity].(map[string]any)["seen_seq"] = m.Integrity.SeenSeq
		}
	}
	if m.Index != nil {
		idx := map[string]any{
			"root":        m.Index.Root,
			"indexed_seq": m.Index.IndexedSeq,
			"stale_files": m.Index.StaleFiles,
		}
		if m.Index.Commit != "" {
			idx["commit"] = m.Index.Commit
		}
		if m.Index.Name != "" {
			idx["root_name"] = m.Index.Name
		}
		if len(m.Index.Roots) > 1 {
			idx["roots"] = m.Index.Roots
		}
		if m.Index.State != "" {
			idx["state"] = m.Index.State
		}
		out[KeyIndex] = idx
	}
	if m.AtSeq != nil {
		out[KeyAtSeq] = *m.AtSeq
	}
	if m.EventsSinceWalk > 0 {
		out[KeyEventsSinceWalk] = m.EventsSinceWalk
	}
	t := m.Tool
	for k, v := range map[string]string{
		KeyResolvedFrom:        t.ResolvedFrom,
		KeySourceResolvedFrom:  t.SourceResolvedFrom,
		KeyTargetResolvedFrom:  t.TargetResolvedFrom,
		KeyResolvedMatch:       t.ResolvedMatch,
		KeySourceResolvedMatch: t.SourceResolvedMatch,
		KeyTargetResolvedMatch: t.TargetResolvedMatch,
		KeyNodeKind:            t.NodeKind,
		KeySemanticScope:       t.SemanticScope,
		KeyCompleteness:        t.Completeness,
	} {
		if v != "" {
			out[k] = v
		}
	}
	if t.DefaultKindsPicked != nil {
		out[KeyDefaultKindsPicked] = *t.DefaultKindsPicked
	}
	if t.FixableCategories != nil {
		out[KeyFixableCategories] = stringsToAny(t.FixableCategories)
	}
	if t.InformationalCategories != nil {
		out[KeyInformationalCategories] = stringsToAny(t.InformationalCategories)
	}
	if t.CompletenessReasons != nil {
		reasons := make(map[string]any, len(t.CompletenessReasons))
		for k, n := range t.CompletenessReasons {
			reasons[k] = n
		}
		out[KeyCompletenessReasons] = reasons
	}
	if t.Warnings != nil {
		out[KeyWarnings] = stringsToAny(t.Warnings)
	}
	if t.PageBudgetChars > 0 {
		out[KeyPageCut], out[KeyPageBudgetChars] = "budget", t.PageBudgetChars
	}
	if t.FallbackFiles != nil {
		out[KeyFallbackFiles] = stringsToAny(t.FallbackFiles)
	}
	return out
}

func stringsToAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
