package state

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
	"sync"
	"sync/atomic"
	"time"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/projections/evidence"
	"github.com/cos-dev/cos/projections/metrics"
	"github.com/cos-dev/cos/projections/tasks"
	"github.com/cos-dev/cos/search"
)

// State is one process's view of a state folder: the event log, the
// projections a tailer keeps at its head, this process's search index slot,
// the bus that carries commits between processes, the evidence role
// registry and the module gate. It is safe for concurrent use.
//
// Reads go through Read (or View for a read-back after a write); writes go
// through Append. A State opened with Options.At is a frozen, read-only
// view of the log at that position: Append fails with ErrReadOnly.
type State struct {
	opts Options
	log  Log
	// logLocation names the log for health and errors: the file's path,
	// or the NATS servers and stream.
	logLocation string
	tailer      *projections.Tailer
	graph       *projections.Graph
	board       *tasks.Board
	series      *metrics.Series
	bundles     *evidence.Bundles
	roles       *evidence.Registry
	index       *search.Index
	// searchFollower keeps index in step with the graph (follow.go).
	searchFollower *indexFollower
	// resolver reads graph: use it only inside a view.
	resolver *search.Resolver
	bus      *bus.Bus
	modules  *moduleGate
	started  time.Time
	logger   *slog.Logger

	forensic       *slog.Logger
	forensicCloser io.Closer
	// tmpIndexDir is the search index of a point-in-time view, removed on
	// Close.
	tmpIndexDir string

	// damage is what the last catch-up found wrong with the log; nil when
	// it read cleanly (see Integrity).
	damage atomic.Pointer[Integrity]
	// chainDamage is where the background walk of the hash chain from
	// seq 1 (verifyChain, started by Open) found the log broken; nil while
	// it runs and when the chain verified. chainDone is closed when it has
	// finished (at once for a point-in-time view); writes wait for it.
	// chainStop and chainWG stop and wait for it.
	chainDamage atomic.Pointer[chainBreak]
	chainDone   chan struct{}
	chainStop   context.CancelFunc
	chainWG     sync.WaitGroup
	// followStop and followWG stop and wait for the follow of a log that
	// pushes new events (startStoreFollow).
	followStop context.CancelFunc
	followWG   sync.WaitGroup
	// writable is false when the state folder cannot be written (a
	// read-only mount or permissions): the log is then opened read-only,
	// and there is no forensic log, snapshot, search slot or bus.
	writable bool

	// snapFail is the last failed snapshot attempt (nil: the last one
	// succeeded); snapSeq the seq of the newest snapshot written or found.
	// snapStop and snapWG stop and wait for the snapshot loop.
	snapFail atomic.Pointer[SnapshotFailure]
	snapSeq  atomic.Uint64
	snapStop context.CancelFunc
	snapWG   sync.WaitGroup
	// replayBytes is the event data (bytes) the projections applied since
	// the snapshot they were loaded from or this process last wrote: what
	// a process started now would replay from the log (ReplayBytes).
	replayBytes atomic.Int64

	// snapHolds counts the HoldSnapshots not yet released: while it is
	// above zero the background loop writes no snapshot.
	snapHolds atomic.Int32

	closeOnce sync.Once
	closeErr  error

	// seen is the newest log position the folder has seen (logseen.go).
	seen seenMark

	// past caches point-in-time views by seq (at.go); Close closes them.
	past pastCache

	// notify delivers applied events and module switches to subscribers
	// (notify.go); created on first use, closed first by Close.
	notifyOnce sync.Once
	notify     *notifier
}

// ErrReadOnly is returned by Append on a point-in-time State (Options.At).
var ErrReadOnly = errors.New("read-only view of the log")

