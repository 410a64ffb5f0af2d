package graph

// Stream is the log stream every graph event is appended to.
const Stream = "graph"

// Event types of the graph stream.
const (
	TypeFileExtracted = "graph.file_extracted"
	TypeFileRemoved   = "graph.file_removed"
	TypeNodesUpserted = "graph.nodes_upserted"
	TypeEdgesUpserted = "graph.edges_upserted"
	TypeNodesDeleted  = "graph.nodes_deleted"
	TypeEdgesDeleted  = "graph.edges_deleted"
	// TypeIndexStarted and TypeIndexFinished bracket an index run: the
	// first is appended with the run's first batch, the second after its
	// last. A start with no finish is a run that was killed part way: the
	// graph holds part of the tree.
	TypeIndexStarted  = "graph.index_started"
	TypeIndexFinished = "graph.index_finished"
)

// Node kinds. The kind is what tools filter on and what picks the default
// reference kinds of cos_graph_references (meta.default_kinds_picked,
// docs/envelope.md).
const (
	KindFile       = "file"
	KindFunction   = "function"
	KindMethod     = "method"
	KindClass      = "class"
	KindModule     = "module"
	KindExternal   = "external"
	KindDocFile    = "doc_file"
	KindHeading    = "heading"
	KindFolder     = "folder"
	KindConfig     = "config"
	KindDependency = "dependency"
	KindMCPServer  = "mcp_server"
	// KindEntrypoint is a way into the program: an HTTP route, a CLI
	// command, an MCP tool, a gRPC service, a message or event handler, a
	// WebSocket upgrade, main or init. Uid entry:<kind>:<path>::<name>,
	// metadata entry_kind (one of the Entry* constants) and, per kind,
	// method and route, command, tool, service or subject. Its handled_by
	// edge names the function that runs.
	KindEntrypoint = "entrypoint"
)

// Entry point kinds: the metadata entry_kind of a KindEntrypoint node and
// the <kind> of its uid.
const (
	EntryHTTP      = "http"
	EntryCLI       = "cli"
	EntryMCPTool   = "mcp_tool"
	EntryGRPC      = "grpc"
	EntryEvent     = "event"
	EntryWebSocket = "websocket"
	EntryMain      = "main"
	EntryInit      = "init"
)

// Edge types.
const (
	EdgeContains     = "contains"
	EdgeCalls        = "calls"
	EdgeImports      = "imports"
	EdgeLinksTo      = "links_to"
	EdgeCitesHeading = "cites_heading"
	EdgeInheritsFrom = "inherits_from"
	EdgeRequires     = "requires"
	EdgeDefines      = "defines"
	// EdgeImplements joins a named type to an interface it satisfies
	// (metadata method_set: "value" or "pointer").
	EdgeImplements = "implements"
	// EdgeReferences joins a function to a function or method it uses as a
	// value (passed, stored or returned, not called); in Python and
	// JavaScript/TypeScript also to a class it names without calling it
	// (isinstance, an annotation, an except clause).
	EdgeReferences = "references"
	// EdgeConstructs joins a function to a type it builds with a composite
	// literal.
	EdgeConstructs = "constructs"
	// EdgeHasParamType joins a function to a named type of one of its
	// parameters.
	EdgeHasParamType = "has_param_type"
	// EdgeAccessesField joins a function to the struct type whose field it
	// reads or writes (metadata fields: the field names).
	EdgeAccessesField = "accesses_field"
	// EdgeHandledBy joins an entry point to the function or method that
	// runs when it is entered (a route's handler, a command's run func).
	EdgeHandledBy = "handled_by"
)

