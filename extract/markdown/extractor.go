package markdown

import (
	"github.com/cos-dev/cos/extract/lang"
	"github.com/cos-dev/cos/graph"
)

// Extractor reads Markdown documents (graph.IsDocPath: .md, .markdown).
type Extractor struct{}

var _ lang.Extractor = Extractor{}

// Name returns lang.ExtractorMarkdown.
func (Extractor) Name() string { return lang.ExtractorMarkdown }

// Owns reports whether p is a document path (graph.IsDocPath).
func (Extractor) Owns(p string) bool { return graph.IsDocPath(p) }

// Declares returns true: a document's headings are declared in its scope,
// for the cites_heading edges of #anchors.
func (Extractor) Declares() bool { return true }

// Provides returns nil: a link watches the file it names
// (lang.FileWatchScope).
func (Extractor) Provides(string) []string { return nil }

// Extract parses data as Markdown (see extract).
func (Extractor) Extract(r *lang.Result, data []byte, env *lang.Env) { extract(r, data, env) }
