package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// row is one commit's oracle and selection.
type row struct {
	commit              string
	oracle              *oracle
	sel                 *selection
	oracleTime, selTime time.Duration
}

// report prints one Markdown table: per commit and in total.
func report(w io.Writer, rows []row, withSel, verbose bool) {
	fmt.Fprintln(w, "| commit | changed lines | suite | oracle tests | selected (cos suite) | hits | recall | precision | cos index + changes |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	var oracleN, selN, hits, suite, commitsWith int
	var misses []string
	for _, r := range rows {
		o := r.oracle
		nOracle := len(o.covering)
		suite += o.suiteSize()
		oracleN += nOracle
		if nOracle > 0 {
			commitsWith++
		}
		if !withSel {
			fmt.Fprintf(w, "| %s | %d | %d | %d | | | | | |\n", r.commit[:12], o.ChangedLines, o.suiteSize(), nOracle)
			continue
		}
		h := 0
		for k := range o.covering {
			if r.sel.tests[k] {
				h++
			} else {
				misses = append(misses, fmt.Sprintf("%s %s: covers %s", r.commit[:12], k, strings.Join(first(o.covering[k], 4), ", ")))
			}
		}
		hits += h
		selN += len(r.sel.tests)
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d (%d) | %d | %s | %s | %s |\n", r.commit[:12], o.ChangedLines, o.suiteSize(), nOracle,
			len(r.sel.tests), r.sel.Suite, h, ratio(h, nOracle), ratio(h, len(r.sel.tests)), fmt.Sprintf("%s + %s", r.sel.indexTime.Round(100*time.Millisecond), (r.selTime-r.sel.indexTime).Round(100*time.Millisecond)))
		if verbose {
			var extra []string
			for k := range r.sel.tests {
				if _, ok := o.covering[k]; !ok {
					extra = append(extra, k.Name)
				}
			}
			slices.Sort(extra)
			fmt.Fprintf(w, "|   selected, covering no changed line: %s |\n", strings.Join(first(extra, 30), " "))
		}
	}
	if withSel {
		fmt.Fprintf(w, "| **total** (%d commits, %d with covering tests) | | %d | %d | %d | %d | **%s** | %s | |\n",
			len(rows), commitsWith, suite, oracleN, selN, hits, ratio(hits, oracleN), ratio(hits, selN))
		slices.Sort(misses)
		fmt.Fprintf(w, "\nMissed (%d):\n", len(misses))
		for _, m := range misses {
			fmt.Fprintln(w, "- "+m)
		}
	}
}

func ratio(a, b int) string {
	if b == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

func first(l []string, n int) []string {
	if len(l) > n {
		return append(l[:n:n], fmt.Sprintf("… %d more", len(l)-n))
	}
	return l
}