// Open opens the state folder: the event log, the projections (from the
// newest snapshot plus the log's tail), this process's search index slot,
// and the bus. With opts.At it opens a frozen, read-only view instead. A
// damaged log (eventlog.ErrIntegrity) is not an error here: reads answer from
// the state before the damage and the log refuses writes.
//
// Errors: *OpenError wrapping ErrOptions for an invalid option, or the
// cause (not a directory, permission denied, not a cos event log, NATS
// unreachable with a nats:// URL, ctx.Err()).
func Open(ctx context.Context, opts Options) (*State, error) {
	s, err := open(ctx, opts)
	if err != nil {
		return nil, &OpenError{StateDir: opts.Dir, Err: err}
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

// Unavailable reports whether the folder could not be opened because NATS
// could not be reached or was misconfigured (a retry or another --nats may
// help), rather than because of the folder itself.
func (e *OpenError) Unavailable() bool {
	return errors.Is(e.Err, bus.ErrUnavailable) || errors.Is(e.Err, bus.ErrInvalidOptions)
}

func open(ctx context.Context, opts Options) (*State, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	abs, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	opts.Dir = abs
	s := &State{opts: opts, started: time.Now(), logger: opts.Logger, modules: newModuleGate(abs), chainDone: make(chan struct{})}
	ok := false
	defer func() {
		if !ok {
			_ = s.Close(context.Background())
		}
	}()
	readOnly := opts.At != nil
	s.writable = !readOnly
	if !readOnly {
		if _, err := os.Stat(abs); err == nil && !dirWritable(abs) {
			// A read-only folder (mount or permissions) can still be read:
			// the log opens read-only and writes get E_READ_ONLY.
			s.writable = false
			s.logger.Warn("the state folder is read-only; serving reads, refusing writes", "dir", abs)
		} else if err := EnsureDir(abs); err != nil {
			return nil, err
		}
	}
	if s.writable {
		if s.forensic, s.forensicCloser, err = envelope.OpenForensicLog(abs); err != nil {
			return nil, err
		}
	}
	if s.roles, err = evidence.LoadRegistry(abs); err != nil {
		return nil, fmt.Errorf("load evidence roles: %w", err)
	}
	store, err := ParseStore(abs, opts.Store)
	if err != nil {
		return nil, err
	}
	s.logLocation = store.String()
	if s.log, err = OpenLog(ctx, abs, LogOptions{ReadOnly: !s.writable, CreateStream: opts.CreateStream, Client: opts.Client, Logger: opts.Logger, OnCommit: s.publish, Store: opts.Store}); err != nil {
		return nil, err
	}
	set := NewProjectionSet()
	s.graph, s.board, s.series, s.bundles = set.Graph, set.Board, set.Series, set.Bundles
	projs := set.List()
	// The state runs the background snapshots itself (startSnapshots), so
	// that a failure reaches health.
	topts := projections.TailerOptions{StateDir: abs, Logger: opts.Logger, NoBackgroundSnapshots: true}
	if readOnly {
		if s.tailer, err = projections.OpenAt(ctx, s.log, projs, *opts.At, topts); err != nil {
			return nil, err
		}
		if err := s.openTempIndex(ctx); err != nil {
			return nil, err
		}
		close(s.chainDone)
	} else {
		// The walk of the whole chain reads every record (hashVerifier:
		// about 3 CPU-s on the Linux kernel's 1.2 GB log at load 11). A
		// process about to write starts it at once, on the other core
		// while the projections load, since writes wait for it; any other
		// starts it once they are loaded, so that it does not compete with
		// them, and reads never wait for it.
		if opts.WritesSoon {
			s.startChainCheck()
		}
		if s.tailer, err = projections.NewTailer(s.log, projs, topts); err != nil {
			return nil, err
		}
		// Registered before Start, so that the tail replayed after the
		// snapshot counts.
		s.tailer.OnApplied(s.countReplay)
		if err := s.noteCatchUp(ctx, s.tailer.Start(ctx)); err != nil {
			if !errors.Is(err, eventlog.ErrIntegrity) {
				return nil, err
			}
			// Writes are refused, reads still work — on the state up to
			// the damaged record; `cos verify` says where it breaks.
			s.logger.Error("the event log is damaged; serving the state before the damage, writes will be refused (cos verify --salvage writes a copy of every event that still verifies)", "err", err)
		}
		s.checkSeen(ctx)
		indexDir := filepath.Join(abs, SearchDir)
		if !s.writable || opts.NoSnapshots {
			// No slot can be created in a read-only folder, and a process
			// with an overlay must not leave its view in a slot the next
			// process reuses: index into a temporary folder, removed on
			// Close.
			if s.tmpIndexDir, err = os.MkdirTemp("", "cos-ro-index-*"); err != nil {
				return nil, err
			}
			indexDir = s.tmpIndexDir
		}
		if s.index, err = search.OpenIndex(ctx, search.Options{Dir: indexDir, Logger: opts.Logger, FlushDelay: opts.SearchFlushDelay}); err != nil {
			return nil, err
		}
		if err := s.followIndex(ctx); err != nil {
			return nil, err
		}
		if !opts.WritesSoon {
			s.startChainCheck()
		}
		if s.writable && !opts.NoBackgroundSnapshots && !opts.NoSnapshots {
			s.startSnapshots()
		}
		s.startStoreFollow()
	}
	if s.resolver, err = search.NewResolver(s.graph, s.index, search.ResolverOptions{}); err != nil {
		return nil, err
	}
	if s.writable {
		if err := s.openBus(ctx); err != nil {
			return nil, err
		}
	}
	ok = true
	return s, nil
}

// openTempIndex builds a search index of the point-in-time graph in a
// temporary folder.
func (s *State) openTempIndex(ctx context.Context) error {
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

// Close stops the bus, the tailer (and its background snapshots), the
// search index and the log, in that order, waits for each, and returns the
// first error. It is idempotent: later calls return the same error. ctx
// bounds nothing today (every part closes promptly); it is there for a log
// backend that must drain.
func (s *State) Close(ctx context.Context) error {
	s.closeOnce.Do(func() {
		s.notifierOf().close()
		s.past.closeAll()
		var errs []error
		if s.bus != nil {
			errs = append(errs, s.bus.Close())
		}
		if s.snapStop != nil {
			s.snapStop()
			s.snapWG.Wait()
		}
		if s.chainStop != nil {
			s.chainStop()
			s.chainWG.Wait()
		}
		if s.followStop != nil {
			s.followStop()
			s.followWG.Wait()
		}
		if s.tailer != nil {
			s.saveSeen(context.WithoutCancel(ctx))
			errs = append(errs, s.tailer.Close())
		}
		if s.index != nil {
			errs = append(errs, s.index.Close())
		}
		if s.log != nil {
			errs = append(errs, s.log.Close(ctx))
		}
		if s.tmpIndexDir != "" {
			errs = append(errs, os.RemoveAll(s.tmpIndexDir))
		}
		if s.forensicCloser != nil {
			errs = append(errs, s.forensicCloser.Close())
		}
		for _, err := range errs {
			if err != nil {
				s.closeErr = err
				break
			}
		}
	})
	return s.closeErr
}

// Dir returns the absolute state folder.
func (s *State) Dir() string { return s.opts.Dir }

// ReadOnly reports whether the state is a point-in-time view (Options.At).
func (s *State) ReadOnly() bool { return s.opts.At != nil }

// Writable reports whether this state can append: false for a
// point-in-time view and for a state folder this process cannot write
// (Append then fails with eventlog.ErrReadOnly).
func (s *State) Writable() bool { return s.writable }

// Client is the MCP client name recorded on the events this state appends
// (Options.Client).
func (s *State) Client() string { return s.opts.Client }

// Logger is where diagnostics go (never stdout).
func (s *State) Logger() *slog.Logger { return s.logger }

// Forensic is the forensic call log (<state>/.mcp.log), nil on a read-only
// view.
func (s *State) Forensic() *slog.Logger { return s.forensic }

// Roles is the evidence role registry of the state folder (read once at
// Open; roles.json overrides the defaults).
func (s *State) Roles() *evidence.Registry { return s.roles }

// Tailer returns the tailer that keeps the projections current (for
// replay, health and tests).
func (s *State) Tailer() *projections.Tailer { return s.tailer }

// Log returns the event log.
func (s *State) Log() Log { return s.log }

// ModuleEnabled reports whether module is on in this state folder; an
// unreadable module file leaves every module on and is reported in err.
func (s *State) ModuleEnabled(module string) (bool, error) { return s.modules.enabled(module) }

// stateHashInView returns the combined state hash of the projections as
// lowercase hex: the same SHA-256 as projections.Tailer.StateHash (each
// projection's name, a zero byte and its StateHash, in ProjectionSet order),
// computed here because a view already holds the tailer's read lock and the
// tailer's method would take it a second time. Call it only inside a view.
func (s *State) stateHashInView() string {
	h := sha256.New()
	for _, p := range s.tailer.Projections() {
		sum := p.StateHash()
		h.Write([]byte(p.Name()))
		h.Write([]byte{0})
		h.Write(sum[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Bus returns the bus this state publishes to and listens on, nil when it
// runs without one (--nats off, NATS unavailable, a point-in-time view).
func (s *State) Bus() *bus.Bus { return s.bus }
