package search

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"
)

// mergeRankedScan is mergeRanked as it compares pair by pair: the
// reference the indexed path must agree with.
func mergeRankedScan(rs []ranked, more []ranked) []ranked {
	for _, c := range more {
		i := slices.IndexFunc(rs, func(have ranked) bool { return have.UID == c.UID })
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

// TestMergeRanked_IndexedEqualsScan: above mergeScanMax pairs mergeRanked
// looks uids up in a map; on random lists sharing uids (and repeating
// them within more) it must give what the pair-by-pair scan gives. Seed
// printed on failure.
func TestMergeRanked_IndexedEqualsScan(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, seed))
		gen := func(n int) []ranked {
			out := make([]ranked, n)
			for i := range out {
				out[i].UID = "u" + strconv.Itoa(r.IntN(3*n+1))
				out[i].Score = float64(r.IntN(5))
			}
			return out
		}
		rs := mergeRankedScan(nil, gen(r.IntN(60))) // distinct uids, as callers hold
		more := gen(r.IntN(60))
		want := mergeRankedScan(slices.Clone(rs), slices.Clone(more))
		got := mergeRanked(slices.Clone(rs), slices.Clone(more))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d (%d×%d): indexed merge\n%v\nwant\n%v", seed, len(rs), len(more), got, want)
		}
	}
}

// BenchmarkMergeRanked_IntoEmpty: an ambiguous name's pool (500
// candidates) merged into an empty list, as Candidates does with its first
// tier; Scan is the pair-by-pair path, which the old size test (len(rs)×
// len(more), 0 here) chose.
func BenchmarkMergeRanked_IntoEmpty(b *testing.B) {
	more := make([]ranked, 500)
	for i := range more {
		more[i].UID = "code:function:pkg" + strconv.Itoa(i) + "/f.go::String"
		more[i].Score = float64(i % 7)
	}
	b.Run("Indexed", func(b *testing.B) {
		for b.Loop() {
			mergeRanked(nil, slices.Clone(more))
		}
	})
	b.Run("Scan", func(b *testing.B) {
		for b.Loop() {
			mergeRankedScan(nil, slices.Clone(more))
		}
	})
}

// TestSortRanked_PermutationEqualsStable: the permutation path orders as
// the stable in-place sort does, duplicates (same score and uid) included.
// Seed printed on failure.
func TestSortRanked_PermutationEqualsStable(t *testing.T) {
	for seed := uint64(1); seed <= 100; seed++ {
		r := rand.New(rand.NewPCG(seed, seed))
		rs := make([]ranked, sortRankedDirect+r.IntN(300))
		for i := range rs {
			rs[i].UID = "u" + strconv.Itoa(r.IntN(len(rs)))
			rs[i].Score = float64(r.IntN(4))
			rs[i].Match = strconv.Itoa(i) // tells equal ones apart
		}
		want := slices.Clone(rs)
		slices.SortStableFunc(want, compareRanked)
		sortRanked(rs)
		if !reflect.DeepEqual(rs, want) {
			t.Fatalf("seed %d: sortRanked of %d differs from the stable sort", seed, len(rs))
		}
	}
}

// BenchmarkSortRanked_Pool: an ambiguous name's pool of 500.
func BenchmarkSortRanked_Pool(b *testing.B) {
	pool := make([]ranked, 500)
	for i := range pool {
		pool[i].UID = "code:function:pkg" + strconv.Itoa((i*7919)%500) + "/f.go::String"
		pool[i].Score = float64(i % 7)
	}
	b.Run("Permutation", func(b *testing.B) {
		rs := make([]ranked, len(pool))
		for b.Loop() {
			copy(rs, pool)
			sortRanked(rs)
		}
	})
	b.Run("Stable", func(b *testing.B) {
		rs := make([]ranked, len(pool))
		for b.Loop() {
			copy(rs, pool)
			slices.SortStableFunc(rs, compareRanked)
		}
	})
}
