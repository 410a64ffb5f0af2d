package lang

// Extractor turns the files of one language or format into graph facts.
// The runner (package extract) asks each registered extractor in turn
// whether it owns a path; the first that does reads the file. An
// implementation holds no per-run state: Extract is called concurrently,
// for different files, from the runner's workers.
type Extractor interface {
	// Name is the extractor id ("go", "python", "jsts", …) recorded on the
	// file's graph.FileExtracted payload and on every node and edge the
	// extractor makes (Result.Extractor, graph.Node.Extractor).
	Name() string
	// Owns reports whether the extractor reads the file at p, a
	// repository-relative, slash-separated path; it decides by the name
	// alone (extension or file name), never by the content.
	Owns(p string) bool
	// Declares reports whether the extractor's files put names in the
	// declarations table (Result.Decl) that other files' references are
	// resolved against. The runner parses an unchanged file of such an
	// extractor for its declarations when the cache has none, and
	// re-extracts the dependents of a file whose declarations changed.
	Declares() bool
	// Provides returns the scopes a new file at p satisfies besides
	// FileWatchScope(p): the "missing:…" scopes an import that looked for
	// such a file in vain recorded with a RefWatch reference, so that
	// adding the file re-extracts its importers. Nil for languages whose
	// imports do not name files.
	Provides(p string) []string
	// Extract reads one file's content into r (whose Path, Extractor,
	// Hash and Size are set): its nodes and edges, the references to
	// resolve against the declarations table once every file is read
	// (r.Refs), and what it declares (r.Decl, for an extractor that
	// Declares). It never fails: what cannot be parsed becomes
	// r.ParseError and whatever was found is kept. It must not modify
	// data nor keep r, data or env after returning. It takes no context:
	// an extraction does no I/O, and the runner bounds its time
	// (Options.FileTimeout of package extract) from outside.
	Extract(r *Result, data []byte, env *Env)
}
