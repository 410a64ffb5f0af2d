package indexing

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/cos-dev/cos/gitfiles"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/state"
)

// ErrAlreadyIndexed is returned by IndexWith with RunOptions.UnlessIndexed
// when, once the run holds the index lock, the graph already holds an index
// of the folder (Indexed): another run, often another server's, did it
// meanwhile, and this one did nothing.
var ErrAlreadyIndexed = errors.New("the graph already holds an index of this folder")

// Indexed reports whether the graph holds an index of the folder abs
// (absolute, symlinks resolved): abs is one of its roots, or lies inside
// one, and that root's last index run finished whole. On a log written
// before index runs were recorded, abs must be the folder last indexed
// (IndexedRoot). A run killed or cancelled part way does not count: the
// graph holds part of the tree.
func (x *Indexer) Indexed(abs string) bool {
	var roots []projections.IndexRun
	if err := x.st.Read(context.Background(), func(v state.View) { roots = v.Graph.Roots() }); err != nil {
		return false
	}
	if len(roots) == 0 {
		return x.IndexedRoot() == abs
	}
	for _, r := range roots {
		if r.Root == abs || within(r.Root, abs) {
			return r.Finished.Seq != 0 && r.Error == ""
		}
	}
	return false
}

// StartRun is the index run a server began at start (IndexAtStart), as
// cos_health shows it.
type StartRun struct {
	// Root is the absolute folder being indexed.
	Root string `json:"root"`
	// State is "waiting" (for another index run of this state folder, this
	// process's or another's, to finish; the folder is then indexed only if
	// it still is not) or "running".
	State string `json:"state"`
	// The counts are the run's Progress: files accepted by the walk, changed
	// (to extract), extracted, and appended to the log (in the graph).
	FilesSeen      int `json:"files_seen"`
	FilesChanged   int `json:"files_changed"`
	FilesExtracted int `json:"files_extracted"`
	FilesAppended  int `json:"files_appended"`
	// Message says where the run is in a line for a person.
	Message string `json:"message"`
	// Error is why a failed run failed (State "failed").
	Error string `json:"error,omitempty"`
}

// Start run states (StartRun.State).
const (
	StartWaiting = "waiting"
	StartRunning = "running"
	// StartFailed is a start run that ended in an error: the server answers
	// from the graph as it was, and StartStatus keeps saying so until a
	// later run of the same folder (at start, cos index, the tool) succeeds.
	StartFailed = "failed"
)

// startState is what StartRunning reports of one Indexer.
type startState struct {
	// mu guards run and failed.
	mu  sync.Mutex
	run *StartRun
	// failed are the start runs that failed, by folder.
	failed map[string]StartRun
}

func (s *startState) fail(r StartRun) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed == nil {
		s.failed = map[string]StartRun{}
	}
	s.failed[r.Root] = r
}

func (s *startState) succeed(root string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.failed, root)
}

func (s *startState) set(r *StartRun) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.run = r
}

// Starting returns the index run this process began at start while it is
// waiting or running, and false when there is none (never started, done,
// or skipped, or x is nil).
func (x *Indexer) Starting() (StartRun, bool) {
	if x == nil {
		return StartRun{}, false
	}
	x.start.mu.Lock()
	defer x.start.mu.Unlock()
	if x.start.run == nil {
		return StartRun{}, false
	}
	return *x.start.run, true
}

// StartStatus returns what cos_health shows of the start index: the run
// under way (Starting), else a start run that failed (State "failed", the
// first by folder), and false when there is neither.
func (x *Indexer) StartStatus() (StartRun, bool) {
	if r, ok := x.Starting(); ok || x == nil {
		return r, ok
	}
	x.start.mu.Lock()
	defer x.start.mu.Unlock()
	for _, root := range slices.Sorted(maps.Keys(x.start.failed)) {
		return x.start.failed[root], true
	}
	return StartRun{}, false
}

