package lang

import (
	"path"

	"github.com/cos-dev/cos/graph"
)

// Env is what extractors may consult besides the file itself: the
// repository's Go modules and the set of files (for relative imports).
type Env struct {
	Modules   *GoModules
	Files     map[string]bool // every indexed path
	PyModules map[string]string
	MaxDepth  int
	// PHPAutoload maps PHP namespace prefixes to folders (composer.json
	// psr-4 maps; see php.Autoload).
	PHPAutoload map[string][]string
	// CIncludePaths maps a C/C++ source to the in-tree folders its
	// compile_commands.json entry's -I/-iquote/-isystem flags name ("" →
	// every such folder); nil without a database (cfamily.IncludePaths).
	CIncludePaths map[string][]string
}

// FileNode adds the file's own node (doc:file: or code:file:).
func FileNode(fr *Result, meta map[string]any) string {
	uid := FileUID(fr.Path)
	kind := graph.KindFile
	if graph.IsDocPath(fr.Path) {
		kind = graph.KindDocFile
	}
	fr.AddNode(graph.Node{UID: uid, Kind: kind, Label: CleanString(path.Base(fr.Path)), Metadata: meta})
	return uid
}

// FileUID is the uid of a repository file, escaped and clamped.
func FileUID(p string) string { return graph.SourceFileUID(p) }

// FileWatchScope is the scope a document's link to the repo-relative
// path p watches: the file appearing or vanishing changes whether the link
// holds (a links_to edge or none).
func FileWatchScope(p string) string { return "file:" + p }
