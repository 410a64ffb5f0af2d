// Package markdown reads Markdown documents with goldmark: the doc:file:
// node, one doc:heading: node per heading (GitHub slugs), links_to edges to
// other documents and code files, and cites_heading edges for #anchors,
// resolved against the headings the target file declares.
package markdown
