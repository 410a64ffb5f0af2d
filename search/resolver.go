package search

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/cos-dev/cos/graph"
)

// NodeSource is the graph as the Resolver reads it. The graph projection
// implements it; a read-only view at a past seq implements it for that seq.
// Both methods must be safe for concurrent use and must not block on I/O.
type NodeSource interface {
	// Node returns the node with exactly this uid.
	Node(uid string) (graph.Node, bool)
	// NodesByLabel returns every node whose Label equals label exactly
	// (case-sensitive), in any order; nil when none.
	NodesByLabel(label string) []graph.Node
}

// How a Resolution was found: meta.resolved_from (DESIGN §4, seed 003).
const (
	ResolvedDirect     = "direct"      // the raw string is a uid of the graph
	ResolvedPathPrefix = "path_prefix" // a uid prefix added to the raw string gives a uid of the graph
	ResolvedFuzzy      = "fuzzy"       // a unique exact name or a clear index winner
)

// DefaultClearWinnerRatio is ResolverOptions.ClearWinnerRatio when zero.
// DefaultMaxCandidates and DefaultMaxSuggestions are the defaults of
// MaxCandidates and MaxSuggestions.
const (
	DefaultClearWinnerRatio = 1.5
	DefaultMaxCandidates    = 10
	DefaultMaxSuggestions   = 5
)

// ResolverOptions tune NewResolver. Zero values mean the defaults.
type ResolverOptions struct {
	// ClearWinnerRatio: a fuzzy top candidate wins only when its score is at
	// least this many times the runner-up's. ≥ 1; default 1.5.
	ClearWinnerRatio float64
	// MaxCandidates bounds the candidates fetched and listed in an
	// *AmbiguousError, 2..100; default 10.
	MaxCandidates int
	// MaxSuggestions bounds the suggestions of a *NotFoundError, 0..100;
	// default 5. Negative means none.
	MaxSuggestions int
}

// Validate reports an out-of-range field, wrapping ErrInvalidOptions.
func (o ResolverOptions) Validate() error {
	switch {
	case o.ClearWinnerRatio != 0 && o.ClearWinnerRatio < 1:
		return fmt.Errorf("%w: ClearWinnerRatio %v below 1", ErrInvalidOptions, o.ClearWinnerRatio)
	case o.MaxCandidates != 0 && (o.MaxCandidates < 2 || o.MaxCandidates > 100):
		return fmt.Errorf("%w: MaxCandidates %d out of range 2..100", ErrInvalidOptions, o.MaxCandidates)
	case o.MaxSuggestions > 100:
		return fmt.Errorf("%w: MaxSuggestions %d above 100", ErrInvalidOptions, o.MaxSuggestions)
	}
	return nil
}

func (o ResolverOptions) withDefaults() ResolverOptions {
	if o.ClearWinnerRatio == 0 {
		o.ClearWinnerRatio = DefaultClearWinnerRatio
	}
	if o.MaxCandidates == 0 {
		o.MaxCandidates = DefaultMaxCandidates
	}
	switch {
	case o.MaxSuggestions == 0:
		o.MaxSuggestions = DefaultMaxSuggestions
	case o.MaxSuggestions < 0:
		o.MaxSuggestions = 0
	}
	return o
}

// Resolution is the node a raw string resolved to.
type Resolution struct {
	Node graph.Node
	// ResolvedFrom is ResolvedDirect, ResolvedPathPrefix or ResolvedFuzzy.
	ResolvedFrom string
	// ExactName is true when a fuzzy resolution came from the unique node
	// whose label or bare name equals the raw string.
	ExactName bool
	// Score is the index score of a fuzzy resolution, 0 otherwise.
	Score float64
}

// Resolver turns what an agent typed — a uid, a repo-relative path or a name —
// into one node, following seed 003's resolution made uniform (DESIGN §4):
//
//  1. direct: the raw string is a uid of the graph.
//  2. path_prefix: one of seed 003's uid prefixes plus the raw string is a
//     uid of the graph. "src/a.go" → code:file:src/a.go (doc:file: for
//     Markdown), "src/" or "src" → folder:src, "a.go::Char.splice" →
//     code:function:a.go::Char.splice, "README.md#intro" →
//     doc:heading:README.md#intro:N, "react" → npm:package:react. A trailing
//     slash means a folder only. More than one hit is *AmbiguousError.
//  3. fuzzy (not in strict mode): the tiers of query.go in order, each tried
//     for every query variant (the raw string without a uid prefix; for
//     "<path>::<name>" the name and its last dotted segment; for a path also
//     its base name). The first tier and variant with a candidate decides:
//     a. exact tier — nodes whose label equals the string (NodesByLabel),
//     or whose label or bare name equals it ignoring case (the index).
//     Exactly one wins (splice → code:function:x.go::Char.splice); more is
//     *AmbiguousError (util.go in two folders).
//     b. whole-label, words and typos tiers — the top candidate wins when it
//     is the only one or its score is at least ClearWinnerRatio (1.5) times
//     the runner-up's ("clearly wins"); otherwise *AmbiguousError with the
//     ranked candidates.
//
// Candidates from the index are confirmed through the NodeSource, so a view
// at a past seq never answers with a node it does not hold (the index itself
// is at the head). No match is *NotFoundError whose suggestions are the
// candidates of the first tier that found any or, when none did, nodes
// sharing a word with the raw string. Strict mode (ResolveStrict, for
// mutations) runs the same tiers for suggestions only: it answers with
// direct or path_prefix or not at all, never with a neighbour.
//
// A Resolver is safe for concurrent use.
type Resolver struct {
	src  NodeSource
	idx  *Index // nil: no fuzzy tier b and no suggestions
	opts ResolverOptions
}

