package projections

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/cos-dev/cos/graph"
)

// This file holds the graph's cheap reads for the caller and dependent
// tools: adjacency by edge type without building edges or decoding their
// metadata, and the totals behind an answer's completeness.

// UnresolvedCounts are graph-wide totals of what extraction could not
// resolve, summed over the present nodes' metadata (graph.MetaDynamicCalls,
// graph.MetaReflectCalls, graph.MetaFallback). They are kept up to date by
// Apply and rebuilt by UnmarshalSnapshot, so reading them is O(1). They are
// a function of the node set alone: not part of the canonical encoding, the
// state hash is unchanged by them.
type UnresolvedCounts struct {
	// DynamicCalls sums dynamic_calls: call sites through func values,
	// whose callee the graph does not know.
	DynamicCalls int
	// ReflectCalls sums reflect_calls: reflective call sites (Value.Call,
	// MethodByName, …).
	ReflectCalls int
	// LowerBoundFiles counts the file nodes whose fallback reason makes the
	// callers found in them a lower bound (graph.LowerBoundFallback).
	LowerBoundFiles int
	// GoUnavailableFiles counts those among them read by syntax because
	// no go command was on the indexer's PATH (graph.FallbackGoUnavailable).
	GoUnavailableFiles int
	// InferredPython and InferredJS count the Python files, and the
	// JavaScript and TypeScript files, whose calls were inferred from the
	// syntax: file nodes of that language (graph.MetaLanguage) without
	// graph.MetaExtraction = graph.ExtractionPrecise.
	InferredPython int
	InferredJS     int
}

func (u *UnresolvedCounts) add(d UnresolvedCounts, sign int) {
	u.DynamicCalls += sign * d.DynamicCalls
	u.ReflectCalls += sign * d.ReflectCalls
	u.LowerBoundFiles += sign * d.LowerBoundFiles
	u.GoUnavailableFiles += sign * d.GoUnavailableFiles
	u.InferredPython += sign * d.InferredPython
	u.InferredJS += sign * d.InferredJS
}

// Unresolved returns the graph-wide totals in O(1).
func (g *Graph) Unresolved() UnresolvedCounts { return g.unresolved }

// unresolvedOf is one node's contribution to UnresolvedCounts: a pure
// function of its kind and canonical metadata, so adding it on upsert and
// subtracting it on removal keep the sums exact. Metadata that names none of
// the keys costs a byte scan, not a decode.
func unresolvedOf(kind string, meta []byte) UnresolvedCounts {
	if len(meta) == 0 || (!bytes.Contains(meta, []byte(`_calls"`)) && !bytes.Contains(meta, []byte(`"fallback"`)) &&
		(kind != graph.KindFile || !bytes.Contains(meta, []byte(`"language"`)))) {
		return UnresolvedCounts{}
	}
	var m struct {
		Dynamic    any `json:"dynamic_calls"`
		Reflect    any `json:"reflect_calls"`
		Fallback   any `json:"fallback"`
		Language   any `json:"language"`
		Extraction any `json:"extraction"`
	}
	if json.Unmarshal(meta, &m) != nil {
		return UnresolvedCounts{}
	}
	var u UnresolvedCounts
	u.DynamicCalls = countOf(m.Dynamic)
	u.ReflectCalls = countOf(m.Reflect)
	if reason, ok := m.Fallback.(string); ok && kind == graph.KindFile && graph.LowerBoundFallback(reason) {
		u.LowerBoundFiles = 1
		if reason == graph.FallbackGoUnavailable {
			u.GoUnavailableFiles = 1
		}
	}
	if kind == graph.KindFile && m.Extraction != graph.ExtractionPrecise {
		switch m.Language {
		case "python":
			u.InferredPython = 1
		case "js", "ts", "tsx":
			u.InferredJS = 1
		}
	}
	return u
}

// countOf reads a count from decoded JSON: a positive whole number, else 0.
func countOf(v any) int {
	f, ok := v.(float64)
	if !ok || f < 1 || f > 1<<40 {
		return 0
	}
	return int(f)
}

// LastChange returns the seq of the last graph event applied, or pos when
// that is unknown: after a snapshot restore and before the next event, the
// state is known only to cover every event up to the position pos it
// reflects. The answer is never below the true seq of the last change, so a
// page cursor bound to a seq at or above it still describes the graph.
func (g *Graph) LastChange(pos uint64) uint64 {
	if g.changedUnknown {
		return pos
	}
	return g.changed
}

