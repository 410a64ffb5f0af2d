package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cos-dev/cos/internal/graphtest"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/projections/tasks"
)

// BenchmarkOverlapIDs: 20 active tasks, each with a derived footprint of
// 20 symbols, on a random graph of 100k functions and 500k edges — the
// board's overlap column computes every footprint and reach once.
func BenchmarkOverlapIDs(b *testing.B) {
	g := graphtest.Random(b, 7, 100_000, 500_000)
	l := &testutil.FakeLog{}
	board := tasks.NewBoard()
	rng := rand.New(rand.NewPCG(7, 0))
	for range 20 {
		ev := l.AppendValue(b, l.Allocate(tasks.StreamPrefix), tasks.TypeCreated, tasks.Created{Title: "t", Priority: tasks.DefaultPriority, Status: tasks.DefaultStatus})
		if err := board.Apply(ev); err != nil {
			b.Fatal(err)
		}
		var syms []string
		for range 20 {
			syms = append(syms, fmt.Sprintf("code:function:g.go::f%03d", rng.IntN(100_000)))
		}
		p, err := tasks.FootprintDerivedPayload(tasks.FootprintDerived{Assignee: "a", Worktree: "w", Symbols: syms})
		if err != nil {
			b.Fatal(err)
		}
		id, _ := tasks.IDOfStream(ev.Stream)
		if err := board.Apply(l.Append(b, tasks.FootprintStreamOf(id), p.Type, p.Data)); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	b.ResetTimer()
	n := 0
	for range b.N {
		n = len(OverlapIDs(ctx, g, board))
	}
	b.ReportMetric(float64(n), "overlapping")
}
