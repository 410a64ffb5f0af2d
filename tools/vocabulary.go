package tools

// Vocabulary is a list of legal values several tools share: the server
// states it once (the MCP initialize instructions) instead of in each
// tool's schema, whose parameters mark it SharedEnum.
type Vocabulary struct {
	// Name says what the values are, in a caller's words ("edge types").
	Name string
	// Where names the arguments and fields that take the values.
	Where  string
	Values []string
}

// SharedVocabularies returns the vocabularies tool schemas leave out: the
// graph's node kinds and edge types, and the fields of the compact form.
func SharedVocabularies() []Vocabulary {
	return []Vocabulary{
		{Name: "Node kinds", Where: "cos_graph_resolve kinds, a node's kind", Values: nodeKinds},
		{Name: "Edge types", Where: "edge_types, cos_graph_references kinds, an edge's type", Values: edgeTypes},
		{Name: "Compact fields", Where: "fields of cos_graph_references (not uid, depth) and cos_graph_impact (not source, type)", Values: compactFields},
	}
}
