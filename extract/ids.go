package extract

import "github.com/cos-dev/cos/extract/lang"

// Extractor ids recorded on every node and edge (graph.Node.Extractor) and on
// each graph.FileExtracted payload; the same as lang's, named here for the
// callers of Run.
const (
	ExtractorGo       = lang.ExtractorGo
	ExtractorPython   = lang.ExtractorPython
	ExtractorJSTS     = lang.ExtractorJSTS
	ExtractorMarkdown = lang.ExtractorMarkdown
	ExtractorConfig   = lang.ExtractorConfig
	ExtractorManifest = lang.ExtractorManifest
	ExtractorFolder   = lang.ExtractorFolder
	ExtractorFile     = lang.ExtractorFile
)
