package extract

import (
	"github.com/cos-dev/cos/extract/c"
	"github.com/cos-dev/cos/extract/config"
	"github.com/cos-dev/cos/extract/cpp"
	"github.com/cos-dev/cos/extract/csharp"
	"github.com/cos-dev/cos/extract/golang"
	"github.com/cos-dev/cos/extract/java"
	"github.com/cos-dev/cos/extract/jsts"
	"github.com/cos-dev/cos/extract/kotlin"
	"github.com/cos-dev/cos/extract/lang"
	"github.com/cos-dev/cos/extract/manifest"
	"github.com/cos-dev/cos/extract/markdown"
	"github.com/cos-dev/cos/extract/php"
	"github.com/cos-dev/cos/extract/python"
	"github.com/cos-dev/cos/extract/ruby"
	"github.com/cos-dev/cos/extract/rust"
	"github.com/cos-dev/cos/extract/scala"
	"github.com/cos-dev/cos/extract/swift"
)

// extractors are the languages and formats Run reads, asked in this order
// whether they own a path; a file no extractor owns gets its file node
// only (ExtractorFile). Adding a language is adding its package and one
// line here. Order matters where two could own a path: manifests
// (package.json, pyproject.toml, …) before config files.
var extractors = []lang.Extractor{
	manifest.Extractor{},
	golang.Extractor{},
	python.Extractor{},
	jsts.Extractor{},
	c.Extractor{},
	cpp.Extractor{},
	rust.Extractor{},
	java.Extractor{},
	kotlin.Extractor{},
	php.Extractor{},
	ruby.Extractor{},
	csharp.Extractor{},
	scala.Extractor{},
	swift.Extractor{},
	markdown.Extractor{},
	config.Extractor{},
}

// extractorOf returns the extractor that owns p, nil when none does.
func extractorOf(p string) lang.Extractor {
	for _, x := range extractors {
		if x.Owns(p) {
			return x
		}
	}
	return nil
}

// extractorFor returns the id of the extractor that owns p
// (ExtractorFile when none does).
func extractorFor(p string) string {
	if x := extractorOf(p); x != nil {
		return x.Name()
	}
	return lang.ExtractorFile
}

// declares reports whether the file at p contributes to the declarations
// table.
func declares(p string) bool {
	x := extractorOf(p)
	return x != nil && x.Declares()
}
