package state

import (
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/projections/evidence"
	"github.com/cos-dev/cos/projections/metrics"
	"github.com/cos-dev/cos/projections/tasks"
)

// ProjectionSet is every projection of the log, in the fixed order that
// defines the combined state hash (projections.Tailer.StateHash): graph,
// tasks, metrics, evidence. The server, `cos replay` and the tests build it
// here so that their state hashes agree.
type ProjectionSet struct {
	Graph   *projections.Graph
	Board   *tasks.Board
	Series  *metrics.Series
	Bundles *evidence.Bundles
}

// NewProjectionSet returns empty projections.
// The board reads the symbols each graph event changed from the graph,
// which applies every event before it (List's order).
func NewProjectionSet() ProjectionSet {
	g, b := projections.NewGraph(), tasks.NewBoard()
	b.UseGraph(g)
	return ProjectionSet{g, b, metrics.NewSeries(), evidence.NewBundles()}
}

// List returns the projections in state-hash order.
func (p ProjectionSet) List() []projections.Projection {
	return []projections.Projection{p.Graph, p.Board, p.Series, p.Bundles}
}