// Node is one vertex of the graph.
type Node struct {
	UID   string `json:"uid"`
	Kind  string `json:"kind"`
	Label string `json:"label"`
	// Path is the repo-relative, slash-separated file the node lives in;
	// empty for stubs and packages.
	Path string `json:"path,omitempty"`
	// Line and EndLine are 1-based; 0 when unknown.
	Line    int `json:"line,omitempty"`
	EndLine int `json:"end_line,omitempty"`
	// Extractor is the id of the extractor (or "agent") that emitted it.
	Extractor string         `json:"extractor,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// Edge is one typed, directed link. Its identity is
// (Source, Target, Type, Extractor).
type Edge struct {
	Source    string `json:"source"`
	Target    string `json:"target"`
	Type      string `json:"type"`
	Extractor string `json:"extractor,omitempty"`
	// Line is the 1-based line of the reference in the source's file, 0 when
	// unknown.
	Line     int            `json:"line,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// EdgeKey is the identity of an edge.
type EdgeKey struct {
	Source, Target, Type, Extractor string
}

// Key returns the identity of e.
func (e Edge) Key() EdgeKey { return EdgeKey{e.Source, e.Target, e.Type, e.Extractor} }

// FileExtracted is the payload of graph.file_extracted: everything one
// extractor found in one file. It replaces what that extractor owned for Path
// (or, with Part ≥ 1, adds to it).
type FileExtracted struct {
	Path        string   `json:"path"`
	Extractor   string   `json:"extractor"`
	ContentHash string   `json:"content_hash"` // hex SHA-256 of the file's bytes
	Size        int64    `json:"size"`
	Nodes       []Node   `json:"nodes"`
	Edges       []Edge   `json:"edges"`
	ParseErrors []string `json:"parse_errors,omitempty"`
	// DurationMS is how long extraction took, for doctor's
	// slowest_extractions.
	DurationMS float64 `json:"duration_ms"`
	// Part numbers the events of a payload too large for one event: part 0
	// (absent) replaces what the extractor owned for Path, and parts 1, 2,
	// … that follow it in the same append add their nodes and edges to it.
	Part int `json:"part,omitempty"`
	// SymbolHashes maps the uid of each node of Nodes that spans lines of
	// Path to the first 16 hex digits of the SHA-256 of those lines' bytes
	// (Line through EndLine): the graph tells a symbol whose body changed
	// from one that only moved. Absent in events written before it existed.
	SymbolHashes map[string]string `json:"symbol_hashes,omitempty"`
}

// FileRemoved is the payload of graph.file_removed.
type FileRemoved struct {
	Path string `json:"path"`
}

// NodesUpserted is the payload of graph.nodes_upserted.
type NodesUpserted struct {
	Nodes []Node `json:"nodes"`
}

// EdgesUpserted is the payload of graph.edges_upserted.
type EdgesUpserted struct {
	Edges []Edge `json:"edges"`
}

// NodesDeleted is the payload of graph.nodes_deleted.
type NodesDeleted struct {
	UIDs []string `json:"uids"`
}

// EdgesDeleted is the payload of graph.edges_deleted.
type EdgesDeleted struct {
	Edges []EdgeKey `json:"edges"`
}

// IndexStarted is the payload of graph.index_started: an index run of the
// folder Root (absolute) began appending. Commit is the full commit id HEAD
// named when the run began, when Root is in a git work tree with a commit;
// Dirty says the files under Root then differed from that commit (modified,
// staged, deleted or untracked and not ignored). Targeted is the number of
// paths a targeted run looked at again (the watcher, read-your-edits); 0 is
// a run over the whole tree.
type IndexStarted struct {
	Root string `json:"root"`
	// Name is the root's name in the graph's paths (RootPath); "" is the
	// primary root.
	Name     string `json:"name,omitempty"`
	Commit   string `json:"commit,omitempty"`
	Dirty    bool   `json:"dirty,omitempty"`
	Targeted int    `json:"targeted,omitempty"`
}

// IndexCancelled is IndexFinished.Error of a run cancelled by its caller
// (an interrupt, an MCP client's cancel): not a failure, what it committed
// stays and the next index resumes after it.
const IndexCancelled = "cancelled"

// IndexFinished is the payload of graph.index_finished: the run of Root
// whose graph.index_started is at StartedSeq ended. Error is empty when it
// indexed the whole tree, else why it stopped early (what it appended
// before stays). FilesSeen is how many files the run covered (the tree's
// files git keeps, or the walk found); FilesChanged, FilesRemoved and
// Events count what it appended.
type IndexFinished struct {
	Root         string `json:"root"`
	Name         string `json:"name,omitempty"`
	StartedSeq   uint64 `json:"started_seq"`
	Error        string `json:"error,omitempty"`
	FilesSeen    int    `json:"files_seen,omitempty"`
	FilesChanged int    `json:"files_changed"`
	FilesRemoved int    `json:"files_removed"`
	Events       int    `json:"events"`
}

// IsSymbolKind reports whether nodes of kind are symbols, the code a task
// touches and a diff changes: functions, methods, classes (and types),
// headings, config keys — not files, folders, packages or external stubs.
func IsSymbolKind(kind string) bool {
	switch kind {
	case KindFunction, KindMethod, KindClass, KindHeading, KindConfig:
		return true
	}
	return false
}