// NewResolver returns a Resolver over src, using idx for fuzzy matching and
// suggestions; idx may be nil. It returns an error wrapping ErrInvalidOptions
// when opts are out of range.
func NewResolver(src NodeSource, idx *Index, opts ResolverOptions) (*Resolver, error) {
	if src == nil {
		return nil, fmt.Errorf("%w: nil NodeSource", ErrInvalidOptions)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	return &Resolver{src: src, idx: idx, opts: opts.withDefaults()}, nil
}

// Resolve resolves raw through direct, path_prefix and fuzzy. Errors:
// *AmbiguousError (ErrAmbiguous), *NotFoundError (ErrNotFound), an index
// error, or ctx's error.
func (r *Resolver) Resolve(ctx context.Context, raw string) (Resolution, error) {
	return r.resolve(ctx, raw, false)
}

// ResolveStrict resolves raw through direct and path_prefix only, for
// mutations (DESIGN §4): a miss is *NotFoundError whose suggestions are never
// used as the answer. Other errors are Resolve's.
func (r *Resolver) ResolveStrict(ctx context.Context, raw string) (Resolution, error) {
	return r.resolve(ctx, raw, true)
}

func (r *Resolver) resolve(ctx context.Context, raw string, strict bool) (Resolution, error) {
	if err := ctx.Err(); err != nil {
		return Resolution{}, err
	}
	q := strings.TrimSpace(raw)
	if q == "" {
		return Resolution{}, &NotFoundError{Query: raw, Strict: strict}
	}
	if n, ok := r.src.Node(q); ok {
		return Resolution{Node: n, ResolvedFrom: ResolvedDirect}, nil
	}
	hits := r.pathPrefixHits(q)
	switch len(hits) {
	case 0:
	case 1:
		return Resolution{Node: hits[0], ResolvedFrom: ResolvedPathPrefix}, nil
	default:
		return Resolution{}, &AmbiguousError{Query: raw, Candidates: r.nodeCandidates(hits)}
	}
	variants := queryVariants(q)
	tier, cands, err := r.firstTier(ctx, variants)
	if err != nil {
		return Resolution{}, err
	}
	switch {
	case strict:
		// Whatever matched is a suggestion, never the answer.
	case len(cands) == 0:
	case len(cands) == 1 || (tier != tierExact && cands[0].Score >= r.opts.ClearWinnerRatio*cands[1].Score):
		// The source can move on between confirm and here (a live graph);
		// a winner deleted meanwhile is a miss, not a zero Node.
		if n, ok := r.src.Node(cands[0].UID); ok {
			return Resolution{Node: n, ResolvedFrom: ResolvedFuzzy, ExactName: tier == tierExact, Score: cands[0].Score}, nil
		}
	default:
		return Resolution{}, &AmbiguousError{Query: raw, Candidates: cands}
	}
	sugg := cands[:min(len(cands), r.opts.MaxSuggestions)]
	if len(sugg) == 0 {
		// Every tier came back empty: only the widest net is left.
		for _, v := range variants {
			if r.idx == nil || len(sugg) >= r.opts.MaxSuggestions {
				break
			}
			more, err := r.idx.anyWord(ctx, v, nil, r.opts.MaxSuggestions)
			if err != nil {
				return Resolution{}, fmt.Errorf("suggest for %q: %w", v, err)
			}
			sugg = appendNew(sugg, r.confirm(more)...)
		}
		sugg = sugg[:min(len(sugg), r.opts.MaxSuggestions)]
	}
	return Resolution{}, &NotFoundError{Query: raw, Strict: strict, Suggestions: sugg}
}

// firstTier runs the tiers of query.go in order, each for every variant
// (the word tiers only for the last, barest one), and returns the first tier and
// candidates (held by the NodeSource, ranked) found; no candidates when
// every tier came back empty.
func (r *Resolver) firstTier(ctx context.Context, variants []string) (int, []Candidate, error) {
	for tier := range tierCount {
		for i, v := range variants {
			if tier >= tierWords && i < len(variants)-1 {
				continue // the word tiers are costly: only for the barest name
			}
			cands, err := r.tier(ctx, tier, v)
			if err != nil || len(cands) > 0 {
				return tier, cands, err
			}
		}
	}
	return tierCount, nil, nil
}

// queryVariants are the strings the fuzzy stage looks for, most specific
// first: q without a uid prefix; for "<path>::<name>" only the name and its
// last dotted segment (Char.splice, splice); for a path also its base name;
// for a string with '#' or a lone ':' (a heading, a mistyped "::") also what
// follows the last of them, without a trailing ":<level>".
func queryVariants(q string) []string {
	if _, body, ok := splitUID(q); ok && body != "" {
		q = body
	}
	var vs []string
	add := func(v string) {
		if v != "" && !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	if i := strings.LastIndex(q, "::"); i >= 0 {
		name := q[i+2:]
		add(name)
		if j := strings.LastIndexByte(name, '.'); j >= 0 {
			add(name[j+1:])
		}
		return vs
	}
	add(q)
	last := q
	if strings.Contains(q, "/") {
		last = path.Base(q)
		add(last)
	}
	if i := strings.IndexByte(last, '#'); i >= 0 {
		tail := last[i+1:]
		if j := strings.LastIndexByte(tail, ':'); j >= 0 && isDigits(tail[j+1:]) {
			tail = tail[:j]
		}
		add(tail)
	} else if i := strings.LastIndexByte(last, ':'); i >= 0 {
		add(last[i+1:])
	}
	return vs
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// pathPrefixHits returns the nodes whose uid is a seed-003 prefix plus the
// raw path p, in uidPrefixes order, without duplicates.
func (r *Resolver) pathPrefixHits(p string) []graph.Node {
	var hits []graph.Node
	try := func(uid string) {
		if n, ok := r.src.Node(uid); ok {
			for _, h := range hits {
				if h.UID == n.UID {
					return
				}
			}
			hits = append(hits, n)
		}
	}
	if _, _, isUID := splitUID(p); isUID {
		return nil // a uid that direct did not find; prefixing it again means nothing
	}
	folderOnly := strings.HasSuffix(p, "/")
	p = strings.TrimRight(strings.TrimPrefix(p, "./"), "/")
	if p == "" || p == "." {
		try(graph.FolderUID("."))
		return hits
	}
	if folderOnly {
		if path.Clean(p) == p {
			try(graph.FolderUID(p))
		}
		return hits
	}
	if strings.Contains(p, "../") || strings.HasPrefix(p, "/") {
		return nil // outside the repository: not a repo-relative path
	}
	try(graph.FileUID(p))
	for _, prefix := range uidPrefixes {
		try(prefix + p)
	}
	if i := strings.IndexByte(p, '#'); i > 0 && graph.IsDocPath(p[:i]) && !strings.Contains(p[i:], ":") {
		for level := 1; level <= 6; level++ {
			try("doc:heading:" + p + ":" + strconv.Itoa(level))
		}
	}
	return hits
}

// tier returns the candidates of one tier of query.go for q that the
// NodeSource holds, ranked. The exact tier adds NodesByLabel(q), so a node
// the index has not seen yet is still found by its exact label.
func (r *Resolver) tier(ctx context.Context, tier int, q string) ([]Candidate, error) {
	var found []Candidate
	if r.idx != nil {
		var err error
		if found, err = r.idx.searchTier(ctx, tier, q, nil, r.opts.MaxCandidates); err != nil {
			return nil, fmt.Errorf("resolve %q: %w", q, err)
		}
		found = r.confirm(found)
	}
	if tier != tierExact {
		return found, nil
	}
	// Ranked with the best index score, or 1 without one.
	top := 1.0
	if len(found) > 0 {
		top = found[0].Score
	}
	for _, n := range r.src.NodesByLabel(q) {
		if !slices.ContainsFunc(found, func(c Candidate) bool { return c.UID == n.UID }) {
			found = append(found, nodeCandidate(n, top, matchLabel))
		}
	}
	sortCandidates(found)
	return found[:min(len(found), r.opts.MaxCandidates)], nil
}

// confirm keeps the candidates the NodeSource holds, with its kind, label
// and path, in order.
func (r *Resolver) confirm(cs []Candidate) []Candidate {
	out := cs[:0:0]
	for _, c := range cs {
		n, ok := r.src.Node(c.UID)
		if !ok {
			continue
		}
		out = append(out, nodeCandidate(n, c.Score, c.Match))
	}
	return out
}

func (r *Resolver) nodeCandidates(ns []graph.Node) []Candidate {
	out := make([]Candidate, len(ns))
	for i, n := range ns {
		out[i] = nodeCandidate(n, 1, matchPath)
	}
	sortCandidates(out)
	return out
}

// Candidate.Match values the resolver adds to the index's.
const (
	matchPath  = "path"  // one of several path_prefix hits
	matchLabel = "label" // NodesByLabel, not (yet) in the index
)

func nodeCandidate(n graph.Node, score float64, match string) Candidate {
	return Candidate{UID: n.UID, Kind: kindOf(n), Label: n.Label, Path: pathOf(n), Score: score, Match: match}
}
