package projections

// LastChangedSymbols returns the path of the last graph.file_extracted or
// graph.file_removed applied and the uids of the symbols it changed: a
// node whose symbol hash (graph.FileExtracted.SymbolHashes) differs from
// the one held, a node added to a file the graph already held, a node the
// event removed; sorted. It is nil after any other event. It satisfies
// tasks.ChangeSource.
func (g *Graph) LastChangedSymbols() (path string, uids []string) {
	return "", nil // implemented by the coordination change
}
