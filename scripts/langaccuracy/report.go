package main

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/cos-dev/cos/scripts/internal/acc"
)

// result is one target's measurement.
type result struct {
	Name           string      `json:"name"`
	Language       string      `json:"language"`
	Source         string      `json:"source"`
	Indexer        string      `json:"indexer"`
	CosSeconds     float64     `json:"cos_seconds"`
	IndexerSeconds float64     `json:"indexer_seconds"`
	SpeedUp        float64     `json:"speed_up"`
	CosFiles       int         `json:"cos_files"`
	Oracle         oracleStats `json:"oracle"`
	Comparison     comparison  `json:"comparison"`
}

// writeTarget prints one target's Markdown section.
func writeTarget(w io.Writer, r result, verbose bool) {
	c, o := r.Comparison, r.Oracle
	fmt.Fprintf(w, "\n### %s (%s) — cos %.2f s, %s %.1f s (%.0f×)\n\n", r.Name, r.Language, r.CosSeconds, r.Indexer, r.IndexerSeconds, r.SpeedUp)
	fmt.Fprintf(w, "`%s`: %d indexed documents, cos saw %d files. Mapping: %d of %d SCIP symbols defined in the target map to %d of the %d cos function/method/class nodes (%d aliases followed). "+
		"Truth: %d references (%d call sites); left out: %d import/export references, %d self references, %d call sites of local symbols, "+
		"%d call sites of %d in-target symbols with no cos node, %d call sites of symbols defined outside. "+
		"cos calls edges left out: %d from files the indexer did not index, %d at sites where the index has no global symbol and %d whose line does not name the callee (unjudged); "+
		"counted in \"all\" and the kind split only: %d to nodes no symbol maps to.\n\n",
		r.Source, o.Documents, r.CosFiles, o.MappedSymbols, o.Definitions, o.MappedUIDs, o.CosNodes, o.Aliases,
		o.References, o.CallSites, o.ImportRefs, o.SelfRefs, o.LocalCallSites, o.UnmappedCallSites, o.UnmappedSymbols, o.ExternalCallSites,
		c.CosOutside, c.Unjudged, c.Unclassified, c.Unknown)
	writeScores(w, "call site form", c.ByForm)
	fmt.Fprintln(w)
	writeScores(w, "callee kind", c.ByKind)
	fmt.Fprintf(w, "\nReferences recall (truth reference pairs, call or not, with any cos edge): %s of %d; pairs with no call site: %s of %d. "+
		"Recall of \"all\" counting the calls of in-target symbols with no cos node as misses: %s of %d.\n",
		acc.Pct(c.RefsRecall.Share), c.RefsRecall.Of, acc.Pct(c.NonCallRefsRecall.Share), c.NonCallRefsRecall.Of, acc.Pct(c.RecallWithNoNode.Share), c.RecallWithNoNode.Of)
	for _, s := range c.ByForm {
		if s.Row == string(catAll) {
			fmt.Fprintf(w, "\nMissed edges by what cos has for the pair: %s. False positives: %s.\n", acc.TagList(s.MissedTags, s.Truth-s.TP), acc.TagList(s.FalseTags, -1))
		}
	}
	if !verbose {
		return
	}
	for _, s := range c.ByForm {
		if s.Row == string(catAll) {
			continue
		}
		if s.Truth > s.TP {
			fmt.Fprintf(w, "\n#### %s: missed %d of %d\n\n", s.Row, s.Truth-s.TP, s.Truth)
			writeNotes(w, s.Missed)
		}
		if s.Cos > s.CosTP {
			fmt.Fprintf(w, "\n#### %s: false positives %d of %d\n\n", s.Row, s.Cos-s.CosTP, s.Cos)
			writeNotes(w, s.FalsePos)
		}
	}
	for _, s := range c.ByForm {
		if s.Row != string(catAll) || s.Cos == s.CosTP {
			continue
		}
		fmt.Fprintf(w, "\n#### all: false positives %d of %d (those to nodes no symbol maps to included)\n\n", s.Cos-s.CosTP, s.Cos)
		writeNotes(w, s.FalsePos)
	}
	if len(c.UnjudgedNotes) > 0 {
		fmt.Fprintf(w, "\n#### unjudged cos edges (no global symbol at the site, or the site not found): %d\n\n", c.Unjudged+c.Unclassified)
		writeNotes(w, c.UnjudgedNotes)
	}
	if len(c.RefsMissed) > 0 {
		fmt.Fprintf(w, "\n#### reference pairs with no call site and no cos edge: %d of %d\n\n", c.NonCallRefsRecall.Of-c.NonCallRefsRecall.Hit, c.NonCallRefsRecall.Of)
		writeNotes(w, c.RefsMissed)
	}
	if len(c.Unmapped) > 0 {
		fmt.Fprintf(w, "\n#### most called in-target symbols with no cos node (%d symbols, %d call sites)\n\n", o.UnmappedSymbols, o.UnmappedCallSites)
		for _, u := range c.Unmapped {
			fmt.Fprintf(w, "- %s (%s) `%s`\n", u.First, acc.Plural(u.Sites, "site"), shortSymbol(u.Symbol))
		}
	}
}