// NodeHeader returns the node with uid without its metadata (no JSON
// decode), and false when there is none.
func (g *Graph) NodeHeader(uid string) (graph.Node, bool) {
	v := g.vertices[uid]
	if v == nil || !v.present {
		return graph.Node{}, false
	}
	return graph.Node{UID: v.uid, Kind: v.kind, Label: v.label, Path: v.path, Line: v.line, EndLine: v.endLine, Extractor: v.extractor}, true
}

// HasIn reports whether uid has an incoming edge of type typ. It builds
// nothing: O(in-degree) pointer comparisons.
func (g *Graph) HasIn(uid, typ string) bool {
	v := g.vertices[uid]
	t, ok := g.symID[typ]
	if v == nil || !ok {
		return false
	}
	for _, e := range v.in {
		if e.typ == t {
			return true
		}
	}
	return false
}

// EachIn calls fn with the source and type of every edge into uid until fn
// returns false, in no particular order (it differs between processes): a
// caller must give the same answer whatever the order. It builds no edges,
// decodes no metadata and allocates nothing.
func (g *Graph) EachIn(uid string, fn func(source, typ string) bool) {
	v := g.vertices[uid]
	if v == nil {
		return
	}
	for _, e := range v.in {
		if !fn(e.src.uid, g.syms[e.typ]) {
			return
		}
	}
}

// Sources returns the sources of uid's incoming edges of type typ, in uid
// order, each once (several extractors may emit the same link). It builds
// no edges and decodes no metadata.
func (g *Graph) Sources(uid, typ string) []string {
	v := g.vertices[uid]
	if v == nil {
		return nil
	}
	return g.ends(v.in, typ, func(e *edgeState) *vertex { return e.src })
}

// Targets returns the targets of uid's outgoing edges of type typ, in uid
// order, each once.
func (g *Graph) Targets(uid, typ string) []string {
	v := g.vertices[uid]
	if v == nil {
		return nil
	}
	return g.ends(v.out, typ, func(e *edgeState) *vertex { return e.dst })
}

func (g *Graph) ends(es []*edgeState, typ string, end func(*edgeState) *vertex) []string {
	t, ok := g.symID[typ]
	if !ok {
		return nil
	}
	var out []string
	for _, e := range es {
		if e.typ == t {
			out = append(out, end(e).uid)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// FallbackFile is a file node counted in UnresolvedCounts.LowerBoundFiles:
// its path, graph.MetaFallback and graph.MetaFallbackDetail.
type FallbackFile struct {
	Path     string `json:"path"`
	Fallback string `json:"fallback"`
	Detail   string `json:"detail,omitempty"`
}

// LowerBoundFiles returns the files UnresolvedCounts.LowerBoundFiles
// counts, sorted by path. The first call after a change scans the vertices
// (decoding only the metadata that names a fallback): O(nodes); the list
// is then cached until the next change, since every read whose
// completeness counts such files names some (meta.fallback_files). The
// slice must not be modified.
func (g *Graph) LowerBoundFiles() []FallbackFile {
	g.cacheMu.Lock()
	defer g.cacheMu.Unlock()
	if !g.lowerOK {
		g.lowerFiles, g.lowerOK = g.lowerBoundFiles(), true
	}
	return g.lowerFiles
}

// lowerBoundFiles is LowerBoundFiles computed afresh.
func (g *Graph) lowerBoundFiles() []FallbackFile {
	var out []FallbackFile
	for _, v := range g.vertices {
		if !v.present || v.kind != graph.KindFile || unresolvedOf(v.kind, v.meta).LowerBoundFiles == 0 {
			continue
		}
		var m struct {
			Fallback string `json:"fallback"`
			Detail   string `json:"fallback_detail"`
		}
		_ = json.Unmarshal(v.meta, &m)
		p := v.path
		if p == "" {
			p = strings.TrimPrefix(v.uid, "code:file:")
		}
		out = append(out, FallbackFile{Path: p, Fallback: m.Fallback, Detail: m.Detail})
	}
	slices.SortFunc(out, func(a, b FallbackFile) int { return strings.Compare(a.Path, b.Path) })
	return out
}
