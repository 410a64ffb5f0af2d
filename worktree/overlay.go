package worktree

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/state"
)

// Options configure an Overlay.
type Options struct {
	// Worktree is the linked worktree served (Detect).
	Worktree Info
	// Exclude are folder names the extraction skips on top of
	// extract.DefaultExcludeDirs.
	Exclude []string
	// MaxFileSize is the largest file read, in bytes; zero means
	// extract.DefaultMaxFileSize.
	MaxFileSize int64
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// ErrNotIndexed is returned by Sync when the graph holds no index of the
// main worktree's folder: there is no base to overlay.
var ErrNotIndexed = errors.New("the main worktree is not indexed")

// ErrWorktreeGone is returned by Sync when the worktree's folder is no
// longer a git worktree; the overlay stays as it was.
var ErrWorktreeGone = errors.New("the worktree's folder is gone")

// Overlay keeps the files of a worktree that differ from the shared graph
// over this process's graph projection, outside the log.
//
// Lock order: syncMu, then the state's (its appliers, its projections'
// write lock), then mu.
type Overlay struct {
	st  *state.State
	o   Options
	log *slog.Logger

	// syncMu serialises Sync.
	syncMu sync.Mutex
	// mu guards files and root; the graph hook takes it under the
	// projections' write lock.
	mu    sync.Mutex
	files map[string]*overlayFile
	// root is the graph root indexed from the main worktree (name, commit).
	root projections.IndexRun
}

// overlayFile is one graph path the worktree holds otherwise than the log.
type overlayFile struct {
	// base is the content hash the log's graph holds (held: it holds the
	// path at all).
	base string
	held bool
	// removed: the worktree has no such file; else data is the
	// graph.file_extracted payload applied, compressed (flate: JSON of
	// nodes and edges shrinks several times, and it is read only when the
	// log replaces the file), and hash its content hash.
	removed bool
	hash    string
	data    []byte
}

// pack compresses a payload for overlayFile.data.
func pack(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestSpeed) // the level is valid
	_, _ = w.Write(b)
	_ = w.Close()
	return bytes.Clone(buf.Bytes())
}

// unpack is the payload pack compressed.
func unpack(b []byte) ([]byte, error) {
	return io.ReadAll(flate.NewReader(bytes.NewReader(b)))
}

