package tools

import (
	"context"

	"github.com/cos-dev/cos/indexing"
)

// Progress is how far a running call has come: Done of Total units of
// work (Total 0: not known yet) and a line saying what it is doing. A
// transport turns it into the caller's progress notifications; Done and
// Total only grow during a call.
type Progress struct {
	Done, Total int
	Message     string
}

// ProgressFunc receives a call's progress as it moves. It is called from
// the goroutines doing the work, one at a time, and must return quickly
// (store the value; send it elsewhere).
type ProgressFunc func(Progress)

type progressKey struct{}

// WithProgress returns ctx carrying f: the tools that run long
// (cos_graph_index, cos_graph_changes while it indexes the changed files)
// report their progress to it. A ctx without one reports nowhere.
func WithProgress(ctx context.Context, f ProgressFunc) context.Context {
	if f == nil {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, f)
}

// progressOf returns the ProgressFunc ctx carries, nil when none.
func progressOf(ctx context.Context) ProgressFunc {
	f, _ := ctx.Value(progressKey{}).(ProgressFunc)
	return f
}

// indexProgress adapts an index run's progress to the call's: one unit
// per file hashed, per changed file extracted and per changed file
// appended, and one for finishing (recording the run, reading the graph
// back), so Done stays below Total until the answer is built. It returns
// nil when ctx carries no ProgressFunc.
func indexProgress(ctx context.Context) func(indexing.Progress) {
	f := progressOf(ctx)
	if f == nil {
		return nil
	}
	return func(p indexing.Progress) {
		if p.FilesSeen == 0 && p.FilesChanged == 0 {
			f(Progress{Message: p.Message()})
			return
		}
		total := p.FilesSeen + 2*p.FilesChanged + p.PackagesTotal + 1
		done := p.FilesSeen + min(p.FilesExtracted, p.FilesChanged) + min(p.FilesAppended, p.FilesChanged) + p.PackagesChecked
		f(Progress{Done: done, Total: total, Message: p.Message()})
	}
}
