// Package query answers graph questions over an explicit state.View's
// graph: what depends on a node (impact, dependents), what a diff changed
// and how risky it is (changes, risk), who calls a node and how complete
// that list is (callers, references, completeness), what is wrong with the
// graph (doctor), where a rename must edit (rename sites), how two nodes
// are joined (path), which nodes look alike (similar), a node's
// neighbourhood (context), the flow from an entry point or function
// (trace), and the communities of the call graph (clusters, gonum's
// Louvain).
//
// # Basics
//
// Every function takes the projections.Graph of one view (or the view
// itself) and reads it only: call it inside state.Read, so the answer is
// consistent with one log position. Results are typed values whose JSON
// field names and order are those the cos_graph_* tools answer with; the
// tools package resolves arguments, pages listings and builds envelopes
// around them, as gopls keeps its features in golang apart from server.
//
// # Caveats
//
// Nothing here appends events, runs git or extracts files: a question that
// needs the files on disk or a base revision (changes, rename) is handed
// what it needs (a Diff, the bytes of a file) by its caller.
package query
