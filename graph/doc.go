// Package graph defines the vocabulary of the code/doc graph: nodes, edges,
// the uid scheme (docs/uids.md) and the payloads of the graph.* events that
// extractors and agents append to the log.
//
// # Uids
//
//	code:file:<repo-relative-path>
//	code:function:<path>::<name>          Go methods: <path>::<Type>.<method>
//	code:class:<path>::<name>
//	code:module:<Go import path, or Python dotted module>
//	code:external:<name>                  unresolved call targets (metadata.stub = true)
//	doc:file:<repo-relative-path>
//	doc:heading:<path>#<slug>:<level>
//	folder:<repo-relative-path>
//	config:json:<path>#<json-pointer>
//	config:toml:<path>#<dotted-key>
//	config:yaml:<path>#<json-pointer>
//	npm:package:<name>  pypi:package:<name>  crates:package:<name>
//	composer:package:<vendor/name>  gem:package:<name>  nuget:package:<id>
//	swiftpm:package:<identity>
//	Go modules: go:package:<module path>
//	mcp:server:<name>
//	cos:hook:<name>  cos:identifier:<name>  accepted on write, kind external
//
// A uid containing "../", a backtick, whitespace or a control character is
// malformed (ValidateUID): the write tools and the graph reducer reject it.
// cos_graph_doctor reports a node whose uid or path holds one of these as
// malformed_uid_path.
//
// # Events
//
//	graph.file_extracted  FileExtracted: replaces what Extractor owned for Path
//	graph.file_removed    FileRemoved: drops what every extractor owned for Path
//	graph.nodes_upserted  NodesUpserted
//	graph.edges_upserted  EdgesUpserted
//	graph.nodes_deleted   NodesDeleted (also drops the nodes' edges)
//	graph.edges_deleted   EdgesDeleted
//
// All graph events go to the stream "graph".
package graph
