package indexing

import (
	"fmt"
	"strings"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/state"
)

// staleListMax bounds the paths a stale warning names.
const staleListMax = 10

// IndexMeta is meta.index of an answer read in v with the check chk (nil
// when the graph records no index run).
func IndexMeta(v state.View, chk Check, cerr error) *envelope.Index {
	run, ok := v.Graph.LastIndex()
	if !ok {
		return nil
	}
	idx := &envelope.Index{IndexedSeq: chk.IndexedSeq, StaleFiles: len(chk.Stale)}
	if len(chk.Roots) > 0 && (len(chk.Roots) > 1 || chk.Roots[0] != run.Name) {
		for _, r := range v.Graph.Roots() {
			if r.Name == chk.Roots[0] {
				run, idx.IndexedSeq, idx.Roots = r, 0, chk.Roots
			}
		}
	}
	idx.Root, idx.Name, idx.Commit = run.Root, run.Name, run.Commit
	if cerr != nil || idx.IndexedSeq == 0 {
		idx.IndexedSeq = run.Finished.Seq
		if idx.IndexedSeq == 0 {
			idx.IndexedSeq = run.Started.Seq
		}
	}
	return idx
}

// WithStartState returns m with state "indexing" while this process's
// start index (IndexAtStart) fills the graph (a meta.index with only the
// root when the graph records no run yet), m itself otherwise. x may be
// nil.
func (x *Indexer) WithStartState(m *envelope.Index) *envelope.Index {
	if x == nil {
		return m
	}
	run, ok := x.Starting()
	if !ok {
		return m
	}
	out := envelope.Index{Root: run.Root}
	if m != nil {
		out = *m
	}
	out.State = envelope.IndexStateIndexing
	return &out
}

// StaleWarning is the meta.warnings line of an answer that names files
// the graph is behind on.
func StaleWarning(stale []string, why string) string {
	names := stale
	more := ""
	if len(names) > staleListMax {
		names, more = names[:staleListMax], fmt.Sprintf(" and %d more", len(stale)-staleListMax)
	}
	noun := "files this answer names differ"
	if len(stale) == 1 {
		noun = "file this answer names differs"
	}
	return fmt.Sprintf("%d %s on disk from what the graph holds (%s%s), so its lines may be out of date; %s; run cos index to bring the graph up to date",
		len(stale), noun, strings.Join(names, ", "), more, why)
}
