package indexing

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/gitfiles"
	"github.com/cos-dev/cos/state"
)

// Defaults of WatchOptions.
const (
	// DefaultWatchQuiet is how long the tree must be quiet after an event
	// before the changed paths are indexed.
	DefaultWatchQuiet = 120 * time.Millisecond
	// DefaultWatchMaxDelay is the longest a burst of events delays its
	// run, counted from the burst's first event.
	DefaultWatchMaxDelay = 800 * time.Millisecond
	// DefaultWatchMaxPaths is how many changed paths one run takes
	// targeted; a burst over it (a branch switch) runs over the whole
	// tree.
	DefaultWatchMaxPaths = 2000
	// DefaultWatchRootPoll is how often the watcher looks whether the
	// graph was indexed from another folder (or, before any index, from a
	// first one).
	DefaultWatchRootPoll = time.Second
	// DefaultWatchRetry is the first wait before a failed run is tried
	// again; it doubles on each failure up to maxWatchRetry.
	DefaultWatchRetry = 2 * time.Second
	// maxWatchRetry bounds the back-off of failed runs.
	maxWatchRetry = 30 * time.Second
	// watchEventBuffer is how many events fsnotify queues for the loop
	// while a run is in progress.
	watchEventBuffer = 4096
	// gitArgBatch is how many paths one git check-ignore call is given.
	gitArgBatch = 500
)

// WatchOptions tune Watch. Every zero field takes its default; a negative
// one is an error wrapping ErrOptions.
type WatchOptions struct {
	// Quiet, MaxDelay: a burst of events is indexed once the tree has
	// been quiet for Quiet, and at most MaxDelay after its first event.
	Quiet    time.Duration
	MaxDelay time.Duration
	// MaxPaths is the most changed paths a run takes one by one; more
	// make a run over the whole tree.
	MaxPaths int
	// RootPoll is how often the indexed root is looked up again.
	RootPoll time.Duration
	// ElectRetry is how often a process that is not the watcher tries to
	// become it (default DefaultElectRetry).
	ElectRetry time.Duration
	// Retry is the first back-off after a failed run (default
	// DefaultWatchRetry), doubling up to 30 s.
	Retry time.Duration
	// OnRun, when set, is called after each run from the watching
	// goroutine.
	OnRun func(WatchRun)
}

// WatchRun is one run of the watcher, for WatchOptions.OnRun.
type WatchRun struct {
	// Root is the folder indexed.
	Root string
	// Paths is the number of changed paths the run looked at again; 0
	// when Full.
	Paths int
	// Full is set for a run over the whole tree: the first run of a
	// watch, a branch switch, a .gitignore change, a burst over MaxPaths
	// or an overflow of the event queue.
	Full bool
	// Report is what the run did; Err why it failed (it is tried again).
	Report Report
	Err    error
}

// Validate reports a negative field as an error wrapping ErrOptions.
func (o WatchOptions) Validate() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"Quiet", o.Quiet}, {"MaxDelay", o.MaxDelay}, {"RootPoll", o.RootPoll}, {"ElectRetry", o.ElectRetry}, {"Retry", o.Retry}} {
		if d.v < 0 {
			return fmt.Errorf("%w: watch %s %v < 0", ErrOptions, d.name, d.v)
		}
	}
	if o.MaxPaths < 0 {
		return fmt.Errorf("%w: watch MaxPaths %d < 0", ErrOptions, o.MaxPaths)
	}
	return nil
}

func (o WatchOptions) withDefaults() WatchOptions {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&o.Quiet, DefaultWatchQuiet)
	def(&o.MaxDelay, DefaultWatchMaxDelay)
	def(&o.RootPoll, DefaultWatchRootPoll)
	def(&o.ElectRetry, DefaultElectRetry)
	def(&o.Retry, DefaultWatchRetry)
	if o.MaxPaths == 0 {
		o.MaxPaths = DefaultWatchMaxPaths
	}
	return o
}

// errRootChanged ends the watch of the roots: a root was added or
// removed.
var errRootChanged = errors.New("the indexed roots changed")

