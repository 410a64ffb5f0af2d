package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/cos-dev/cos/scripts/internal/acc"
)

// result is one target's measurement.
type result struct {
	Name          string         `json:"name"`
	Dir           string         `json:"dir"`
	Env           []string       `json:"env,omitempty"`
	CosSeconds    float64        `json:"cos_seconds"`
	OracleSeconds float64        `json:"oracle_seconds"`
	CosFiles      int            `json:"cos_files"`
	CosExtraction map[string]int `json:"cos_go_files_by_extraction"`
	Oracle        oracleStats    `json:"oracle"`
	Comparison    comparison     `json:"comparison"`
}

// writeTarget prints one target's Markdown section.
func writeTarget(w io.Writer, r result, verbose bool) {
	c := r.Comparison
	fmt.Fprintf(w, "\n### %s — cos extraction %.1f s, oracle %.1f s\n\n", r.Name, r.CosSeconds, r.OracleSeconds)
	env := ""
	if len(r.Env) > 0 {
		env = " with " + strings.Join(r.Env, " ")
	}
	fmt.Fprintf(w, "`%s`%s. cos: %d files, Go files by extraction: %s; %d calls edges from files outside the build left out. "+
		"Oracle: %d packages (test variants included), %d functions, %d static / %d interface / %d dynamic call sites, %d load errors.\n\n",
		r.Dir, env, r.CosFiles, extractionList(r.CosExtraction), c.CosOutside,
		r.Oracle.Packages, r.Oracle.Functions, r.Oracle.StaticSites, r.Oracle.InvokeSites, r.Oracle.DynamicSites, r.Oracle.LoadErrors)
	fmt.Fprintln(w, "| category | oracle | cos | TP | precision | recall |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	for _, s := range c.Scores {
		fmt.Fprintf(w, "| %s | %d | %d | %d | %s | %s |\n", s.Category.title(), s.Oracle, s.Cos, s.TP, acc.Pct(s.Precision), acc.Pct(s.Recall))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| also | share | of |")
	fmt.Fprintln(w, "|---|---:|---:|")
	fmt.Fprintf(w, "| interface call sites with an edge to the interface method (interfaces in the folder) | %s | %d sites |\n", acc.Pct(c.IfaceSitesInTree.Share), c.IfaceSitesInTree.Of)
	fmt.Fprintf(w, "| interface call sites with an edge to the interface method (every named interface) | %s | %d sites |\n", acc.Pct(c.IfaceSitesAll.Share), c.IfaceSitesAll.Of)
	fmt.Fprintf(w, "| references recall: a callee's oracle callers with a cos calls edge, averaged over all callees | %s | %d callees |\n", acc.Pct(c.RefsRecall.Share), c.RefsRecall.Of)
	fmt.Fprintf(w, "| interface dispatch (CHA) cos can follow: calls → interface method + implements | %s | %d edges |\n", acc.Pct(c.Dispatch.Share), c.Dispatch.Of)
	for _, s := range c.Scores {
		if s.Category == catAll {
			fmt.Fprintf(w, "\nMissed edges by what the source shows at their sites: %s.\n", acc.TagList(s.MissedTags, 0))
		}
	}
	if r.Oracle.StaticCGMissing > 0 || r.Oracle.CHAInvokeMissing > 0 {
		fmt.Fprintf(w, "\n**Oracle self-check failed**: %d static.CallGraph edges and %d CHA invoke sites in the folder were not found by the walk.\n",
			r.Oracle.StaticCGMissing, r.Oracle.CHAInvokeMissing)
	}
	if !verbose {
		return
	}
	fmt.Fprintf(w, "\nOracle: static.CallGraph reaches %s of the walk's in-tree static edges (%d edges; it roots neither closures passed as values nor uncalled methods of generic types).\n",
		acc.Pct(r.Oracle.StaticCGShare), r.Oracle.StaticCGEdges)
	for _, n := range r.Oracle.LoadErrorNotes {
		fmt.Fprintf(w, "- load error: %s\n", n)
	}
	for _, s := range c.Scores {
		if s.Category == catAll {
			continue
		}
		fmt.Fprintf(w, "\n#### %s: missed %d of %d (by tag: %s)\n", s.Category.title(), s.Oracle-s.TP, s.Oracle, acc.TagList(s.MissedTags, 0))
		if len(s.Missed) > 0 {
			fmt.Fprintln(w)
		}
		for _, n := range s.Missed {
			fmt.Fprintf(w, "- %s (%s) %s → %s%s\n", n.Site, acc.Plural(n.Sites, "site"), shortUID(n.Caller), shortUID(n.Callee), acc.Bracket(n.Tags))
		}
		fmt.Fprintf(w, "\n#### %s: false positives %d of %d\n", s.Category.title(), s.Cos-s.TP, s.Cos)
		if len(s.FalsePos) > 0 {
			fmt.Fprintln(w)
		}
		for _, n := range s.FalsePos {
			fmt.Fprintf(w, "- %s %s → %s\n", n.Site, shortUID(n.Caller), shortUID(n.Callee))
		}
	}
	if len(c.DispatchMissed) > 0 {
		fmt.Fprintf(w, "\n#### implements edges missing for interface dispatch (type → interface, dispatch edges blocked, first call site)\n\n")
		for _, n := range c.DispatchMissed {
			fmt.Fprintf(w, "- %s → %s (%s, e.g. %s)\n", shortUID(n.Caller), shortUID(n.Callee), acc.Plural(n.Sites, "edge"), n.Site)
		}
	}
	if c.Unknown > 0 {
		fmt.Fprintf(w, "\n#### cos edges to callees no compiled file declares: %d (in \"all\" only)\n\n", c.Unknown)
		for _, n := range c.UnknownNotes {
			fmt.Fprintf(w, "- %s %s → %s\n", n.Site, shortUID(n.Caller), shortUID(n.Callee))
		}
	}
}

func extractionList(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// writeSummary prints the repository × category table.
func writeSummary(w io.Writer, rs []result) {
	fmt.Fprintln(w, "\n### Summary: precision / recall of Go calls edges against the SSA call graph")
	fmt.Fprintln(w)
	var head, rule strings.Builder
	head.WriteString("| repository |")
	rule.WriteString("|---|")
	for _, c := range categories {
		fmt.Fprintf(&head, " %s |", shortTitle(c))
		rule.WriteString("---:|")
	}
	head.WriteString(" interface sites with edge | references recall | dispatch (CHA) | cos time | oracle time |")
	rule.WriteString("---:|---:|---:|---:|---:|")
	fmt.Fprintln(w, head.String())
	fmt.Fprintln(w, rule.String())
	for _, r := range rs {
		fmt.Fprintf(w, "| %s |", r.Name)
		for _, s := range r.Comparison.Scores {
			fmt.Fprintf(w, " %s / %s |", acc.Pct(s.Precision), acc.Pct(s.Recall))
		}
		fmt.Fprintf(w, " %s | %s | %s | %.1f s | %.1f s |\n", acc.Pct(r.Comparison.IfaceSitesInTree.Share), acc.Pct(r.Comparison.RefsRecall.Share), acc.Pct(r.Comparison.Dispatch.Share), r.CosSeconds, r.OracleSeconds)
	}
}

func shortTitle(c category) string {
	switch c {
	case catFunction:
		return "functions"
	case catMethod:
		return "methods"
	case catGeneric:
		return "generic"
	case catInterface:
		return "interface"
	case catAll:
		return "all calls"
	}
	return string(c)
}
