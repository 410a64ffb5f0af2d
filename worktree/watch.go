package worktree

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Delays of Watch and Footprints.Run.
const (
	// SyncDelay is how long Watch waits after the last write before it
	// syncs the overlay.
	SyncDelay = 200 * time.Millisecond
	// FootprintDelay is how long Footprints.Run waits after the last
	// change before it derives the footprints again (at least a second, so
	// a burst of saves records one event).
	FootprintDelay = time.Second
)

// Watch keeps the overlay current until ctx ends: it syncs once, then
// again SyncDelay after each burst of writes under the worktree (its .git
// folder and the excluded folders aside), and calls onSync with each
// result that applied anything. It returns ctx's error, or the watcher's
// when it cannot start.
func (ov *Overlay) Watch(ctx context.Context, onSync func(SyncResult)) error {
	return ov.watch(ctx, watchHooks{synced: onSync})
}

// watchHooks are what watch calls: write on each write it sees, syncing
// before each sync, synced with each result; nil ones are skipped.
type watchHooks struct {
	write, syncing func()
	synced         func(SyncResult)
}

// watch is Watch with hooks.
func (ov *Overlay) watch(ctx context.Context, h watchHooks) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer func() { _ = w.Close() }()
	skip := map[string]bool{".git": true}
	for _, d := range ov.excludeDirs() {
		skip[d] = true
	}
	add := func(root string) {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			if p != root && skip[d.Name()] {
				return filepath.SkipDir
			}
			_ = w.Add(p)
			return nil
		})
	}
	add(ov.o.Worktree.Folder)
	// HEAD moves (a commit, a checkout) change the footprint's base.
	if gd, err := gitDir(ov.o.Worktree.Folder); err == nil {
		_ = w.Add(gd)
	}
	sync := func() {
		if h.syncing != nil {
			h.syncing()
		}
		res, err := ov.Sync(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			ov.log.Warn("the worktree overlay could not be updated", "err", err)
		case err == nil && h.synced != nil && len(res.Applied) > 0:
			h.synced(res)
		}
	}
	sync()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err, ok := <-w.Errors:
			if !ok {
				return errors.New("worktree watcher closed")
			}
			ov.log.Debug("worktree watcher", "err", err)
			timer.Reset(SyncDelay)
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("worktree watcher closed")
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() && !skip[filepath.Base(ev.Name)] {
					add(ev.Name)
				}
			}
			if ev.Op != fsnotify.Chmod {
				if h.write != nil {
					h.write()
				}
				timer.Reset(SyncDelay)
			}
		case <-timer.C:
			sync()
		}
	}
}

func (ov *Overlay) excludeDirs() []string {
	return slices.Concat([]string{".cos", "node_modules", "vendor", ".venv", "__pycache__", "dist", "build"}, ov.o.Exclude)
}

// gitDir is the worktree's own git folder (the .git file points at it).
func gitDir(folder string) (string, error) {
	b, err := os.ReadFile(filepath.Join(folder, ".git"))
	if err != nil {
		return "", err
	}
	const prefix = "gitdir: "
	s := string(b)
	if len(s) < len(prefix) || s[:len(prefix)] != prefix {
		return "", errors.New("not a linked worktree's .git file")
	}
	p := filepath.Clean(trimSpace(s[len(prefix):]))
	if !filepath.IsAbs(p) {
		p = filepath.Join(folder, p)
	}
	return p, nil
}

func trimSpace(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r' || s[len(s)-1] == ' ') {
		s = s[:len(s)-1]
	}
	return s
}

// Run derives and records the footprints until ctx ends: FootprintDelay
// after each Kick (an overlay update, a claim). Failures are logged.
func (fp *Footprints) Run(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-fp.kick:
			timer.Reset(FootprintDelay)
		case <-timer.C:
			if _, err := fp.Update(ctx); err != nil && ctx.Err() == nil {
				fp.ov.log.Warn("the footprint of the worktree's tasks could not be recorded", "err", err)
			}
		}
	}
}

// Kick asks Run to derive the footprints again, FootprintDelay from now.
func (fp *Footprints) Kick() {
	select {
	case fp.kick <- struct{}{}:
	default:
	}
}
