package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/evidence"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/projections/metrics"
	"github.com/cos-dev/cos/projections/tasks"
	"github.com/cos-dev/cos/search"
	"github.com/cos-dev/cos/tools/envelope"
)

// LogFile is the event log's file name inside the state folder.
const LogFile = "events.db"

// Options configure a Server. StateDir is required; every other zero value
// takes its default.
type Options struct {
	// StateDir is the state folder (events.db, snapshots, search slots,
	// nats.json, .mcp.log).
	StateDir string
	// Roots are the folders cos_graph_index may index (absolute or relative
	// to the working directory). Empty means the working directory.
	Roots []string
	// Exclude names more folders (base names, like node_modules) that
	// indexing skips, on top of extract.DefaultExcludeDirs.
	Exclude []string
	// SCIPTools is the folder cos_graph_index looks for the SCIP indexers
	// in (before PATH) when asked for a precise index; a client cannot
	// name one, as that would let it pick what the server runs. Empty
	// means PATH only.
	SCIPTools string
	// NATS is "auto" (default), "off", or a nats:// URL (DESIGN.md §6).
	NATS string
	// Namespace separates projects on one NATS; empty derives it from
	// StateDir.
	Namespace string
	// Budget configures the envelope: token budget and subgraph ceiling.
	Budget envelope.Options
	// At, when set, opens a read-only view of the state as it was at that
	// log position (`cos call --at`): write tools answer E_READ_ONLY.
	At *projections.Until
	// Client names the MCP client, recorded on the events this server
	// appends.
	Client string
	// Version is reported by cos_health.
	Version string
	// NoBackgroundSnapshots turns the snapshot loop off (tests).
	NoBackgroundSnapshots bool
	// Logger receives diagnostics (never stdout); nil discards them.
	Logger *slog.Logger
}

// ErrOptions is returned by Open for an invalid option.
var ErrOptions = errors.New("invalid options")

// Server holds one process's view of a state folder and runs tool calls
// against it. It is safe for concurrent use.
type Server struct {
	opts    Options
	log     *eventlog.Log
	tailer  *projections.Tailer
	graph   *projections.Graph
	board   *tasks.Board
	series  *metrics.Series
	bundles *evidence.Bundles
	roles   *evidence.Registry
	index   *search.Index
	// resolver reads graph: call it only inside a view.
	resolver *search.Resolver
	bus      *bus.Bus
	modules  *moduleGate
	tools    map[string]*Tool
	names    []string
	started  time.Time
	logger   *slog.Logger

	forensic       *slog.Logger
	forensicCloser io.Closer
	// tmpIndexDir is the search index of a point-in-time view, removed on
	// Close.
	tmpIndexDir string

	closeOnce sync.Once
}

// Open opens the state folder: the event log, the projections (from the
// newest snapshot plus the log's tail), this process's search index slot,
// and the bus. With opts.At it opens a frozen, read-only view instead.
func Open(ctx context.Context, opts Options) (*Server, error) {
	s, err := open(ctx, opts)
	if err != nil {
		return nil, &OpenError{StateDir: opts.StateDir, Err: err}
	}
	return s, nil
}

// OpenError is returned by Open: the state folder could not be opened. Its
// message names the folder and the cause (not a directory, permission
// denied, not a cos event log, NATS unreachable, …).
type OpenError struct {
	StateDir string
	Err      error
}

func (e *OpenError) Error() string { return fmt.Sprintf("open state folder %s: %v", e.StateDir, e.Err) }
func (e *OpenError) Unwrap() error { return e.Err }

func open(ctx context.Context, opts Options) (*Server, error) {
	if opts.StateDir == "" {
		return nil, errors.New("tools: Options.StateDir is required")
	}
	for _, x := range opts.Exclude {
		if x == "" || x == "." || x == ".." || strings.ContainsAny(x, `/\*?[`) {
			return nil, fmt.Errorf("%w: exclude %q: give a folder name such as generated (no slashes, no patterns)", ErrOptions, x)
		}
	}
	abs, err := filepath.Abs(opts.StateDir)
	if err != nil {
		return nil, err
	}
	opts.StateDir = abs
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.NATS == "" {
		opts.NATS = bus.ModeAuto
	}
	s := &Server{opts: opts, started: time.Now(), logger: opts.Logger, modules: newModuleGate(abs)}
	ok := false
	defer func() {
		if !ok {
			s.Close()
		}
	}()
	readOnly := opts.At != nil
	if !readOnly {
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return nil, fmt.Errorf("create state folder: %w", err)
		}
		if s.forensic, s.forensicCloser, err = envelope.OpenForensicLog(abs); err != nil {
			return nil, err
		}
	}
	if s.roles, err = evidence.LoadRegistry(abs); err != nil {
		return nil, fmt.Errorf("load evidence roles: %w", err)
	}
	s.log, err = eventlog.Open(filepath.Join(abs, LogFile), eventlog.Options{
		ReadOnly: readOnly,
		Actor:    eventlog.Actor{Client: opts.Client},
		Logger:   opts.Logger,
		OnCommit: s.publish,
	})
	if err != nil {
		return nil, err
	}
	set := NewProjectionSet()
	s.graph, s.board, s.series, s.bundles = set.Graph, set.Board, set.Series, set.Bundles
	projs := set.List()
	topts := projections.TailerOptions{StateDir: abs, Logger: opts.Logger, NoBackgroundSnapshots: opts.NoBackgroundSnapshots || readOnly}
	if readOnly {
		if s.tailer, err = projections.OpenAt(ctx, s.log, projs, *opts.At, topts); err != nil {
			return nil, err
		}
		if err := s.openTempIndex(ctx); err != nil {
			return nil, err
		}
	} else {
		if s.tailer, err = projections.NewTailer(s.log, projs, topts); err != nil {
			return nil, err
		}
		if err := s.tailer.Start(ctx); err != nil {
			if !errors.Is(err, eventlog.ErrIntegrity) {
				return nil, err
			}
			// DESIGN §3: writes are refused, reads still work — on the state
			// up to the damaged record. `cos verify` says where it breaks.
			s.logger.Error("the event log is damaged; serving the state before the damage, writes will be refused (run cos verify)", "err", err)
		}
		if s.index, err = search.OpenIndex(ctx, search.Options{Dir: filepath.Join(abs, "search"), Logger: opts.Logger}); err != nil {
			return nil, err
		}
		if err := s.followIndex(ctx); err != nil {
			return nil, err
		}
	}
	if s.resolver, err = search.NewResolver(s.graph, s.index, search.ResolverOptions{}); err != nil {
		return nil, err
	}
	if !readOnly {
		if err := s.openBus(ctx); err != nil {
			return nil, err
		}
	}
	s.register()
	ok = true
	return s, nil
}