// Watch keeps the graph current with the folders of its roots until ctx
// ends. Several processes on one state folder
// elect one watcher (state.WatchLockFile); the others wait, trying again
// every ElectRetry, and one of them takes over when the watcher stops or
// dies. Before any index it waits (looking every RootPoll) for a first
// one; when a root is added or removed it follows.
//
// The watcher runs a full index first (catching what changed while nobody
// watched), then one targeted run (RunOptions.Paths) per burst of file
// system events, after Quiet without events and at most MaxDelay after the
// burst's first event. A branch switch (HEAD moves), a .gitignore change,
// more than MaxPaths paths or an overflow of the event queue make a full
// run instead. The state folder, .git, the excluded folders and the
// folders git ignores are not watched. A failed run is logged and tried
// again on the next event or after a back-off; it never ends Watch.
//
// Watch returns nil when ctx ends, an error wrapping ErrOptions for bad
// options, or an error when the watch lock cannot be taken at all (an
// unwritable state folder).
func (x *Indexer) Watch(ctx context.Context, o WatchOptions) error {
	if err := o.Validate(); err != nil {
		return err
	}
	o = o.withDefaults()
	if x.st.ReadOnly() || !x.st.Writable() {
		return fmt.Errorf("watch: the state folder %s is read-only", x.st.Dir())
	}
	lock, err := x.elect(ctx, o.ElectRetry)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer func() {
		x.setWatching(false, "")
		watchStates.Delete(x)
		_ = lock.Unlock()
	}()
	x.setWatching(true, "")
	x.logger.Info("watching the indexed tree for changes")
	for {
		roots, ok := x.awaitRoots(ctx, o.RootPoll)
		if !ok {
			return nil
		}
		x.setWatching(true, strings.Join(roots, ", "))
		// One watch per root; when one ends (an error, or the roots
		// changed) they all end and the set is watched afresh.
		wctx, cancel := context.WithCancel(ctx)
		errs := make(chan error, len(roots))
		for _, root := range roots {
			go func() { errs <- x.watchRoot(wctx, root, roots, o) }()
		}
		err := <-errs
		cancel()
		for range len(roots) - 1 {
			if e := <-errs; err == nil {
				err = e
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		if err != nil && !errors.Is(err, errRootChanged) {
			x.logger.Warn("watching the tree failed; trying again", "roots", roots, "err", err, "in", o.Retry)
			if !sleep(ctx, o.Retry) {
				return nil
			}
		}
	}
}

// rootFolders returns the folders of the graph's roots that are folders
// on disk, sorted; before any root is recorded in the graph, the folder
// the last index named (IndexedRoot), if any.
func (x *Indexer) rootFolders(ctx context.Context) []string {
	var out []string
	_ = x.st.Read(ctx, func(v state.View) {
		for _, r := range v.Graph.Roots() {
			out = append(out, r.Root)
		}
	})
	if len(out) == 0 {
		if r := x.IndexedRoot(); r != "" {
			out = append(out, r)
		}
	}
	kept := out[:0]
	for _, r := range out {
		if fi, err := os.Stat(r); err == nil && fi.IsDir() {
			kept = append(kept, r)
		}
	}
	slices.Sort(kept)
	return kept
}

// awaitRoots returns the graph's root folders, looking every poll until
// there is one; false when ctx ends first.
func (x *Indexer) awaitRoots(ctx context.Context, poll time.Duration) ([]string, bool) {
	for {
		if rs := x.rootFolders(ctx); len(rs) > 0 {
			return rs, true
		}
		if !sleep(ctx, poll) {
			return nil, false
		}
	}
}

// sleep waits d or until ctx ends (false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// treeWatch is the watch of one root.
type treeWatch struct {
	x        *Indexer
	w        *fsnotify.Watcher
	root     string
	stateDir string
	exclude  map[string]bool
	// gitDir is the repository's git folder when root is in a work tree
	// ("" otherwise): HEAD and the index are watched there.
	gitDir string
	head   string
	// watched are the folders with a watch, by absolute path.
	watched map[string]bool
	// burst is the changed paths not yet indexed (repo-relative), full
	// whether the next run covers the whole tree.
	burst map[string]bool
	full  bool
}

// watchRoot watches root, one of the roots all, until ctx ends or the
// graph's roots change (errRootChanged).
func (x *Indexer) watchRoot(ctx context.Context, root string, all []string, o WatchOptions) error {
	w, err := fsnotify.NewBufferedWatcher(watchEventBuffer)
	if err != nil {
		return fmt.Errorf("start the file system watcher: %w", err)
	}
	defer func() { _ = w.Close() }()
	t := &treeWatch{x: x, w: w, root: root, watched: map[string]bool{}, burst: map[string]bool{}, full: true,
		exclude: map[string]bool{".git": true}}
	for _, d := range append(append([]string(nil), extract.DefaultExcludeDirs...), x.opts.Exclude...) {
		t.exclude[d] = true
	}
	t.stateDir = x.st.Dir()
	if real, err := filepath.EvalSymlinks(t.stateDir); err == nil {
		t.stateDir = real
	}
	if out, err := gitfiles.Git(ctx, root, "rev-parse", "--absolute-git-dir"); err == nil {
		t.gitDir = strings.TrimSpace(string(out))
		if err := w.Add(t.gitDir); err != nil {
			x.logger.Warn("branch switches are not watched", "err", err)
		}
		t.head, _ = gitfiles.Head(ctx, root)
	}
	if err := t.addTree(ctx, root); err != nil {
		return err
	}
	x.logger.Debug("watching", "root", root, "folders", len(t.watched))

	// The first run catches what changed while nobody watched.
	timer := time.NewTimer(0)
	defer timer.Stop()
	poll := time.NewTicker(o.RootPoll)
	defer poll.Stop()
	var first time.Time // first event of the burst not yet indexed
	retry := o.Retry
	schedule := func() {
		now := time.Now()
		if first.IsZero() {
			first = now
		}
		next := min(o.Quiet, first.Add(o.MaxDelay).Sub(now))
		timer.Reset(max(next, 0))
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-poll.C:
			if rs := x.rootFolders(ctx); len(rs) > 0 && !slices.Equal(rs, all) {
				x.logger.Info("the graph's roots changed; watching them instead", "roots", rs)
				return errRootChanged
			}
		case err, ok := <-w.Errors:
			if !ok {
				return errors.New("the file system watcher stopped")
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				t.full = true
				schedule()
				continue
			}
			x.logger.Warn("file system watcher", "err", err)
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("the file system watcher stopped")
			}
			if t.note(ctx, ev, o.MaxPaths) {
				schedule()
			}
		case <-timer.C:
			if !t.full && len(t.burst) == 0 {
				continue
			}
			if err := t.run(ctx, o); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				timer.Reset(retry)
				retry = min(retry*2, maxWatchRetry)
				first = time.Time{}
				continue
			}
			retry = o.Retry
			first = time.Time{}
		}
	}
}

