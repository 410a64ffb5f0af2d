package search

import (
	"slices"
	"strings"

	"github.com/cos-dev/cos/graph"
)

// Match kinds: how a node matched what an agent typed (Candidate.Match and
// Resolution.Match from the Resolver). Best first within a stage; the
// stages are direct, path_prefix and the exact tier, then the whole-label,
// words and typos tiers of query.go, then the suggestions' widest net.
const (
	// MatchUID: the query is the node's uid (direct).
	MatchUID = "uid"
	// MatchPath: one of the scheme's uid prefixes plus the query is the
	// node's uid (path_prefix): a repo-relative path, "<path>::<name>", a
	// package name.
	MatchPath = "path"
	// MatchExact: the label equals the query, case included.
	MatchExact = "exact"
	// MatchBareName: a bare name equals the query, case included: the
	// name after "::" or its last dotted segment (Client.send → "send"),
	// a file's base name, a package's name.
	MatchBareName = "bare_name"
	// MatchExactCaseInsensitive: the label or a bare name equals the query
	// ignoring case only.
	MatchExactCaseInsensitive = "exact_case_insensitive"
	// MatchPathCaseInsensitive: for a query with '/', the node's path
	// equals it ignoring case (the file or folder, and the symbols in the
	// file).
	MatchPathCaseInsensitive = "path_case_insensitive"
	// MatchWholeLabel: the label starts with the query or is within its
	// typo budget (one edit for 3–4 runes, two from 5).
	MatchWholeLabel = "whole_label"
	// MatchWholePath: MatchWholeLabel for a query with '/', on the paths
	// of files and folders.
	MatchWholePath = "whole_path"
	// MatchWords: every word of the query is a word of the label or bare
	// name, or a prefix of one.
	MatchWords = "words"
	// MatchTypo: every word of the query is within its typo budget of a
	// word of the label or bare name.
	MatchTypo = "typo"
	// MatchAnyWord: one word in common; suggestions only, never an answer.
	MatchAnyWord = "any_word"
)

// matchStages lists the match kinds by stage, best first, each stage's
// levels best first. External nodes of a stage rank below all its in-tree
// levels and above the next stage.
var matchStages = [][]string{
	{MatchUID},
	{MatchPath, MatchExact, MatchBareName, MatchExactCaseInsensitive, MatchPathCaseInsensitive},
	{MatchWholeLabel},
	{MatchWords},
	{MatchTypo},
	{MatchAnyWord},
}

// levelCount is the number of levels: each stage's levels twice (in-tree,
// then external).
var levelCount = func() int {
	n := 0
	for _, s := range matchStages {
		n += 2 * len(s)
	}
	return n
}()

// levelOf returns the level of a match kind, levelCount (MatchUID, in-tree)
// down to 1 (MatchAnyWord, external); 0 for an unknown kind.
func levelOf(match string, external bool) int {
	if match == MatchWholePath {
		match = MatchWholeLabel
	}
	pos := 0
	for _, stage := range matchStages {
		if i := slices.Index(stage, match); i >= 0 {
			if external {
				pos += len(stage)
			}
			return levelCount - pos - i
		}
		pos += 2 * len(stage)
	}
	return 0
}

// ranked is a resolver candidate with what ranks it.
type ranked struct {
	Candidate
	node     graph.Node
	index    float64 // the index's score (0 without one): the clear-winner ratio compares it
	level    int     // levelOf(Match, external)
	external bool    // kind external: an out-of-tree stub, hook or identifier
	excluded bool    // metadata build_excluded
}

// newRanked ranks n, matched as match with the index score index. Its
// Score is its level, plus 0.5 when n is not build-excluded, plus half of
// index squashed into [0, 1) (index / (1+index)): levels never overlap,
// and within one an included node ranks above an excluded one.
func newRanked(n graph.Node, match string, index float64) ranked {
	c := ranked{
		Candidate: Candidate{UID: n.UID, Kind: kindOf(n), Label: n.Label, Path: pathOf(n), Match: match},
		node:      n,
		index:     index,
		external:  isExternal(n),
		excluded:  isBuildExcluded(n),
	}
	c.level = levelOf(match, c.external)
	c.Score = float64(c.level)
	if !c.excluded {
		c.Score += 0.5
	}
	if index > 0 {
		c.Score += 0.5 * index / (1 + index)
	}
	return c
}

