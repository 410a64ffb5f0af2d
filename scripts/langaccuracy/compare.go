package main

import (
	"regexp"
	"sort"
	"strings"

	scippb "github.com/sourcegraph/scip/bindings/go/scip"

	"github.com/cos-dev/cos/scripts/internal/acc"
)

// Callee kinds, the second split of the scores.
const (
	kindFunction = "function"
	kindMethod   = "method"
	kindAbstract = "abstract/interface method"
	kindClass    = "class"
)

var calleeKinds = []string{kindFunction, kindMethod, kindAbstract, kindClass}

// score is one row of a table.
type score struct {
	Row       string  `json:"row"`
	Truth     int     `json:"truth"`
	Cos       int     `json:"cos"`
	TP        int     `json:"true_positives"`
	CosTP     int     `json:"cos_true_positives"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	// Missed are truth edges cos lacks, FalsePos cos edges the truth
	// lacks: the first ones by number of sites, then place.
	Missed   []edgeNote `json:"missed,omitempty"`
	FalsePos []edgeNote `json:"false_positives,omitempty"`
	// MissedTags and FalseTags count them by tag.
	MissedTags map[string]int `json:"missed_tags,omitempty"`
	FalseTags  map[string]int `json:"false_positive_tags,omitempty"`
}

// edgeNote, ratio and site are the shared records of both harnesses.
type (
	edgeNote = acc.EdgeNote
	ratio    = acc.Ratio
	site     = acc.Site
)

// comparison is one target's figures.
type comparison struct {
	// ByForm is split by the form of the call site (the categories),
	// ByKind by the kind of the callee's node; "all" ends ByForm.
	ByForm []score `json:"by_form"`
	ByKind []score `json:"by_kind"`
	// RefsRecall is the share of truth reference pairs (call or not) cos
	// has any edge for (calls, references, inherits_from, implements,
	// constructs, …); NonCallRefsRecall the same over pairs with no call
	// site.
	RefsRecall ratio `json:"refs_recall"`
	// RecallWithNoNode is the recall of "all" when the calls of symbols
	// defined in the target that have no cos node (express's
	// app.handle = function ...) count as truth edges cos misses.
	RecallWithNoNode  ratio `json:"recall_with_no_node_callees"`
	NonCallRefsRecall ratio `json:"non_call_refs_recall"`
	// RefsMissed are the first reference pairs with no call site cos has
	// no edge for.
	RefsMissed []edgeNote `json:"refs_missed,omitempty"`
	// Unknown counts cos calls edges to a node no SCIP symbol maps to
	// (in "all" and the kind split only); Unclassified cos edges whose
	// line does not name the callee (left out of the scores, listed with
	// the unjudged ones).
	Unknown      int `json:"unknown_callee"`
	Unclassified int `json:"unclassified"`
	// Unjudged counts cos calls edges at whose site the index has no
	// global symbol for the callee's name (pyright or tsc resolved
	// nothing: an untyped receiver, a name scip-python left local); they
	// are left out of the scores, UnjudgedNotes are the first ones.
	Unjudged      int        `json:"unjudged"`
	UnjudgedNotes []edgeNote `json:"unjudged_notes,omitempty"`
	// CosOutside counts cos calls edges from files the indexer did not
	// index, left out.
	CosOutside int `json:"cos_outside_index"`
	// Unmapped are the most called symbols of the target with no cos
	// node.
	Unmapped []unmappedSymbol `json:"unmapped,omitempty"`
}

// cosEdge is one cos calls edge kept for scoring.
type cosEdge struct {
	Site site
	Cat  category // the form of its site; "" when unread
	Kind string
}

// compare scores a cos graph against the truth; top bounds the lists.
func compare(or *oracle, g *cosGraph, lg lang, top int) comparison {
	var cmp comparison
	kinds := nodeKinds(g.Nodes, or.Docs)
	cos := map[pair]cosEdge{}
	var unjudged []edgeNote
	for k, at := range g.Calls {
		if k.Caller == k.Callee {
			continue
		}
		if or.Docs[uidFile(k.Caller)] == nil {
			cmp.CosOutside++
			continue
		}
		ce := cosEdge{Site: at, Kind: kinds[k.Callee]}
		if _, ok := or.Calls[k]; !ok {
			if !or.Mapped[k.Callee] {
				cmp.Unknown++
			}
			var judged bool
			ce.Cat, judged = cosSiteForm(or.Docs[at.File], at.Line, k.Callee, lg, or.Opaque)
			if ce.Cat == "" {
				// The line does not name the callee (a renaming re-export
				// read through a namespace, a call of an alias): the site
				// cannot be found, so the oracle cannot be asked.
				cmp.Unclassified++
				unjudged = append(unjudged, edgeNote{Caller: k.Caller, Callee: k.Callee, Site: at, Tags: []string{"line does not name the callee"}})
				continue
			}
			if !judged {
				cmp.Unjudged++
				unjudged = append(unjudged, edgeNote{Caller: k.Caller, Callee: k.Callee, Site: at, Tags: []string{"no global symbol at the name"}})
				continue
			}
		}
		cos[k] = ce
	}

	for i := range unjudged {
		unjudged[i].Code = codeAt(or.Docs[unjudged[i].Site.File], unjudged[i].Site.Line)
	}
	cmp.UnjudgedNotes = acc.TopNotes(unjudged, top)

	note := func(k pair, at site, sites int, tags []string) edgeNote {
		n := edgeNote{Caller: k.Caller, Callee: k.Callee, Site: at, Sites: sites, Tags: tags}
		if d := or.Docs[at.File]; d != nil {
			n.Code = codeAt(d, at.Line)
		}
		return n
	}
	missTags := func(k pair) []string {
		var tags []string
		for _, t := range g.Edges[k] {
			tags = append(tags, "cos has "+t)
		}
		return tags
	}
	fpTags := func(k pair) []string {
		var tags []string
		if _, ok := or.Refs[k]; ok {
			tags = append(tags, "truth: reference, no call")
		} else {
			tags = append(tags, "truth: no reference")
		}
		if !or.Mapped[k.Callee] {
			tags = append(tags, "callee has no SCIP symbol")
		}
		return tags
	}

	// By form: a truth pair counts once in each category its sites have;
	// a cos pair that is in the truth counts where the truth has it, a
	// false positive in the form of its own site.
	for _, c := range categories {
		s := score{Row: string(c), MissedTags: map[string]int{}, FalseTags: map[string]int{}}
		var missed, fps []edgeNote
		for k, e := range or.Calls {
			at, sites := e.First, e.Sites
			if c != catAll {
				var ok bool
				if at, ok = e.Cats[c]; !ok {
					continue
				}
				sites = e.CatSites[c]
			}
			s.Truth++
			if _, ok := cos[k]; ok {
				s.TP++
				continue
			}
			tags := missTags(k)
			for _, t := range tags {
				s.MissedTags[t]++
			}
			missed = append(missed, note(k, at, sites, tags))
		}
		for k, ce := range cos {
			if e, ok := or.Calls[k]; ok {
				if _, has := e.Cats[c]; c == catAll || has {
					s.Cos++
					s.CosTP++
				}
				continue
			}
			if c != catAll && ce.Cat != c {
				continue
			}
			s.Cos++
			tags := fpTags(k)
			for _, t := range tags {
				s.FalseTags[t]++
			}
			fps = append(fps, note(k, ce.Site, 0, tags))
		}
		finish(&s, missed, fps, top)
		cmp.ByForm = append(cmp.ByForm, s)
	}

	// By callee kind: pairs, the kind of the callee's cos node.
	for _, kd := range calleeKinds {
		s := score{Row: kd, MissedTags: map[string]int{}, FalseTags: map[string]int{}}
		var missed, fps []edgeNote
		for k, e := range or.Calls {
			if kinds[k.Callee] != kd {
				continue
			}
			s.Truth++
			if _, ok := cos[k]; ok {
				s.TP++
				continue
			}
			missed = append(missed, note(k, e.First, e.Sites, missTags(k)))
		}
		for k, ce := range cos {
			if ce.Kind != kd {
				continue
			}
			s.Cos++
			if _, ok := or.Calls[k]; ok {
				s.CosTP++
				continue
			}
			fps = append(fps, note(k, ce.Site, 0, fpTags(k)))
		}
		finish(&s, missed, fps, top)
		s.MissedTags, s.FalseTags = nil, nil
		cmp.ByKind = append(cmp.ByKind, s)
	}

	var hit, nonCallHit, nonCall int
	var refsMissed []edgeNote
	for k, at := range or.Refs {
		has := len(g.Edges[k]) > 0
		if has {
			hit++
		}
		if _, called := or.Calls[k]; !called {
			nonCall++
			if has {
				nonCallHit++
			} else {
				refsMissed = append(refsMissed, note(k, at, 0, nil))
			}
		}
	}
	cmp.RefsMissed = acc.TopNotes(refsMissed, top)
	cmp.RefsRecall = acc.NewRatio(hit, len(or.Refs))
	for _, s := range cmp.ByForm {
		if s.Row == string(catAll) {
			cmp.RecallWithNoNode = acc.NewRatio(s.TP, s.Truth+len(or.NoNode))
		}
	}
	cmp.NonCallRefsRecall = acc.NewRatio(nonCallHit, nonCall)

	for _, u := range or.Unmapped {
		cmp.Unmapped = append(cmp.Unmapped, *u)
	}
	sort.Slice(cmp.Unmapped, func(i, j int) bool {
		a, b := cmp.Unmapped[i], cmp.Unmapped[j]
		if a.Sites != b.Sites {
			return a.Sites > b.Sites
		}
		return a.Symbol < b.Symbol
	})
	if len(cmp.Unmapped) > top {
		cmp.Unmapped = cmp.Unmapped[:top]
	}
	return cmp
}

// finish sets a score's ratios and trims its lists.
func finish(s *score, missed, fps []edgeNote, top int) {
	s.Precision = acc.NewRatio(s.CosTP, s.Cos).Share
	s.Recall = acc.NewRatio(s.TP, s.Truth).Share
	s.Missed = acc.TopNotes(missed, top)
	s.FalsePos = acc.TopNotes(fps, top)
}

// nodeKinds gives each cos uid its callee kind: a method declared
// abstract (Python @abstractmethod, TypeScript abstract) or of an
// interface is "abstract/interface method".
func nodeKinds(nodes nodeIndex, docs map[string]*document) map[string]string {
	classKind := map[string]string{}
	out := map[string]string{}
	for _, ns := range nodes {
		for _, n := range ns {
			if n.Kind == "class" {
				classKind[n.Path+"::"+n.Label] = n.TypeKind
			}
		}
	}
	for path, ns := range nodes {
		d := docs[path]
		for _, n := range ns {
			switch n.Kind {
			case "class":
				out[n.UID] = kindClass
			case "method":
				k := kindMethod
				cls, _, _ := strings.Cut(n.Label, ".")
				if classKind[path+"::"+cls] == "interface" || d != nil && declaredAbstract(d, n) {
					k = kindAbstract
				}
				if out[n.UID] != kindAbstract {
					out[n.UID] = k
				}
			default:
				out[n.UID] = kindFunction
			}
		}
	}
	return out
}

var abstractDecl = regexp.MustCompile(`@(abc\.)?abstractmethod\b|^\s*(public |protected |private )?abstract\s`)

// declaredAbstract looks for @abstractmethod or the abstract modifier on
// the first lines of a method (its decorators and signature).
func declaredAbstract(d *document, n cosNode) bool {
	for l := n.Line - 1; l < n.Line+3 && l < n.EndLine; l++ {
		if abstractDecl.MatchString(d.text(l)) {
			return true
		}
	}
	return false
}

// cosSiteForm classifies the site of a cos calls edge: the first call of
// the callee's name on the edge's line, else its first mention there; ""
// when the name is not on the line. judged is false when the index has no
// global symbol at that name (no occurrence, or a local one): the oracle
// resolved nothing there, so the edge can be neither confirmed nor
// refuted. So is a Python alias whose right-hand side the indexer did
// not resolve (opaque).
func cosSiteForm(d *document, line int, callee string, lg lang, opaque map[string]bool) (cat category, judged bool) {
	if d == nil || line <= 0 {
		return "", true
	}
	name := calleeName(callee)
	text := d.text(line - 1)
	judged = true
	for off := 0; name != ""; {
		i := strings.Index(text[off:], name)
		if i < 0 {
			break
		}
		col := off + i
		end := col + len(name)
		off = end
		if col > 0 && isIdent(text[col-1]) || end < len(text) && isIdent(text[end]) {
			continue
		}
		c := classify(d, line-1, col, end, strings.HasPrefix(callee, "code:class:"), nil)
		o, ok := d.occEndingAt(line-1, end)
		// scip-python names an attribute it cannot type after the builtin
		// of the same name (x.set() as builtins/set#): no resolution.
		builtin := strings.Contains(o.Symbol, " builtins/") && receiverOf(d, line-1, col).Dotted
		j := ok && o.Col == col && !scippb.IsLocalSymbol(o.Symbol) && !builtin && !opaque[o.Symbol]
		if isCallSite(d, line-1, col, end, lg == langTS) {
			return c, j
		}
		if cat == "" {
			cat, judged = c, j
		}
	}
	return cat, judged
}

// calleeName is the name a call of uid is written with: the last segment
// of its label (a constructor method is written as its class).
func calleeName(uid string) string {
	_, label, _ := strings.Cut(uid, "::")
	name := lastSegment(label)
	if name == "constructor" {
		cls, _, _ := strings.Cut(label, ".")
		return cls
	}
	return name
}

// codeAt is the trimmed source line (1-based), cut to 120 bytes.
func codeAt(d *document, line int) string {
	s := strings.TrimSpace(d.text(line - 1))
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// shortUID drops the uid prefix for reports; a class keeps a mark, since
// a TypeScript interface and a function can share a name.
func shortUID(uid string) string {
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