// note takes one event into the burst; false when it changes nothing the
// index sees.
func (t *treeWatch) note(ctx context.Context, ev fsnotify.Event, maxPaths int) bool {
	if ev.Op == fsnotify.Chmod {
		return false // content and names unchanged
	}
	if t.gitDir != "" && filepath.Dir(ev.Name) == t.gitDir {
		switch filepath.Base(ev.Name) {
		case "HEAD", "index":
			// A checkout, reset or merge moves HEAD (the index file is
			// rewritten too); git status rewrites the index alone.
			if h, err := gitfiles.Head(ctx, t.root); err == nil && h != t.head {
				t.head = h
				t.full = true
				return true
			}
		}
		return false
	}
	rel, err := filepath.Rel(t.root, ev.Name)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return false
	}
	if ev.Name == t.stateDir || strings.HasPrefix(ev.Name, t.stateDir+string(filepath.Separator)) {
		return false
	}
	rel = filepath.ToSlash(rel)
	for part := range strings.SplitSeq(rel, "/") {
		if t.exclude[part] {
			return false
		}
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			if err := t.addTree(ctx, ev.Name); err != nil {
				t.x.logger.Warn("a new folder is not watched", "path", ev.Name, "err", err)
			}
		}
	}
	if (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) && t.watched[ev.Name] {
		t.dropTree(ev.Name)
	}
	if filepath.Base(ev.Name) == ".gitignore" {
		t.full = true // what is kept changes anywhere below it
	}
	t.burst[rel] = true
	if len(t.burst) > maxPaths {
		t.full = true
	}
	return true
}

