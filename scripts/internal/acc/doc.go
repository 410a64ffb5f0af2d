// Package acc holds what the two accuracy harnesses, scripts/accuracy (Go,
// against the SSA call graph) and scripts/langaccuracy (Python, TypeScript
// and JavaScript, against SCIP indexers), do the same way: the command's
// exit statuses, the -json report's header, the site, ratio and edge-note
// records of a comparison, and the Markdown formatting of shares, counts
// and tags.
//
// The oracles themselves stay apart: each harness maps its own truth to
// cos's uids, and neither shares code with the extractors it measures.
package acc
