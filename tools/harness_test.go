package tools

import (
	"context"
	"log/slog"
	"time"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/projections/evidence"
	"github.com/cos-dev/cos/projections/tasks"
	"github.com/cos-dev/cos/state"
)

// testOptions open a testServer: the state's options, the indexer's and
// the budget the calls are answered with.
type testOptions struct {
	StateDir              string
	Roots                 []string
	Exclude               []string
	SCIPTools             string
	NATS                  string
	Namespace             string
	Budget                envelope.Options
	At                    *projections.Until
	Client                string
	Version               string
	NoBackgroundSnapshots bool
	Logger                *slog.Logger
	// SearchFlushDelay is state.Options.SearchFlushDelay.
	SearchFlushDelay time.Duration
}

// testServer is what a handler test runs on: a real state folder opened
// with state.Open, an indexer and a runner over it — no transport. Its
// fields give tests the projections to check directly.
type testServer struct {
	st     *state.State
	ix     *indexing.Indexer
	r      *Runner
	budget envelope.Options

	tailer *projections.Tailer
	graph  *projections.Graph
	board  *tasks.Board
	roles  *evidence.Registry
	tools  map[string]*Tool
}

// openTestServer opens o.StateDir as cos serve does, without a transport.
func openTestServer(ctx context.Context, o testOptions) (*testServer, error) {
	ix := indexing.Options{Roots: o.Roots, Exclude: o.Exclude, SCIPTools: o.SCIPTools}
	if err := ix.Validate(); err != nil {
		return nil, err
	}
	st, err := state.Open(ctx, state.Options{Dir: o.StateDir, NATS: o.NATS, Namespace: o.Namespace, At: o.At,
		Client: o.Client, NoBackgroundSnapshots: o.NoBackgroundSnapshots, Logger: o.Logger,
		SearchFlushDelay: o.SearchFlushDelay})
	if err != nil {
		return nil, err
	}
	x, err := indexing.New(st, ix)
	if err != nil {
		_ = st.Close(ctx)
		return nil, err
	}
	r := New(st, x, Options{Version: o.Version})
	s := &testServer{st: st, ix: x, r: r, budget: o.Budget, tailer: st.Tailer(), roles: st.Roles(), tools: r.tools}
	st.View(func(v state.View) { s.graph, s.board = v.Graph, v.Board })
	return s, nil
}

// Call runs a tool with the server's budget.
func (s *testServer) Call(ctx context.Context, name string, raw []byte) envelope.Envelope {
	return s.r.Call(ctx, name, raw, s.budget)
}

func (s *testServer) Close() error                { return s.st.Close(context.Background()) }
func (s *testServer) Log() state.Log              { return s.st.Log() }
func (s *testServer) Tailer() *projections.Tailer { return s.tailer }
func (s *testServer) StateDir() string            { return s.st.Dir() }
func (s *testServer) Tools() []*Tool              { return s.r.Tools() }

func (s *testServer) Index(ctx context.Context, root string, progress func(done, total int)) (indexing.Report, error) {
	return s.ix.IndexWith(ctx, root, indexing.RunOptions{Progress: progress})
}

func (s *testServer) IndexWith(ctx context.Context, root string, o indexing.RunOptions) (indexing.Report, error) {
	return s.ix.IndexWith(ctx, root, o)
}