// run indexes the burst: targeted, or the whole tree when full.
func (t *treeWatch) run(ctx context.Context, o WatchOptions) error {
	var ro RunOptions
	paths := 0
	if !t.full {
		ro.Paths = make([]string, 0, len(t.burst))
		for p := range t.burst {
			ro.Paths = append(ro.Paths, p)
		}
		sort.Strings(ro.Paths)
		paths = len(ro.Paths)
	}
	full := t.full
	burst := t.burst
	t.burst, t.full = map[string]bool{}, false
	rep, err := t.x.IndexWith(ctx, t.root, ro)
	if o.OnRun != nil {
		o.OnRun(WatchRun{Root: t.root, Paths: paths, Full: full, Report: rep, Err: err})
	}
	if err != nil {
		// Tried again with whatever arrives meanwhile.
		for p := range burst {
			t.burst[p] = true
		}
		t.full = t.full || full
		if ctx.Err() == nil {
			t.x.logger.Warn("indexing changed files failed; trying again", "root", t.root, "paths", paths, "full", full, "err", err)
		}
		return err
	}
	t.x.logger.Debug("indexed changed files", "root", t.root, "paths", paths, "full", full,
		"changed", rep.FilesChanged, "removed", rep.FilesRemoved, "seconds", rep.Seconds)
	return nil
}

// addTree adds a watch on dir and every folder below it, except the state
// folder, excluded folder names, nested repositories (a folder holding
// .git, inside a work tree) and, inside a work tree, folders git ignores.
func (t *treeWatch) addTree(ctx context.Context, dir string) error {
	var dirs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if d != nil && d.IsDir() && p != dir {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p != t.root {
			if t.exclude[d.Name()] || p == t.stateDir {
				return fs.SkipDir
			}
			if t.gitDir != "" {
				if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
					return fs.SkipDir // another repository: not this tree
				}
			}
		}
		dirs = append(dirs, p)
		return nil
	})
	if err != nil {
		return err
	}
	ignored := t.gitIgnored(ctx, dirs)
	for _, d := range dirs {
		if ignoredBelow(ignored, d, t.root) || t.watched[d] {
			continue
		}
		if err := t.w.Add(d); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // gone already: its removal is an event of its parent
			}
			return fmt.Errorf("watch %s: %w (on Linux, raise fs.inotify.max_user_watches)", d, err)
		}
		t.watched[d] = true
	}
	return nil
}

// dropTree forgets the watches of dir and below (a folder removed or
// renamed away: its new name, if any, arrives as a create).
func (t *treeWatch) dropTree(dir string) {
	prefix := dir + string(filepath.Separator)
	for d := range t.watched {
		if d == dir || strings.HasPrefix(d, prefix) {
			_ = t.w.Remove(d)
			delete(t.watched, d)
		}
	}
}

// ignoredBelow reports whether d or a folder above it (up to root) is in
// ignored.
func ignoredBelow(ignored map[string]bool, d, root string) bool {
	for len(ignored) > 0 && d != root && len(d) > len(root) {
		if ignored[d] {
			return true
		}
		d = filepath.Dir(d)
	}
	return false
}

// gitIgnored returns which of dirs git ignores (none outside a work tree
// or without git: their files are then filtered by the index run itself).
func (t *treeWatch) gitIgnored(ctx context.Context, dirs []string) map[string]bool {
	out := map[string]bool{}
	if t.gitDir == "" {
		return out
	}
	for i := 0; i < len(dirs); i += gitArgBatch {
		batch := dirs[i:min(i+gitArgBatch, len(dirs))]
		args := []string{"check-ignore", "--"}
		for _, d := range batch {
			if d != t.root {
				args = append(args, d+string(filepath.Separator))
			}
		}
		res, err := gitfiles.Git(ctx, t.root, args...)
		if err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 { // 1: none ignored
				t.x.logger.Debug("git check-ignore", "err", err)
			}
			continue
		}
		for line := range strings.SplitSeq(strings.TrimSpace(string(res)), "\n") {
			if line == "" {
				continue
			}
			p := strings.TrimSuffix(line, "/")
			if !filepath.IsAbs(p) {
				p = filepath.Join(t.root, p)
			}
			out[filepath.Clean(p)] = true
		}
	}
	return out
}
