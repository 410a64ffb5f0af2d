package indexing

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/state"
)

// Options configure an Indexer. Every zero value takes its default.
type Options struct {
	// Roots are the folders a client may index (absolute or relative to
	// the working directory). Empty means the working directory.
	Roots []string
	// Exclude names more folders (base names, like node_modules) that
	// indexing skips, on top of extract.DefaultExcludeDirs.
	Exclude []string
	// MaxFileSize is the largest file extracted, in bytes (cos index and
	// cos serve --max-file-size); 0 means extract.DefaultMaxFileSize
	// (2 MiB). A larger file is not read: Report.Skipped names it with
	// reason too_large, and the graph keeps no node of it but its folder's.
	MaxFileSize int64
	// SCIPTools is the folder the SCIP indexers are looked for in (before
	// PATH) for a precise index; a client cannot name one, as that would
	// let it pick what the server runs. Empty means PATH only.
	SCIPTools string
	// Logger receives diagnostics; nil takes the state's.
	Logger *slog.Logger
}

// ErrOptions is returned (wrapped) by New and Validate for an invalid
// option.
var ErrOptions = errors.New("invalid options")

// Validate reports the first invalid option, wrapping ErrOptions.
func (o Options) Validate() error {
	if o.MaxFileSize < 0 {
		return fmt.Errorf("%w: max file size %d < 0", ErrOptions, o.MaxFileSize)
	}
	for _, x := range o.Exclude {
		if x == "" || x == "." || x == ".." || strings.ContainsAny(x, `/\\*?[`) {
			return fmt.Errorf("%w: exclude %q: give a folder name such as generated (no slashes, no patterns)", ErrOptions, x)
		}
	}
	return nil
}

// Indexer indexes folders into one state folder's log. It is safe for
// concurrent use: runs take turns, within the process (turn) and across
// processes (state.IndexLockFile), because two runs at once would each
// take the other's files of the same root for vanished.
type Indexer struct {
	st     *state.State
	opts   Options
	logger *slog.Logger
	// turn serialises runs within the process (a semaphore of one, so a
	// run can give up waiting: RunOptions.LockWait): two runs over the same
	// cache folder and the same previous file hashes would append the same
	// files twice. It is taken before the index lock file and never inside
	// a view of the state.
	turn chan struct{}
	// afterBatch, when set (by tests), is called after each batch is
	// committed: a test kills its process there to leave a run half done.
	afterBatch func()
	// start is the index run IndexAtStart began, for Starting.
	start startState
}

// New returns an Indexer appending to st. Errors: an invalid option
// (ErrOptions).
func New(st *state.State, opts Options) (*Indexer, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = st.Logger()
	}
	return &Indexer{st: st, opts: opts, logger: opts.Logger, turn: make(chan struct{}, 1)}, nil
}

// SCIPTools is the folder the SCIP indexers are looked for in (Options).
func (x *Indexer) SCIPTools() string { return x.opts.SCIPTools }

// HasRoots reports whether approved roots were configured (Options.Roots).
func (x *Indexer) HasRoots() bool { return len(x.opts.Roots) > 0 }

// Roots returns the absolute folders the graph's repo-relative paths are
// read under: Options.Roots when given, else the folder the graph was last
// indexed from, else the working directory.
func (x *Indexer) Roots() []string {
	rs := x.opts.Roots
	if len(rs) == 0 {
		if r := x.IndexedRoot(); r != "" {
			return []string{r}
		}
		rs = []string{"."}
	}
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		if abs, err := filepath.Abs(r); err == nil {
			out = append(out, abs)
		}
	}
	return out
}

// maxFileSize is Options.MaxFileSize with its default.
func (x *Indexer) maxFileSize() int64 {
	if x.opts.MaxFileSize > 0 {
		return x.opts.MaxFileSize
	}
	return extract.DefaultMaxFileSize
}
