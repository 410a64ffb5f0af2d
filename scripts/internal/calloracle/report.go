package calloracle

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/cos-dev/cos/scripts/internal/acc"
)

// Result is one project's measurement.
type Result struct {
	Name     string `json:"name"`
	Language string `json:"language"`
	// Source says where the files come from (repository, commit, folders).
	Source        string         `json:"source"`
	Oracle        string         `json:"oracle"`
	OracleSeconds float64        `json:"oracle_seconds"`
	CosSeconds    float64        `json:"cos_seconds"`
	CosFiles      int            `json:"cos_files"`
	OracleFiles   int            `json:"oracle_files"`
	OracleStats   map[string]int `json:"oracle_stats"`
	Comparison    Comparison     `json:"comparison"`
}

// WriteResult prints one project's Markdown section; verbose lists missed,
// false-positive and unjudged edges.
func WriteResult(w io.Writer, r Result, verbose bool) {
	c := r.Comparison
	fmt.Fprintf(w, "\n### %s (%s) — cos %.2f s, %s %.1f s\n\n", r.Name, r.Language, r.CosSeconds, r.Oracle, r.OracleSeconds)
	fmt.Fprintf(w, "`%s`: the oracle analysed %d files, cos saw %d. Oracle: %d in-tree call sites (%s), %d sites of declarations outside the sources, %d calls it did not resolve. "+
		"Callee declarations: %s. Left out: %d in-tree sites whose caller is the callee, %d cos edges from files the oracle did not analyse, %d cos edges on lines where the oracle resolved no call (unjudged).\n\n",
		r.Source, r.OracleFiles, r.CosFiles, c.SiteTotal, countList(c.Sites), r.OracleStats["external"], r.OracleStats["unresolved"],
		countList(c.Mapped), c.SelfSites, c.Outside, c.Unjudged)
	for _, split := range Splits {
		writeTable(w, split, c.Tables[split])
		fmt.Fprintln(w)
	}
	if !verbose {
		return
	}
	for _, split := range Splits {
		for _, s := range c.Tables[split] {
			if split != SplitCategory && s.Row == RowAll {
				continue
			}
			if s.Truth > s.TP {
				fmt.Fprintf(w, "#### %s %s: missed %d of %d\n\n", split, s.Row, s.Truth-s.TP, s.Truth)
				writeNotes(w, s.Missed)
			}
			if s.Cos > s.CosTP {
				fmt.Fprintf(w, "#### %s %s: false positives %d of %d\n\n", split, s.Row, s.Cos-s.CosTP, s.Cos)
				writeNotes(w, s.FalsePos)
			}
		}
	}
	if len(c.UnjudgedNotes) > 0 {
		fmt.Fprintf(w, "#### unjudged cos edges: %d\n\n", c.Unjudged)
		writeNotes(w, c.UnjudgedNotes)
	}
}

func writeTable(w io.Writer, split string, ss []Score) {
	fmt.Fprintf(w, "| %s | truth | cos | TP | precision | recall |\n", split)
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	for _, s := range ss {
		fmt.Fprintf(w, "| %s | %d | %d | %d | %s | %s |\n", s.Row, s.Truth, s.Cos, s.TP, acc.Pct(s.Precision), acc.Pct(s.Recall))
	}
}

func writeNotes(w io.Writer, ns []acc.EdgeNote) {
	for _, n := range ns {
		sites := ""
		if n.Sites > 0 {
			sites = " (" + acc.Plural(n.Sites, "site") + ")"
		}
		fmt.Fprintf(w, "- %s%s %s → %s%s\n", n.Site, sites, short(n.Caller), short(n.Callee), acc.Bracket(n.Tags))
	}
	fmt.Fprintln(w)
}

// WriteSummary prints the project × category table.
func WriteSummary(w io.Writer, title string, rs []Result) {
	fmt.Fprintf(w, "\n### Summary: precision / recall of cos calls edges against %s\n\n", title)
	fmt.Fprintln(w, "| project | language | category: precision / recall | all | cos | oracle |")
	fmt.Fprintln(w, "|---|---|---|---:|---:|---:|")
	for _, r := range rs {
		var cats []string
		for _, s := range r.Comparison.Tables[SplitCategory] {
			if s.Row != RowAll {
				cats = append(cats, fmt.Sprintf("%s %s / %s", s.Row, acc.Pct(s.Precision), acc.Pct(s.Recall)))
			}
		}
		a := r.Comparison.All()
		fmt.Fprintf(w, "| %s | %s | %s | %s / %s | %.2f s | %.1f s |\n", r.Name, r.Language, strings.Join(cats, "; "), acc.Pct(a.Precision), acc.Pct(a.Recall), r.CosSeconds, r.OracleSeconds)
	}
}

// countList prints counts as "a 3, b 2", largest first.
func countList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// short drops a uid's prefix, marking classes.
func short(uid string) string {
	if rest, ok := strings.CutPrefix(uid, "code:class:"); ok {
		return rest + " (class)"
	}
	for _, p := range []string{"code:function:", "code:file:"} {
		if rest, ok := strings.CutPrefix(uid, p); ok {
			return rest
		}
	}
	return uid
}
