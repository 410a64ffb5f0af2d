package search

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

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

// How a Resolution was found: meta.resolved_from (docs/uids.md, resolution).
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
	// MaxCandidates bounds the candidates listed in an
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
	// Match is how Node matched, one of the Match* kinds: MatchUID for
	// ResolvedDirect, MatchPath for ResolvedPathPrefix, a tier's kind for
	// ResolvedFuzzy.
	Match string
	// ExactName is true when a fuzzy resolution came from the exact tier:
	// a label or bare name equal to the raw string (MatchExact,
	// MatchBareName, MatchExactCaseInsensitive) or, for a path, a path
	// equal to it ignoring case.
	ExactName bool
	// Score is the node's Candidate.Score for the raw string (> 0).
	Score float64
}

// Resolver turns what an agent typed — a uid, a repo-relative path or a name —
// into one node, the same way for every tool (docs/uids.md, resolution):
//
//  1. direct: the raw string is a uid of the graph (external stubs
//     included: "code:external:net/http.Get" is that stub).
//  2. path_prefix: one of the scheme's uid prefixes plus the raw string is a
//     uid of the graph. "src/a.go" → code:file:src/a.go (doc:file: for
//     Markdown), "src/" or "src" → folder:src, "a.go::Char.splice" →
//     code:function:a.go::Char.splice, "README.md#intro" →
//     doc:heading:README.md#intro:N, "react" → npm:package:react. A trailing
//     slash means a folder only. More than one hit is *AmbiguousError.
//     A hit of kind external (code:external:, cos:hook:, cos:identifier:)
//     counts only when no other hit and no exact-tier candidate (3a) is an
//     in-tree node: "NewRequest" is code:function:request.go::NewRequest,
//     not the stub code:external:NewRequest of its unresolved calls; with
//     the stub alone it is the stub.
//  3. fuzzy (not in strict mode): the tiers of query.go in order. A tier
//     looks for the query variants (the raw string without a uid prefix;
//     for "<path>::<name>" the name and its last dotted segment; for a path
//     also its base name; the word tiers only the barest) in turn and keeps
//     the in-tree candidates of the first variant finding any, then the
//     external ones of the first variant finding any. The first tier with a
//     candidate decides; within it external nodes rank below every in-tree
//     node and only compete when no in-tree node is there, and a node with
//     metadata build_excluded (a Go file the build leaves out, and its
//     declarations) only competes when no included node of the same match
//     level is there.
//     a. exact tier, by level: MatchExact (label equal, case included) over
//     MatchBareName (a bare name equal, case included) over
//     MatchExactCaseInsensitive over MatchPathCaseInsensitive. Exactly one
//     node at the best level wins (send → the node labelled "send", over
//     "Client.send" and "Send"); more is *AmbiguousError (util.go in two
//     folders).
//     b. whole-label, words and typos tiers — the top candidate wins when it
//     is the only one or its index score is at least ClearWinnerRatio (1.5)
//     times the runner-up's ("clearly wins"); otherwise *AmbiguousError
//     with the ranked candidates.
//
// Candidates from the index are confirmed through the NodeSource, which also
// gives their metadata, so a view at a past seq never answers with a node it
// does not hold (the index itself is at the head). No match is
// *NotFoundError whose suggestions are the candidates of the first tier
// that found any or, when none did, nodes sharing a word with the raw
// string. Strict mode (ResolveStrict, for mutations) runs the same tiers for
// suggestions only: it answers with direct or path_prefix or not at all,
// never with a neighbour; a stub path hit beside an in-tree node of the same
// name is *AmbiguousError there, so a write never lands on the stub by name.
//
// Every candidate, error and Resolution carries its Match kind and a Score
// ordering the candidates as the rules above do (Candidates lists them).
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
// mutations, which never resolve fuzzily: a miss is *NotFoundError whose suggestions are never
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
		c := newRanked(n, MatchUID, 0)
		return Resolution{Node: n, ResolvedFrom: ResolvedDirect, Match: MatchUID, Score: c.Score}, nil
	}
	hits := r.pathPrefixHits(q, nil)
	if len(hits) > 0 && !hits[0].external {
		// In-tree hits decide; stubs beside them are never the answer.
		hits = slices.DeleteFunc(hits, func(c ranked) bool { return c.external })
		if w, ok := r.pick(hits, true); ok {
			return Resolution{Node: w.node, ResolvedFrom: ResolvedPathPrefix, Match: MatchPath, Score: w.Score}, nil
		}
		return Resolution{}, &AmbiguousError{Query: raw, Candidates: r.candidates(hits)}
	}
	variants := queryVariants(q)
	var (
		tier = tierExact
		set  []ranked
		err  error
	)
	if len(hits) > 0 {
		// Only stubs: they count unless an in-tree node has the name.
		if set, err = r.tierSet(ctx, tierExact, variants, nil, r.resolveNeed(), true); err != nil {
			return Resolution{}, err
		}
		if len(set) == 0 || set[0].external {
			if w, ok := r.pick(hits, true); ok {
				return Resolution{Node: w.node, ResolvedFrom: ResolvedPathPrefix, Match: MatchPath, Score: w.Score}, nil
			}
			return Resolution{}, &AmbiguousError{Query: raw, Candidates: r.candidates(hits)}
		}
		set = mergeRanked(set, hits)
		if strict {
			// A write names its node exactly: the stub is not it, and the
			// in-tree node was found by name only.
			return Resolution{}, &AmbiguousError{Query: raw, Candidates: r.candidates(set)}
		}
	} else if tier, set, err = r.firstTier(ctx, variants); err != nil {
		return Resolution{}, err
	}
	if !strict && len(set) > 0 {
		w, ok := r.pick(set, tier == tierExact)
		if !ok {
			return Resolution{}, &AmbiguousError{Query: raw, Candidates: r.candidates(set)}
		}
		// The source can move on between confirm and here (a live graph);
		// a winner deleted meanwhile is a miss, not a zero Node.
		if n, ok := r.src.Node(w.UID); ok {
			return Resolution{Node: n, ResolvedFrom: ResolvedFuzzy, Match: w.Match, ExactName: tier == tierExact, Score: w.Score}, nil
		}
	}
	// Whatever matched is a suggestion, never the answer.
	sugg := r.candidates(set)
	sugg = sugg[:min(len(sugg), r.opts.MaxSuggestions)]
	if len(sugg) == 0 {
		// Every tier came back empty: only the widest net is left.
		var more []ranked
		for _, v := range variants {
			if r.idx == nil || len(more) >= r.opts.MaxSuggestions {
				break
			}
			found, err := r.idx.anyWord(ctx, v, nil, r.opts.MaxSuggestions)
			if err != nil {
				return Resolution{}, fmt.Errorf("suggest for %q: %w", v, err)
			}
			more = mergeRanked(more, r.confirm(found, func(graph.Node) string { return MatchAnyWord }))
		}
		sugg = r.candidates(more)
		sugg = sugg[:min(len(sugg), r.opts.MaxSuggestions)]
	}
	return Resolution{}, &NotFoundError{Query: raw, Strict: strict, Suggestions: sugg}
}