// startRoots are the folders IndexAtStart looks at: every approved root
// (Options.Roots), else the working directory when it lies in a git work
// tree and the graph records no index at all — a server started in a home
// folder does not walk it, and one started elsewhere does not replace the
// tree another folder's index put in the graph.
func (x *Indexer) startRoots(ctx context.Context) []string {
	if len(x.opts.Roots) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return nil
		}
		var recorded bool
		if err := x.st.Read(ctx, func(v state.View) { _, recorded = v.Graph.LastIndex() }); err != nil || recorded || x.IndexedRoot() != "" {
			return nil
		}
		if _, err := gitfiles.TopLevel(ctx, wd); err != nil {
			x.logger.Info("the working directory is not in a git work tree, so it is not indexed at start; run cos index PATH or start the server with --root", "dir", wd)
			return nil
		}
		return []string{wd}
	}
	out := make([]string, 0, len(x.opts.Roots))
	for _, r := range x.opts.Roots {
		if abs, err := filepath.Abs(r); err == nil {
			out = append(out, abs)
		}
	}
	return out
}

// IndexAtStart indexes, one after the other, each folder of startRoots the
// graph holds no index of (Indexed), and returns when done or when ctx
// ends (the run under way is then cancelled, and the log records it as
// stopped). It is what `cos serve` runs in the background: reads answer
// meanwhile, and Starting says how far it is. Runs take the index lock like
// any other, so of several servers starting on one state folder one indexes
// and the others wait, then find the folder indexed and do nothing. A
// failed run is logged, not returned: the server serves the graph as it is.
// A read-only state does nothing.
func (x *Indexer) IndexAtStart(ctx context.Context) {
	if x.st.ReadOnly() || !x.st.Writable() {
		return
	}
	defer x.start.set(nil)
	for _, root := range x.startRoots(ctx) {
		abs := root
		if real, err := filepath.EvalSymlinks(root); err == nil {
			abs = real
		}
		if x.Indexed(abs) {
			x.start.succeed(abs)
			continue
		}
		x.start.set(&StartRun{Root: abs, State: StartWaiting, Message: "waiting for another index run of this state folder to finish"})
		x.logger.Info("the graph holds no index of this folder: indexing it in the background", "root", abs)
		rep, err := x.IndexWith(ctx, abs, RunOptions{UnlessIndexed: true, Report: func(p Progress) {
			x.start.set(&StartRun{Root: abs, State: StartRunning, FilesSeen: p.FilesSeen, FilesChanged: p.FilesChanged,
				FilesExtracted: p.FilesExtracted, FilesAppended: p.FilesAppended, Message: p.Message()})
		}})
		switch {
		case errors.Is(err, ErrAlreadyIndexed):
			x.logger.Info("another index run indexed this folder meanwhile", "root", abs)
			x.start.succeed(abs)
		case ctx.Err() != nil:
			return
		case err != nil:
			x.logger.Warn("indexing this folder at start failed; the server answers from the graph as it is", "root", abs, "err", err)
			x.start.fail(StartRun{Root: abs, State: StartFailed, Error: err.Error(),
				Message: fmt.Sprintf("indexing %s at start failed; the graph holds no index of it", abs)})
			continue
		default:
			x.start.succeed(abs)
			x.logger.Info("indexed at start", "root", abs, "files", rep.FilesSeen, "changed", rep.FilesChanged, "seconds", rep.Seconds)
		}
	}
}

// NotFoundReason says why a graph read found nothing when the reason is
// the graph rather than the question: the graph is empty (no index run
// recorded and no file), or this process's start index is still filling
// it (filling: trying again shortly may find it). "" otherwise, and when x
// is nil. Call it inside the view v.
func (x *Indexer) NotFoundReason(v state.View) (why string, filling bool) {
	if x == nil {
		return "", false
	}
	if r, ok := x.Starting(); ok {
		if r.State == StartWaiting {
			return fmt.Sprintf("the index of %s is about to run (it waits for another index run of this state folder); try again shortly", r.Root), true
		}
		done := fmt.Sprintf("%d of %d files", r.FilesAppended, r.FilesChanged)
		if r.FilesChanged == 0 {
			done = "listing the files"
		}
		return fmt.Sprintf("the index of %s is running (%s); try again shortly", r.Root, done), true
	}
	if r, ok := x.StartStatus(); ok && r.State == StartFailed {
		return fmt.Sprintf("indexing %s at start failed (%s); fix that and run cos_graph_index {\"path\": %q}", r.Root, r.Error, r.Root), false
	}
	if _, ok := v.Graph.LastIndex(); ok || v.Graph.Counts().Files > 0 || x.IndexedRoot() != "" {
		return "", false
	}
	path := "PATH"
	if p, err := x.ApprovedPath(""); err == nil {
		path = p
	}
	return fmt.Sprintf("the graph is empty: no folder has been indexed yet; run cos_graph_index {\"path\": %q} or `cos index %s`", path, path), false
}
