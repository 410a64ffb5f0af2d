package calloracle

import (
	"sort"
	"strconv"
	"strings"

	"github.com/cos-dev/cos/scripts/internal/acc"
)

// Splits of a comparison, in the order printed.
const (
	SplitCategory   = "category"
	SplitCalleeKind = "callee kind"
	SplitContext    = "context"
)

// Splits lists them.
var Splits = []string{SplitCategory, SplitCalleeKind, SplitContext}

// RowAll is the last row of the category split: every edge.
const RowAll = "all"

// Score is one row of a table.
type Score struct {
	Row       string  `json:"row"`
	Truth     int     `json:"truth"`
	Cos       int     `json:"cos"`
	TP        int     `json:"true_positives"`
	CosTP     int     `json:"cos_true_positives"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	// Missed are truth edges cos lacks, FalsePos cos edges the truth
	// lacks: the first ones by number of sites, then place.
	Missed   []acc.EdgeNote `json:"missed,omitempty"`
	FalsePos []acc.EdgeNote `json:"false_positives,omitempty"`
}

// Comparison is one project's figures.
type Comparison struct {
	// Tables holds one table a split (Splits).
	Tables map[string][]Score `json:"tables"`
	// Sites counts the oracle's in-tree call sites by category, and
	// SiteTotal all of them.
	Sites     map[string]int `json:"sites_by_category"`
	SiteTotal int            `json:"sites"`
	// Mapped counts the distinct callee declarations by how they mapped
	// (ByPlace, ByName, NoNode).
	Mapped map[string]int `json:"callees_mapped"`
	// SelfSites are in-tree sites whose caller and callee map to one uid.
	SelfSites int `json:"self_sites"`
	// Unjudged counts cos edges not in the truth on a line where the
	// oracle resolved no call; Outside cos edges from files the oracle did
	// not analyse. Both are left out of the scores.
	Unjudged      int            `json:"unjudged"`
	UnjudgedNotes []acc.EdgeNote `json:"unjudged_notes,omitempty"`
	Outside       int            `json:"outside"`
}

// truthEdge is one (caller, callee) pair of the truth.
type truthEdge struct {
	first Site
	sites int
	// vals holds, per split, the first site of each value.
	vals map[string]map[string]Site
}

// splitValues are a call's values in each split.
func splitValues(c Call) map[string]string {
	return map[string]string{SplitCategory: c.Category, SplitCalleeKind: c.CalleeKind, SplitContext: c.Context}
}

// Compare scores g against or; top bounds each list of edges.
func Compare(or *Oracle, g *Graph, top int) Comparison {
	m := NewMapper(g)
	cmp := Comparison{Tables: map[string][]Score{}, Sites: map[string]int{}, Mapped: map[string]int{}}
	truth := map[Pair]*truthEdge{}
	byLine := map[acc.Site][]Call{}
	seenDecl := map[string]bool{}
	for _, c := range or.Calls {
		k := acc.Site{File: c.Site.File, Line: c.Site.Line}
		byLine[k] = append(byLine[k], c)
		if c.Callee.External {
			continue
		}
		cmp.SiteTotal++
		cmp.Sites[c.Category]++
		callee, how := m.Callee(c.Callee)
		if dk := c.Callee.File + ":" + strconv.Itoa(c.Callee.Line) + ":" + c.Callee.Name; !seenDecl[dk] {
			seenDecl[dk] = true
			cmp.Mapped[how]++
		}
		caller := m.Caller(c)
		if caller == callee {
			cmp.SelfSites++
			continue
		}
		p := Pair{caller, callee}
		e := truth[p]
		if e == nil {
			e = &truthEdge{first: c.Site, vals: map[string]map[string]Site{}}
			truth[p] = e
		}
		e.sites++
		if siteLess(c.Site, e.first) {
			e.first = c.Site
		}
		for s, v := range splitValues(c) {
			if e.vals[s] == nil {
				e.vals[s] = map[string]Site{}
			}
			if old, ok := e.vals[s][v]; !ok || siteLess(c.Site, old) {
				e.vals[s][v] = c.Site
			}
		}
	}

	// cos's judged edges with the split values of their site.
	type cosEdge struct {
		site Site
		vals map[string]string
	}
	cos := map[Pair]cosEdge{}
	var unjudged []acc.EdgeNote
	for k, at := range g.Calls {
		if k.Caller == k.Callee {
			continue
		}
		if !or.Files[uidFile(k.Caller)] {
			cmp.Outside++
			continue
		}
		if _, ok := truth[k]; ok {
			cos[k] = cosEdge{site: at}
			continue
		}
		sites := byLine[acc.Site{File: at.File, Line: at.Line}]
		if len(sites) == 0 {
			cmp.Unjudged++
			unjudged = append(unjudged, acc.EdgeNote{Caller: k.Caller, Callee: k.Callee, Site: acc.Site{File: at.File, Line: at.Line}, Tags: []string{"no resolved call on the line"}})
			continue
		}
		pick := sites[0]
		name := calleeName(k.Callee)
		for _, c := range sites {
			if c.Callee.Name == name {
				pick = c
				break
			}
		}
		cos[k] = cosEdge{site: at, vals: splitValues(pick)}
	}
	cmp.UnjudgedNotes = acc.TopNotes(unjudged, top)

	for _, split := range Splits {
		rows := map[string]bool{}
		for _, e := range truth {
			for v := range e.vals[split] {
				rows[v] = true
			}
		}
		for _, ce := range cos {
			if ce.vals != nil {
				rows[ce.vals[split]] = true
			}
		}
		names := make([]string, 0, len(rows)+1)
		for r := range rows {
			names = append(names, r)
		}
		sort.Strings(names)
		if split == SplitCategory {
			names = append(names, RowAll)
		}
		var table []Score
		for _, row := range names {
			s := Score{Row: row}
			var missed, fps []acc.EdgeNote
			for k, e := range truth {
				at, ok := e.first, true
				if row != RowAll {
					at, ok = e.vals[split][row]
				}
				if !ok {
					continue
				}
				s.Truth++
				if _, hit := cos[k]; hit {
					s.TP++
					continue
				}
				var tags []string
				for _, t := range g.Edges[k] {
					tags = append(tags, "cos has "+t)
				}
				missed = append(missed, note(k, at, e.sites, tags))
			}
			for k, ce := range cos {
				if e, ok := truth[k]; ok {
					if _, has := e.vals[split][row]; row == RowAll || has {
						s.Cos++
						s.CosTP++
					}
					continue
				}
				if row != RowAll && ce.vals[split] != row {
					continue
				}
				s.Cos++
				fps = append(fps, note(k, ce.site, 0, nil))
			}
			s.Precision = acc.NewRatio(s.CosTP, s.Cos).Share
			s.Recall = acc.NewRatio(s.TP, s.Truth).Share
			s.Missed = acc.TopNotes(missed, top)
			s.FalsePos = acc.TopNotes(fps, top)
			table = append(table, s)
		}
		cmp.Tables[split] = table
	}
	return cmp
}

func note(k Pair, at Site, sites int, tags []string) acc.EdgeNote {
	return acc.EdgeNote{Caller: k.Caller, Callee: k.Callee, Site: acc.Site{File: at.File, Line: at.Line}, Sites: sites, Tags: tags}
}

func siteLess(a, b Site) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Col < b.Col
}

// calleeName is the name a call of uid is written with: its label's last
// segment (a class's own name).
func calleeName(uid string) string {
	_, label, _ := strings.Cut(uid, "::")
	return lastSegment(label)
}

// All returns the "all" row of the category table.
func (c Comparison) All() Score {
	for _, s := range c.Tables[SplitCategory] {
		if s.Row == RowAll {
			return s
		}
	}
	return Score{Row: RowAll, Precision: -1, Recall: -1}
}