// Candidates returns up to limit nodes raw may mean, of the given kinds (all
// kinds when empty), best first by Score, ties by uid: the direct node, the
// path_prefix hits, then the candidates of each tier of Resolve's fuzzy
// stage in turn (tiers run while fewer than limit nodes were found), each
// with its Match kind. When the exact tier finds an in-tree node, the later
// tiers run without their typo matches: a name that exists needs no
// correction, and typo matching is most of a lookup's cost. The order is Resolve's: when Resolve answers with a
// fuzzy winner and kinds is empty, it comes first (barring more than
// ResolverOptions.MaxCandidates equal candidates); an external stub ranks
// below the in-tree nodes of its stage, a build-excluded node below the
// included ones of its match level. limit ≤ 0 means DefaultSearchLimit; it
// is capped at MaxSearchLimit. The ranking is one order whatever the limit:
// tiers in order (a later tier's candidates rank below an earlier one's), and
// within a tier Resolve's rank over all the tier's index
// hits; a limit only cuts it, so Candidates of limit k is the prefix of
// Candidates of limit n ≥ k. An empty raw matches nothing. Errors are an
// index error or ctx's error.
func (r *Resolver) Candidates(ctx context.Context, raw string, kinds []string, limit int) ([]Candidate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	limit = clampLimit(limit)
	q := strings.TrimSpace(raw)
	if q == "" {
		return nil, nil
	}
	var all []ranked
	if n, ok := r.src.Node(q); ok && kindIn(n, kinds) {
		all = append(all, newRanked(n, MatchUID, 0))
	}
	all = mergeRanked(all, r.pathPrefixHits(q, kinds))
	variants := queryVariants(q)
	// A name an in-tree node carries exactly needs no typo correction: the
	// later tiers then list only what it prefixes or shares words with.
	// Typo matching is most of a lookup's cost (bleve's fuzzy searcher).
	typos := true
	for tier := range tierCount {
		if len(all) >= limit {
			break
		}
		set, err := r.tierSet(ctx, tier, variants, kinds, limit, typos)
		if err != nil {
			return nil, err
		}
		if tier == tierExact && slices.ContainsFunc(set, func(c ranked) bool { return !c.external }) {
			typos = false
		}
		if len(all) == 0 {
			all = set // ranked, one entry per uid: what merging into nothing gives
			continue
		}
		all = mergeRanked(all, set)
	}
	return candidatesOf(all[:min(len(all), limit)]), nil
}

