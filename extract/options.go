package extract

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"time"
)

// Defaults of Options.
const (
	// DefaultMaxFileSize is the largest file extracted, in bytes (2 MiB);
	// bigger files are recorded as skipped.
	DefaultMaxFileSize = 2 << 20
	// DefaultBatchFiles is the most files handed to one emit call.
	DefaultBatchFiles = 256
	// DefaultBatchBytes is the approximate payload size, in bytes, after
	// which a batch is handed to emit early (8 MiB).
	DefaultBatchBytes = 8 << 20
	// DefaultMaxConfigDepth is how deep config keys are walked: a key at
	// depth 1 is top-level.
	DefaultMaxConfigDepth = 4
	// DefaultFileTimeout is how long one file's extraction may run before
	// it is abandoned and the file recorded as skipped (SkipTimeout).
	DefaultFileTimeout = 30 * time.Second
	// DefaultSlowest is how many of the slowest extractions Stats keeps.
	DefaultSlowest = 10
)

// DefaultExcludeDirs are folder names never descended into, wherever they
// appear.
var DefaultExcludeDirs = []string{"node_modules", "vendor", ".venv", "__pycache__", "dist", "build", ".cos"}

// Options tune Run. The zero value is valid: every zero field takes its
// default.
type Options struct {
	// OtherRoots are the other roots of the state folder, by absolute
	// folder, with their names ("" the primary root): a Go call or type
	// the type checker finds in one of them (a module this tree replaces
	// with that folder, shares a go.work with, or requires with no replace:
	// then read from that root's working tree, see graph.MetaGoWorkingTree)
	// is an edge to that root's node (graph.RootedPath) instead of an
	// external stub.
	OtherRoots map[string]string
	// OtherFiles are the files of those roots (paths inside each root,
	// slash-separated), by the same absolute folders: a JavaScript or
	// TypeScript import of a package.json name, a tsconfig.json path
	// mapping or a Python import that leads into one of them is an edge to
	// that root's node (graph.RootedPath) instead of a package or a stub.
	OtherFiles map[string][]string
	// CacheDir holds the stat cache (mtime+size → hash) and the declaration
	// cache that make a no-change re-index cheap. Empty disables both: every
	// file is then read and hashed, and unchanged files are parsed for their
	// declarations when a changed file needs them.
	CacheDir string
	// MaxFileSize in bytes; 0 means DefaultMaxFileSize. Larger files are
	// skipped and counted in Stats.Skipped.
	MaxFileSize int64
	// ExcludeDirs are folder base names never walked; nil means
	// DefaultExcludeDirs, an empty non-nil slice excludes nothing.
	ExcludeDirs []string
	// Workers is the number of parallel extractions; 0 means
	// runtime.GOMAXPROCS(0).
	Workers int
	// BatchFiles and BatchBytes bound one emit call; 0 means the defaults.
	BatchFiles int
	BatchBytes int
	// MaxConfigDepth bounds config key nodes; 0 means DefaultMaxConfigDepth.
	MaxConfigDepth int
	// FileTimeout bounds the extraction of one file; 0 means
	// DefaultFileTimeout. A file past it is recorded in Stats.Skipped with
	// reason SkipTimeout and not emitted; its extraction, which cannot be
	// interrupted, finishes in the background and is dropped.
	FileTimeout time.Duration
	// Progress, when set, is called from one goroutine at a time with the
	// number of files whose processing finished and the total number of
	// files seen by the walk (done ≤ total).
	Progress func(done, total int)
	// Extracted, when set, is called from one goroutine at a time as the
	// extraction of each changed file ends, with how many of the run's
	// changed files are extracted so far and how many there are.
	Extracted func(done, total int)
	// Keeping, when set, is called when a run whose ctx ended while Go
	// packages were checked starts emitting the files it finished
	// (Stats.FilesKept): the emits that follow must be committed although
	// ctx has ended; the run then returns ctx's error.
	Keeping func()
	// TypeChecked, when set, is called from one goroutine at a time as
	// each Go package of a type-check pass is checked, with how many of the
	// pass's packages are checked so far and how many there are (a run
	// may make more than one pass).
	TypeChecked func(done, total int)
	// Logger receives warnings (unreadable cache, unreadable files); nil
	// discards them.
	Logger *slog.Logger
	// Reemit, when set, is asked about each file extracted again as a
	// dependent whose payload is the one last emitted (such a payload is
	// not emitted again): true emits it all the same, because the graph
	// holds another extraction of the file (a precise one, from a SCIP
	// index, that this payload must replace). Called from one goroutine.
	Reemit func(path string) bool
	// Only, when non-nil, makes the run targeted: instead of walking the
	// tree, it takes every file of previous as the stat cache records it
	// (not even a stat) and looks again only at these repo-relative,
	// slash-separated paths: each one changed, created, deleted, now
	// ignored or now a folder (whose files are then listed). Removals are
	// found among these paths only. A targeted run is what the watcher and
	// read-your-edits use; a full run (Only nil) catches anything else.
	Only []string

	// open opens a file for reading; nil means os.Open. Tests replace it to
	// inject read failures (root can read a chmod 000 file).
	open func(name string) (io.ReadCloser, error)
}

// Validate reports an out-of-range field as an error wrapping ErrOptions.
func (o Options) Validate() error {
	switch {
	case o.MaxFileSize < 0:
		return fmt.Errorf("%w: MaxFileSize %d < 0", ErrOptions, o.MaxFileSize)
	case o.Workers < 0:
		return fmt.Errorf("%w: Workers %d < 0", ErrOptions, o.Workers)
	case o.BatchFiles < 0:
		return fmt.Errorf("%w: BatchFiles %d < 0", ErrOptions, o.BatchFiles)
	case o.BatchBytes < 0:
		return fmt.Errorf("%w: BatchBytes %d < 0", ErrOptions, o.BatchBytes)
	case o.FileTimeout < 0:
		return fmt.Errorf("%w: FileTimeout %v < 0", ErrOptions, o.FileTimeout)
	case o.MaxConfigDepth < 0 || o.MaxConfigDepth > 64:
		return fmt.Errorf("%w: MaxConfigDepth %d outside 0..64", ErrOptions, o.MaxConfigDepth)
	}
	return nil
}

// withDefaults returns o with every zero field replaced by its default.
func (o Options) withDefaults() Options {
	if o.MaxFileSize == 0 {
		o.MaxFileSize = DefaultMaxFileSize
	}
	if o.ExcludeDirs == nil {
		o.ExcludeDirs = DefaultExcludeDirs
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.BatchFiles == 0 {
		o.BatchFiles = DefaultBatchFiles
	}
	if o.BatchBytes == 0 {
		o.BatchBytes = DefaultBatchBytes
	}
	if o.MaxConfigDepth == 0 {
		o.MaxConfigDepth = DefaultMaxConfigDepth
	}
	if o.FileTimeout == 0 {
		o.FileTimeout = DefaultFileTimeout
	}
	if o.open == nil {
		o.open = func(name string) (io.ReadCloser, error) { return os.Open(name) }
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}
