package extract

// Exported uid builders, for stages that add to the extractors' payloads
// (extract/scip) and must name nodes exactly as the extractors do.

// CodeUID returns the uid code:<what>:<path>::<name> of a declaration
// (what is "function" for functions and methods, "class" for classes),
// escaped and clamped as every extractor's uids are.
func CodeUID(what, path, name string) string { return codeUID(what, path, name) }

// ExternalUID returns the uid of the code:external: stub named name
// ("*.method" for a method on a receiver of unknown type).
func ExternalUID(name string) string { return externalUID(name) }

// FileUID returns the uid of the code:file: node of a repo-relative path.
func FileUID(path string) string { return fileUID(path) }