// isExternal reports whether n is not a node of the repository: kind
// external, or a code:external:, cos:hook: or cos:identifier: uid.
func isExternal(n graph.Node) bool {
	k, _ := graph.KindOfUID(n.UID)
	return kindOf(n) == graph.KindExternal || k == graph.KindExternal
}

// isBuildExcluded reports whether n's metadata says the build leaves it out
// (graph.MetaBuildExcluded).
func isBuildExcluded(n graph.Node) bool {
	b, _ := n.Metadata[graph.MetaBuildExcluded].(bool)
	return b
}

// exactMatch returns how n matched q in the exact tier.
func exactMatch(n graph.Node, q string) string {
	if n.Label == q {
		return MatchExact
	}
	if slices.Contains(bareNames(n.UID), q) {
		return MatchBareName
	}
	lq := strings.ToLower(q)
	if strings.Contains(q, "/") && strings.ToLower(pathOf(n)) == lq &&
		strings.ToLower(n.Label) != lq && !slices.Contains(nameKeys(n.UID), lq) {
		return MatchPathCaseInsensitive
	}
	// The label or a bare name, ignoring case (as the index folds it).
	return MatchExactCaseInsensitive
}

// tierMatch is the Match kind of a candidate of tier for q, beyond the
// exact tier.
func tierMatch(tier int, q string) string {
	switch tier {
	case tierWhole:
		if strings.Contains(q, "/") {
			return MatchWholePath
		}
		return MatchWholeLabel
	case tierWords:
		return MatchWords
	case tierTypos:
		return MatchTypo
	}
	return MatchExactCaseInsensitive
}

// sortRanked orders by Score, highest first, then uid, equal ones in the
// order they came (stable). A ranked is ~200 bytes: a long list (an
// ambiguous name's pool) is ordered through a permutation of indexes and
// then moved once, instead of swapping the structs themselves.
func sortRanked(rs []ranked) {
	if len(rs) <= sortRankedDirect {
		slices.SortStableFunc(rs, compareRanked)
		return
	}
	perm := make([]int32, len(rs))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortFunc(perm, func(a, b int32) int {
		if c := compareRanked(rs[a], rs[b]); c != 0 {
			return c
		}
		return int(a - b)
	})
	sorted := make([]ranked, len(rs))
	for i, j := range perm {
		sorted[i] = rs[j]
	}
	copy(rs, sorted)
}

// sortRankedDirect is the longest list sortRanked sorts in place.
const sortRankedDirect = 32

func compareRanked(a, b ranked) int {
	switch {
	case a.Score > b.Score:
		return -1
	case a.Score < b.Score:
		return 1
	}
	return strings.Compare(a.UID, b.UID)
}

// mergeScanMax is the largest (len(rs)+len(more))×len(more) mergeRanked
// compares pair by pair (rs grows while more is added, up to
// len(rs)+len(more)); above it, and with more than mergeScanMore to add,
// it indexes rs by uid. A few added to a long list (the exact labels
// beside a pool of hundreds) are cheaper scanned than a map built.
const (
	mergeScanMax  = 256
	mergeScanMore = 8
)

// mergeRanked adds to rs the candidates of more it lacks, keeping the
// better-scored of two for one uid, and returns them ranked.
func mergeRanked(rs []ranked, more []ranked) []ranked {
	var at map[string]int // uid → index in rs, for long lists (an ambiguous name's hundreds)
	if len(more) > mergeScanMore && (len(rs)+len(more))*len(more) > mergeScanMax {
		at = make(map[string]int, len(rs)+len(more))
		for i, c := range rs {
			if _, dup := at[c.UID]; !dup {
				at[c.UID] = i // the first, as the scan finds it
			}
		}
	}
	for _, c := range more {
		var i int
		if at != nil {
			j, ok := at[c.UID]
			if !ok {
				j = -1
				at[c.UID] = len(rs)
			}
			i = j
		} else {
			i = slices.IndexFunc(rs, func(have ranked) bool { return have.UID == c.UID })
		}
		switch {
		case i < 0:
			rs = append(rs, c)
		case c.Score > rs[i].Score:
			rs[i] = c
		}
	}
	sortRanked(rs)
	return rs
}
