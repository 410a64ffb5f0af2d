package main

import (
	"strings"

	"github.com/cos-dev/cos/scripts/internal/acc"
)

// score is one category's comparison.
type score struct {
	Category  category `json:"category"`
	Oracle    int      `json:"oracle"`
	Cos       int      `json:"cos"`
	TP        int      `json:"true_positives"`
	Precision float64  `json:"precision"`
	Recall    float64  `json:"recall"`
	// Missed are the oracle's edges cos lacks, FalsePos cos's edges the
	// oracle lacks, the first ones by number of sites then place.
	Missed   []edgeNote `json:"missed,omitempty"`
	FalsePos []edgeNote `json:"false_positives,omitempty"`
	// MissedTags counts the missed edges by source tag.
	MissedTags map[string]int `json:"missed_tags,omitempty"`
}

// edgeNote, ratio and site are the shared records of both harnesses.
type (
	edgeNote = acc.EdgeNote
	ratio    = acc.Ratio
	site     = acc.Site
)

// comparison is one folder's figures.
type comparison struct {
	Scores []score `json:"scores"`
	// IfaceSitesInTree: interface call sites of interfaces declared in
	// the folder with a cos edge from their caller to the interface
	// method; IfaceSitesAll: the same over every named interface (an
	// interface outside the folder is a code:external: stub).
	IfaceSitesInTree ratio `json:"iface_sites_in_tree"`
	IfaceSitesAll    ratio `json:"iface_sites_all"`
	// RefsRecall is, averaged over the in-tree callees with at least one
	// oracle caller, the share of their oracle callers cos has a calls
	// edge from.
	RefsRecall ratio `json:"refs_recall"`
	// Dispatch is the share of in-tree CHA dispatch edges (caller →
	// concrete method through an interface) that cos can follow: a calls
	// edge to the interface method and an implements edge from the
	// concrete type to the interface.
	Dispatch ratio `json:"dispatch"`
	// DispatchMissed are the missing implements edges (Caller: the type,
	// Callee: the interface) that block the most dispatch edges (Sites),
	// most first; a missing calls edge to the interface method is already
	// in the interface category.
	DispatchMissed []edgeNote `json:"dispatch_missed,omitempty"`
	// Unknown counts cos calls edges to a code:function: uid that no
	// compiled file declares (a wrong guess, or a declaration left out of
	// the build); UnknownNotes are the first ones. They count in "all".
	Unknown      int        `json:"unknown_callee"`
	UnknownNotes []edgeNote `json:"unknown_callee_notes,omitempty"`
	// CosOutside counts cos calls edges from files no loaded package
	// compiles (other platforms' files, testdata), left out of the scores.
	CosOutside int `json:"cos_outside_build"`
}

// compare scores a cos graph against the oracle; top bounds the miss and
// false-positive lists.
func compare(or *oracle, g *cosGraph, top int) comparison {
	var cmp comparison
	cosCat := map[pair]category{}
	for k := range g.Calls {
		if !or.Files[uidFile(k.Caller)] {
			cmp.CosOutside++
			continue
		}
		c, ok := or.Decls[k.Callee]
		if !ok {
			c = catUnknown
			cmp.Unknown++
			cmp.UnknownNotes = append(cmp.UnknownNotes, edgeNote{Caller: k.Caller, Callee: k.Callee, Site: g.Calls[k].Site})
		}
		cosCat[k] = c
	}
	cmp.UnknownNotes = acc.TopNotes(cmp.UnknownNotes, top)
	for _, c := range categories {
		s := score{Category: c, MissedTags: map[string]int{}}
		var missed []edgeNote
		for k, e := range or.Edges {
			if c != catAll && e.Category != c {
				continue
			}
			s.Oracle++
			if _, ok := cosCat[k]; ok {
				s.TP++
				continue
			}
			tags := e.Tags.names()
			for _, t := range tags {
				s.MissedTags[t]++
			}
			missed = append(missed, edgeNote{Caller: k.Caller, Callee: k.Callee, Site: e.First, Sites: e.Sites, Tags: tags})
		}
		var fps []edgeNote
		for k, kc := range cosCat {
			if c != catAll && kc != c {
				continue
			}
			s.Cos++
			if _, ok := or.Edges[k]; ok {
				continue
			}
			fps = append(fps, edgeNote{Caller: k.Caller, Callee: k.Callee, Site: g.Calls[k].Site})
		}
		s.Precision = acc.NewRatio(s.TP, s.Cos).Share
		s.Recall = acc.NewRatio(s.TP, s.Oracle).Share
		s.Missed = acc.TopNotes(missed, top)
		s.FalsePos = acc.TopNotes(fps, top)
		cmp.Scores = append(cmp.Scores, s)
	}

	var inHit, inOf, allHit, allOf int
	for _, is := range or.IfaceSites {
		_, hit := g.Calls[pair{is.Caller, is.Method}]
		if !hit && !is.InTree {
			_, hit = g.External[pair{is.Caller, is.Method}]
		}
		allOf++
		if hit {
			allHit++
		}
		if is.InTree {
			inOf++
			if hit {
				inHit++
			}
		}
	}
	cmp.IfaceSitesInTree = acc.NewRatio(inHit, inOf)
	cmp.IfaceSitesAll = acc.NewRatio(allHit, allOf)

	callers := map[string][]string{}
	for k := range or.Edges {
		callers[k.Callee] = append(callers[k.Callee], k.Caller)
	}
	sum := 0.0
	for callee, cs := range callers {
		hit := 0
		for _, c := range cs {
			if _, ok := cosCat[pair{c, callee}]; ok {
				hit++
			}
		}
		sum += float64(hit) / float64(len(cs))
	}
	cmp.RefsRecall = ratio{Of: len(callers), Share: -1}
	if len(callers) > 0 {
		cmp.RefsRecall.Share = sum / float64(len(callers))
	}

	hit := 0
	blocked := map[pair]*edgeNote{}
	for _, d := range or.Dispatch {
		_, call := g.Calls[pair{d.Caller, d.Method}]
		impl := pair{d.Type, d.Iface}
		if call && g.Implements[impl] {
			hit++
			continue
		}
		if g.Implements[impl] {
			continue
		}
		n := blocked[impl]
		if n == nil {
			n = &edgeNote{Caller: d.Type, Callee: d.Iface, Site: d.Site}
			blocked[impl] = n
		}
		n.Sites++
		if acc.SiteLess(d.Site, n.Site) {
			n.Site = d.Site
		}
	}
	cmp.Dispatch = acc.NewRatio(hit, len(or.Dispatch))
	var notes []edgeNote
	for _, n := range blocked {
		notes = append(notes, *n)
	}
	cmp.DispatchMissed = acc.TopNotes(notes, top)
	return cmp
}

// shortUID drops the uid prefix for reports.
func shortUID(uid string) string {
	for _, p := range []string{"code:function:", "code:external:", "code:class:"} {
		if rest, ok := strings.CutPrefix(uid, p); ok {
			return rest
		}
	}
	return uid
}