// openTempIndex builds a search index of the point-in-time graph in a
// temporary folder.
func (s *Server) openTempIndex(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "cos-at-index-*")
	if err != nil {
		return err
	}
	s.tmpIndexDir = dir
	if s.index, err = search.OpenIndex(ctx, search.Options{Dir: dir, Logger: s.logger}); err != nil {
		return err
	}
	var nodes []graphNode
	var pos projections.Position
	s.tailer.View(func(p projections.Position) {
		pos = p
		s.graph.Nodes(func(n graphNode) bool { nodes = append(nodes, n); return true })
	})
	return s.indexNodes(ctx, nodes, nil, pos.Seq)
}

// openBus connects to NATS, publishes this process's commits and applies
// the others' as they arrive; every (re)connect catches up from the log.
func (s *Server) openBus(ctx context.Context) error {
	b, err := bus.Open(ctx, bus.Options{
		Mode:      s.opts.NATS,
		StateDir:  s.opts.StateDir,
		Namespace: s.opts.Namespace,
		Logger:    s.logger,
		Position:  func() uint64 { return s.tailer.Position().Seq },
	})
	if errors.Is(err, bus.ErrUnavailable) && s.opts.NATS == bus.ModeAuto {
		// The log is the truth and reads check it for freshness: without a
		// bus, other processes' writes still show up on the next call.
		s.logger.Warn("NATS unavailable; running without a bus (reads still see every commit through the log)", "err", err)
		return nil
	}
	if err != nil {
		return err
	}
	s.bus = b
	if _, err := b.Subscribe(bus.EventsSubject(b.Namespace(), ">"), func(ev eventlog.Event) {
		if err := s.tailer.Offer(context.Background(), ev); err != nil {
			s.logger.Warn("apply event from the bus", "seq", ev.Seq, "err", err)
		}
	}); err != nil {
		return fmt.Errorf("bus subscribe: %w", err)
	}
	b.OnReconnect(func() {
		if _, err := s.tailer.CatchUp(context.Background()); err != nil {
			s.logger.Warn("catch up after reconnect", "err", err)
		}
	})
	return nil
}

// publish is the log's OnCommit hook: it sends each committed event to the
// bus (a doorbell and a carrier; the log stays the truth).
func (s *Server) publish(evs []eventlog.Event) {
	b := s.bus
	if b == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, ev := range evs {
		if err := b.Publish(ctx, ev); err != nil {
			s.logger.Debug("publish event", "seq", ev.Seq, "err", err)
			return
		}
	}
}

// stateHashInView returns the combined state hash of the projections as
// lowercase hex: the same SHA-256 as projections.Tailer.StateHash (each
// projection's name, a zero byte and its StateHash, in ProjectionSet order),
// computed here because a tool handler already runs inside the tailer's view
// and the tailer's method would take its read lock a second time. Call it
// only inside a view.
func (s *Server) stateHashInView() string {
	h := sha256.New()
	for _, p := range s.tailer.Projections() {
		sum := p.StateHash()
		h.Write([]byte(p.Name()))
		h.Write([]byte{0})
		h.Write(sum[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Close stops the bus, the tailer, the index and the log. It is idempotent.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		if s.bus != nil {
			_ = s.bus.Close()
		}
		if s.tailer != nil {
			_ = s.tailer.Close()
		}
		if s.index != nil {
			_ = s.index.Close()
		}
		if s.log != nil {
			_ = s.log.Close()
		}
		if s.tmpIndexDir != "" {
			_ = os.RemoveAll(s.tmpIndexDir)
		}
		if s.forensicCloser != nil {
			_ = s.forensicCloser.Close()
		}
	})
	return nil
}

// StateDir returns the absolute state folder.
func (s *Server) StateDir() string { return s.opts.StateDir }

// ReadOnly reports whether the server is a point-in-time view.
func (s *Server) ReadOnly() bool { return s.opts.At != nil }

// Tailer returns the server's tailer (for replay, health and tests).
func (s *Server) Tailer() *projections.Tailer { return s.tailer }

// Log returns the server's event log.
func (s *Server) Log() *eventlog.Log { return s.log }