// writeNotes lists edges with their site and source line.
func writeNotes(w io.Writer, ns []edgeNote) {
	for _, n := range ns {
		sites := ""
		if n.Sites > 0 {
			sites = " (" + acc.Plural(n.Sites, "site") + ")"
		}
		fmt.Fprintf(w, "- %s%s %s → %s%s  \n  `%s`\n", n.Site, sites, shortUID(n.Caller), shortUID(n.Callee), acc.Bracket(n.Tags), strings.ReplaceAll(n.Code, "`", "'"))
	}
}

// writeScores prints one split as a table.
func writeScores(w io.Writer, by string, ss []score) {
	fmt.Fprintf(w, "| %s | truth | cos | TP | precision | recall |\n", by)
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	for _, s := range ss {
		fmt.Fprintf(w, "| %s | %d | %d | %d | %s | %s |\n", s.Row, s.Truth, s.Cos, s.TP, acc.Pct(acc.NewRatio(s.CosTP, s.Cos).Share), acc.Pct(s.Recall))
	}
}

// tempRoot matches the start of a symbol's descriptors up to the target's
// temporary folder (scip-typescript names files of a folder with no
// package.json by their absolute path).
var tempRoot = regexp.MustCompile(`^.*cos-langaccuracy-[0-9]+/target/`)

// shortSymbol drops a canonical symbol's scheme and empty package and the
// temporary folder.
func shortSymbol(sym string) string {
	if _, rest, ok := strings.Cut(sym, " . . . "); ok {
		sym = rest
	}
	return tempRoot.ReplaceAllString(sym, "")
}

// writeSummary prints the target × category table for README.md.
func writeSummary(w io.Writer, rs []result) {
	fmt.Fprintln(w, "\n### Summary: precision / recall of cos calls edges (Python, TypeScript, JavaScript) against SCIP indexers")
	fmt.Fprintln(w)
	var head, rule strings.Builder
	head.WriteString("| target | language |")
	rule.WriteString("|---|---|")
	for _, c := range categories {
		fmt.Fprintf(&head, " %s |", c)
		rule.WriteString("---:|")
	}
	head.WriteString(" all recall, callees with no node counted | references recall | cos | SCIP indexer | speed-up |")
	rule.WriteString("---:|---:|---:|---:|---:|")
	fmt.Fprintln(w, head.String())
	fmt.Fprintln(w, rule.String())
	for _, r := range rs {
		fmt.Fprintf(w, "| %s | %s |", r.Name, r.Language)
		for _, s := range r.Comparison.ByForm {
			fmt.Fprintf(w, " %s / %s |", acc.Pct(acc.NewRatio(s.CosTP, s.Cos).Share), acc.Pct(s.Recall))
		}
		fmt.Fprintf(w, " %s | %s | %.2f s | %.1f s | %.0f× |\n", acc.Pct(r.Comparison.RecallWithNoNode.Share), acc.Pct(r.Comparison.RefsRecall.Share), r.CosSeconds, r.IndexerSeconds, r.SpeedUp)
	}
}