// resolveNeed is how many of a tier's best candidates Resolve looks at: the
// winner and its runner-up (pick), and those an *AmbiguousError or a
// *NotFoundError lists. A tier gives its best need exactly as ranking all
// its hits would (tierTop), so Resolve and Candidates decide on one order,
// and Candidates of limit k is the prefix of Candidates of limit n ≥ k.
func (r *Resolver) resolveNeed() int {
	return max(2, r.opts.MaxCandidates, r.opts.MaxSuggestions)
}

// firstTier runs tierSet for each tier of query.go in order and returns the
// first tier with candidates and its ranked set; tierCount and none when
// every tier came back empty.
func (r *Resolver) firstTier(ctx context.Context, variants []string) (int, []ranked, error) {
	for tier := range tierCount {
		set, err := r.tierSet(ctx, tier, variants, nil, r.resolveNeed(), true)
		if err != nil || len(set) > 0 {
			return tier, set, err
		}
	}
	return tierCount, nil, nil
}

// pick returns the node a ranked, non-empty set decides on, and false when
// it is ambiguous. The contenders are the best of the set (set[0]) and the
// nodes as external and as build-excluded as it — and, byLevel (the exact
// tier, path hits), at its match level. byLevel, the best wins alone;
// otherwise it wins alone or with an index score at least ClearWinnerRatio
// times the next contender's.
func (r *Resolver) pick(set []ranked, byLevel bool) (ranked, bool) {
	best := set[0]
	for _, c := range set[1:] {
		if c.external != best.external || c.excluded != best.excluded || (byLevel && c.level != best.level) {
			continue
		}
		if byLevel || best.index < r.opts.ClearWinnerRatio*c.index {
			return ranked{}, false
		}
		break // sorted: the next contender is the runner-up
	}
	return best, true
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

// pathPrefixHits returns the nodes of the given kinds (any when empty)
// whose uid is a scheme prefix plus the raw path p, ranked (MatchPath).
func (r *Resolver) pathPrefixHits(p string, kinds []string) []ranked {
	var hits []ranked
	try := func(uid string) {
		if n, ok := r.src.Node(uid); ok && kindIn(n, kinds) {
			hits = mergeRanked(hits, []ranked{newRanked(n, MatchPath, 0)})
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

// tierSet returns what one tier of query.go finds for the variants (the
// word tiers only for the last, barest one), of the given kinds (any when
// empty), ranked: the in-tree candidates of the first variant finding any,
// then the external ones of the first variant finding any.
func (r *Resolver) tierSet(ctx context.Context, tier int, variants, kinds []string, limit int, typos bool) ([]ranked, error) {
	var in, ext []ranked
	for i, v := range variants {
		if tier >= tierWords && i < len(variants)-1 {
			continue // the word tiers are costly: only for the barest name
		}
		found, err := r.tier(ctx, tier, v, kinds, limit, typos)
		if err != nil {
			return nil, err
		}
		split := slices.IndexFunc(found, func(c ranked) bool { return c.external })
		if split < 0 {
			split = len(found)
		}
		if len(ext) == 0 {
			ext = found[split:]
		}
		if split > 0 {
			in = found[:split]
			break
		}
	}
	return slices.Concat(in, ext), nil
}

// tier returns the best limit candidates of one tier of query.go for q, of
// the given kinds (any when empty), that the NodeSource holds, ranked: the
// top of ranking every hit of the tier (tierTop), so stubs never crowd
// in-tree nodes out. The exact tier adds NodesByLabel(q), so a node the
// index has not seen yet is still found by its exact label.
func (r *Resolver) tier(ctx context.Context, tier int, q string, kinds []string, limit int, typos bool) ([]ranked, error) {
	memo, _ := ctx.Value(tierMemoKey{}).(*tierMemo)
	if memo == nil {
		return r.tierOnce(ctx, tier, q, kinds, limit, typos)
	}
	k := tierKey{r: r, tier: tier, q: q, kinds: strings.Join(kinds, "\x00"), limit: limit, typos: typos}
	memo.mu.Lock()
	got, ok := memo.m[k]
	memo.mu.Unlock()
	if ok {
		return slices.Clone(got), nil
	}
	found, err := r.tierOnce(ctx, tier, q, kinds, limit, typos)
	if err == nil {
		memo.mu.Lock()
		memo.m[k] = slices.Clone(found)
		memo.mu.Unlock()
	}
	return found, err
}

// tierOnce is tier without the memo.
func (r *Resolver) tierOnce(ctx context.Context, tier int, q string, kinds []string, need int, typos bool) ([]ranked, error) {
	match := func(graph.Node) string { return tierMatch(tier, q) }
	var labelled []graph.Node
	if tier == tierExact {
		match = func(n graph.Node) string { return exactMatch(n, q) }
		for _, n := range r.src.NodesByLabel(q) {
			if kindIn(n, kinds) {
				labelled = append(labelled, n)
			}
		}
	}
	var found []ranked
	if query := tierQuery(tier, q, typos); r.idx != nil && query != nil {
		// The hits hold no kind (tierSearch.fields): the source knows it.
		var err error
		if found, err = r.tierTop(ctx, tier, q, withKinds(query, kinds), need, match, labelled); err != nil {
			return nil, err
		}
	} else if len(labelled) > 0 {
		// No index: the label matches alone, at index score 1.
		for _, n := range labelled {
			found = append(found, newRanked(n, MatchExact, 1))
		}
		sortRanked(found)
	}
	return found[:min(len(found), need)], nil
}

// tierMemo holds what tier found, by its arguments, for the calls made
// with one context (WithTierMemo).
type tierMemo struct {
	// mu guards m.
	mu sync.Mutex
	m  map[tierKey][]ranked
}

// tierKey is tier's arguments; kinds joined by NUL.
type tierKey struct {
	r     *Resolver
	tier  int
	q     string
	kinds string
	limit int
	typos bool
}

type tierMemoKey struct{}

// WithTierMemo returns a context under which a Resolver asks the index once
// for each tier of a query: Resolve and Candidates of one string under it
// share their identical searches (the exact tier, and the later tiers of a
// name no node carries), so a tool that resolves a name and then lists its
// candidates pays for the searches once. Use it for one answer only: a
// context that outlives a change of the graph or the index would answer
// from before it.
func WithTierMemo(ctx context.Context) context.Context {
	return context.WithValue(ctx, tierMemoKey{}, &tierMemo{m: map[tierKey][]ranked{}})
}

// confirm returns the candidates the NodeSource holds, as it holds them
// (kind, label, path, metadata), with the Match kind match gives, ranked.
func (r *Resolver) confirm(cs []Candidate, match func(graph.Node) string) []ranked {
	var out []ranked
	for _, c := range cs {
		if n, ok := r.src.Node(c.UID); ok {
			out = append(out, newRanked(n, match(n), c.Score))
		}
	}
	sortRanked(out)
	return out
}

// candidates returns the Candidates of ranked, capped at MaxCandidates.
func (r *Resolver) candidates(rs []ranked) []Candidate {
	return candidatesOf(rs[:min(len(rs), r.opts.MaxCandidates)])
}

func candidatesOf(rs []ranked) []Candidate {
	out := make([]Candidate, len(rs))
	for i, c := range rs {
		out[i] = c.Candidate
	}
	return out
}

func kindIn(n graph.Node, kinds []string) bool {
	return len(kinds) == 0 || slices.Contains(kinds, kindOf(n))
}