// NewOverlay returns the overlay of o.Worktree over st, registered with
// st (which must be opened with state.Options.NoSnapshots). It applies
// nothing until Sync.
func NewOverlay(st *state.State, o Options) (*Overlay, error) {
	if !st.NoSnapshots() {
		return nil, errors.New("worktree overlay: the state must be opened with NoSnapshots")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxFileSize == 0 {
		o.MaxFileSize = extract.DefaultMaxFileSize
	}
	ov := &Overlay{st: st, o: o, log: o.Logger, files: map[string]*overlayFile{}}
	st.SetGraphOverlay(ov.afterLog)
	return ov, nil
}

// Worktree is the worktree the overlay serves.
func (ov *Overlay) Worktree() Info { return ov.o.Worktree }

// Paths returns the graph paths the overlay holds, sorted.
func (ov *Overlay) Paths() []string {
	ov.mu.Lock()
	defer ov.mu.Unlock()
	return slices.Sorted(maps.Keys(ov.files))
}

// Bytes returns the size of the payloads the overlay keeps to apply again
// (compressed).
func (ov *Overlay) Bytes() int {
	ov.mu.Lock()
	defer ov.mu.Unlock()
	n := 0
	for _, f := range ov.files {
		n += len(f.data)
	}
	return n
}

// Root returns the graph root the overlay covers (its Commit is the
// indexed commit of the main worktree), and false before the first Sync
// found it.
func (ov *Overlay) Root() (projections.IndexRun, bool) {
	ov.mu.Lock()
	defer ov.mu.Unlock()
	return ov.root, ov.root.Root != ""
}

// SyncResult says what a Sync changed.
type SyncResult struct {
	// Applied are the graph paths applied again (changed, reverted or
	// removed in the worktree), sorted.
	Applied []string
	// Files is how many paths the overlay holds afterwards.
	Files int
}

// Sync brings the overlay up to date with the worktree on disk: one
// extraction run over the worktree against the content hashes the graph
// shows now (the log's, with the overlay's over them), so only files that
// differ are read and extracted; each is applied to this process's graph
// only. A file back to the log's content is applied once more and leaves
// the overlay.
//
// Errors: ErrNotIndexed, ErrWorktreeGone, the extraction's, ctx's.
func (ov *Overlay) Sync(ctx context.Context) (SyncResult, error) {
	ov.syncMu.Lock()
	defer ov.syncMu.Unlock()
	main := resolve(ov.o.Worktree.Main)
	var (
		root     projections.IndexRun
		found    bool
		previous map[string]string
	)
	if err := ov.st.Read(ctx, func(v state.View) {
		for _, r := range v.Graph.Roots() {
			if resolve(r.Root) == main {
				root, found = r, true
			}
		}
		if !found {
			return
		}
		previous = map[string]string{}
		for p, h := range v.Graph.FileHashes() {
			name, rel := graph.SplitRoot(p)
			if name == root.Name {
				previous[rel] = h
			}
		}
	}); err != nil {
		return SyncResult{}, err
	}
	if !found {
		return SyncResult{}, fmt.Errorf("%w: index %s first", ErrNotIndexed, ov.o.Worktree.Main)
	}
	ov.mu.Lock()
	ov.root = root
	ov.mu.Unlock()
	folder := ov.o.Worktree.Folder
	opts := extract.Options{
		CacheDir:    indexing.CacheDir(ov.st.Dir(), resolve(folder)),
		Logger:      ov.log,
		ExcludeDirs: append(append([]string(nil), extract.DefaultExcludeDirs...), ov.o.Exclude...),
		MaxFileSize: ov.o.MaxFileSize,
	}
	// A worktree's first extraction starts from the main worktree's
	// cache: without it every file is extracted and applied again.
	if _, err := extract.SeedCache(opts.CacheDir, folder, indexing.CacheDir(ov.st.Dir(), main), main); err != nil {
		ov.log.Debug("the worktree's extract cache was not seeded from the main worktree's", "err", err)
	}
	var (
		batch   []graph.FileExtracted
		removed []string
	)
	if err := present(folder); err != nil {
		return SyncResult{}, err
	}
	if _, err := extract.Run(ctx, folder, opts, previous, func(b []graph.FileExtracted, r []string) error {
		batch = append(batch, b...)
		removed = append(removed, r...)
		return nil
	}); err != nil {
		return SyncResult{}, fmt.Errorf("extract the worktree %s: %w", folder, err)
	}
	// A worktree deleted while it was read reads as every file removed:
	// keep the overlay as it was.
	if err := present(folder); err != nil {
		return SyncResult{}, err
	}
	indexing.InRoot(root.Name, batch, removed)
	datas, packed := make([][]byte, len(batch)), make([][]byte, len(batch))
	for i := range batch {
		b, err := json.Marshal(&batch[i])
		if err != nil {
			return SyncResult{}, fmt.Errorf("encode %s: %w", batch[i].Path, err)
		}
		datas[i], packed[i] = b, pack(b)
	}
	var res SyncResult
	ov.st.MutateGraph(func(g *projections.Graph, pos projections.Position) {
		ov.mu.Lock()
		defer ov.mu.Unlock()
		for i := range batch {
			p := batch[i].Path
			f := ov.entry(g, p)
			f.removed, f.hash, f.data = false, batch[i].ContentHash, packed[i]
			ov.applyData(g, pos, p, graph.TypeFileExtracted, datas[i])
			if f.held && f.hash == f.base {
				delete(ov.files, p) // back to the log's content
				g.DropOverlay(p)
			}
			res.Applied = append(res.Applied, p)
		}
		for _, p := range removed {
			f := ov.entry(g, p)
			f.removed, f.hash, f.data = true, "", nil
			ov.applyRemoved(g, pos, p)
			if !f.held {
				delete(ov.files, p) // a file only the worktree had
				g.DropOverlay(p)
			}
			res.Applied = append(res.Applied, p)
		}
		res.Files = len(ov.files)
	})
	slices.Sort(res.Applied)
	if len(res.Applied) > 0 {
		ov.log.Debug("worktree overlay updated", "applied", len(res.Applied), "files", res.Files)
	}
	return res, nil
}

// entry returns the overlay's record of p, created with the log's hash
// when the overlay does not hold p yet. Called with the graph write
// lock and mu held.
func (ov *Overlay) entry(g *projections.Graph, p string) *overlayFile {
	f := ov.files[p]
	if f == nil {
		f = &overlayFile{}
		f.base, f.held = g.FileHash(p)
		ov.files[p] = f
	}
	return f
}

// apply applies f to g at pos: its payload, or its removal. Called with
// the graph write lock and mu held.
func (ov *Overlay) apply(g *projections.Graph, pos projections.Position, p string, f *overlayFile) {
	if f.removed {
		ov.applyRemoved(g, pos, p)
		return
	}
	data, err := unpack(f.data)
	if err != nil {
		ov.log.Warn("the worktree's version of a file could not be applied; reads show the main tree's", "path", p, "err", err)
		return
	}
	ov.applyData(g, pos, p, graph.TypeFileExtracted, data)
}

// applyRemoved applies the removal of p to g at pos.
func (ov *Overlay) applyRemoved(g *projections.Graph, pos projections.Position, p string) {
	data, _ := json.Marshal(graph.FileRemoved{Path: p})
	ov.applyData(g, pos, p, graph.TypeFileRemoved, data)
}

// applyData applies a graph event of type typ with data, about p, to g at
// pos, as if it were the log's.
func (ov *Overlay) applyData(g *projections.Graph, pos projections.Position, p, typ string, data []byte) {
	if err := g.ApplyOverlay(eventlog.Event{Seq: pos.Seq, Time: pos.Time, Type: typ, Data: data}, p); err != nil {
		ov.log.Warn("the worktree's version of a file could not be applied; reads show the main tree's", "path", p, "err", err)
	}
}

// afterLog is the state's graph overlay hook: after a batch of log events,
// each overlay path the batch replaced gets the worktree's version again;
// a path whose log content is now the worktree's leaves the overlay.
func (ov *Overlay) afterLog(g *projections.Graph, pos projections.Position, evs []eventlog.Event) {
	ov.mu.Lock()
	defer ov.mu.Unlock()
	if len(ov.files) == 0 {
		return
	}
	var touched map[string]bool
	for _, ev := range evs {
		if ev.Type != graph.TypeFileExtracted && ev.Type != graph.TypeFileRemoved {
			continue
		}
		var head struct {
			Path string `json:"path"`
		}
		if json.Unmarshal(ev.Data, &head) != nil || ov.files[head.Path] == nil {
			continue
		}
		if touched == nil {
			touched = map[string]bool{}
		}
		touched[head.Path] = true
	}
	for _, p := range slices.Sorted(maps.Keys(touched)) {
		f := ov.files[p]
		f.base, f.held = g.FileHash(p)
		if (f.removed && !f.held) || (!f.removed && f.held && f.hash == f.base) {
			delete(ov.files, p) // the log caught up with the worktree
			g.DropOverlay(p)
			continue
		}
		ov.apply(g, pos, p, f)
	}
}

// present reports ErrWorktreeGone when folder is no longer a git
// worktree (deleted, moved, or its .git link removed).
func present(folder string) error {
	if _, err := os.Stat(filepath.Join(folder, ".git")); err != nil {
		return fmt.Errorf("%w: %s is no longer there (removed or moved); start cos in an existing worktree", ErrWorktreeGone, folder)
	}
	return nil
}

// resolve is p absolute with its symbolic links resolved, as the graph
// records roots; p itself when that fails.
func resolve(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}
