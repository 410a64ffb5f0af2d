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
	// Foreign holds the files of the state folder's other roots by their
	// graph path there (graph.RootedPath: "lib//src/x.ts", "//a.py" for
	// the primary root); nil with one root.
	Foreign map[string]bool
	// JSPackages maps an npm package name to the package.json that
	// declares it, in this tree or in another root (JSPackage); nil when
	// none does.
	JSPackages map[string]JSPackage
	// TSPaths are the tsconfig.json path mappings of the tree (TSPaths);
	// nil without any.
	TSPaths []TSPathMap
}

// JSPackage is a package.json with a name: Dir is its folder's graph
// path ("" the tree's top, "lib//packages/a" in another root); Exports
// maps a subpath ("." or "./util", or a pattern "./*") to the files it
// names, source-like conditions first; Entries are its source, module,
// main and types fields in that order.
type JSPackage struct {
	Dir     string
	Exports map[string][]string
	Entries []string
}

// TSPathMap is one compilerOptions.paths entry of a tsconfig.json: Pattern
// ("@app/*", "utils") and the graph paths it maps to, each with at most
// one '*' (resolved against baseUrl, or the tsconfig's folder). Dir is the
// folder of the tsconfig.json that declares it (its files use it).
type TSPathMap struct {
	Dir     string
	Pattern string
	Targets []string
}

// Exists reports whether the graph path p is a file of this tree or of
// another root (Foreign).
func (e *Env) Exists(p string) bool { return e.Files[p] || e.Foreign[p] }

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
