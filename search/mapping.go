package search

import (
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/single"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/cos-dev/cos/graph"
)

// Fields of an indexed node; the document id is the node's uid.
//
//	kind       keyword, stored      graph.Kind*, for kind filters
//	label      stored only          returned in Candidate
//	path       stored only          returned in Candidate
//	label_key  the whole label, lowercased (one term)
//	name_key   the bare names of nameKeys, lowercased (one term each)
//	name_exact the bare names of bareNames as they are, case included (one
//	           term each): the resolver's exact tier filters by it (format 4)
//	path_key   the whole path, lowercased (one term)
//	words      identifier analyzer over the label and the bare names, so
//	           a method labelled "splice" is found by "Char splice" too
const (
	fieldKind      = "kind"
	fieldLabel     = "label"
	fieldPath      = "path"
	fieldLabelKey  = "label_key"
	fieldNameKey   = "name_key"
	fieldNameExact = "name_exact"
	fieldPathKey   = "path_key"
	fieldWords     = "words"
)

// keyAnalyzer is the whole-string, lowercased analyzer of label_key and
// name_key, defined in each index's mapping.
const keyAnalyzer = "cos_key"

// newMapping returns the mapping of a new index: a static document mapping
// with the fields above and nothing dynamic.
func newMapping() mapping.IndexMapping {
	im := bleve.NewIndexMapping()
	if err := im.AddCustomAnalyzer(keyAnalyzer, map[string]interface{}{
		"type":          custom.Name,
		"tokenizer":     single.Name,
		"token_filters": []string{lowercase.Name},
	}); err != nil {
		panic("search: key analyzer: " + err.Error()) // static definition
	}
	field := func(analyzer string, index, store bool) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzer
		f.Index = index
		f.Store = store
		f.IncludeInAll = false
		f.IncludeTermVectors = false
		f.DocValues = false
		return f
	}
	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(fieldKind, field(keyword.Name, true, true))
	doc.AddFieldMappingsAt(fieldLabel, field(keyword.Name, false, true))
	doc.AddFieldMappingsAt(fieldPath, field(keyword.Name, false, true))
	doc.AddFieldMappingsAt(fieldLabelKey, field(keyAnalyzer, true, false))
	doc.AddFieldMappingsAt(fieldNameKey, field(keyAnalyzer, true, false))
	doc.AddFieldMappingsAt(fieldNameExact, field(keyword.Name, true, false))
	doc.AddFieldMappingsAt(fieldPathKey, field(keyAnalyzer, true, false))
	doc.AddFieldMappingsAt(fieldWords, field(IdentifierAnalyzer, true, false))
	// No "_all" composite field: every query names its field.
	doc.AddSubDocumentMapping("_all", bleve.NewDocumentDisabledMapping())
	im.DefaultMapping = doc
	im.DefaultAnalyzer = keyword.Name
	im.StoreDynamic = false
	im.IndexDynamic = false
	im.DocValuesDynamic = false
	return im
}

// newDocument is what the index stores for n.
func newDocument(n graph.Node) map[string]interface{} {
	p := pathOf(n)
	words := []string{n.Label}
	if names := bareNames(n.UID); len(names) > 0 && names[0] != n.Label {
		words = append(words, names[0])
	}
	return map[string]interface{}{
		fieldKind:      kindOf(n),
		fieldLabel:     n.Label,
		fieldPath:      p,
		fieldLabelKey:  strings.ToLower(n.Label),
		fieldNameKey:   nameKeys(n.UID),
		fieldNameExact: bareNames(n.UID),
		fieldPathKey:   strings.ToLower(p),
		fieldWords:     words,
	}
}
