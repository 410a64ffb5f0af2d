package indexing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/internal/atomicfile"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/state"
)

// maxPayloadBytes is the largest graph.file_extracted payload Index appends:
// the log's event limit (eventlog.DefaultMaxEventBytes, 1 MiB) less room for
// the note that says the payload was trimmed.
const maxPayloadBytes = eventlog.DefaultMaxEventBytes - 4<<10

// maxReportNotes bounds the path lists of an Report.
const maxReportNotes = 20

// Report is what one index run did.
type Report struct {
	// Root is the absolute folder of the root indexed; payload paths are
	// relative to it. RootName is its name ("" the primary root: paths
	// carry no name; see graph.RootPath), Under the folder inside it a
	// run looked at alone (a refresh of part of the root), "" for the
	// whole root; RootAdded says the run added the root to the graph.
	Root      string `json:"root"`
	RootName  string `json:"root_name,omitempty"`
	Under     string `json:"under,omitempty"`
	RootAdded bool   `json:"root_added,omitempty"`
	// Dependents are the other roots whose Go files were extracted again
	// because this run added a root holding a Go module they use (their
	// calls into it were stubs and now land on its nodes).
	Dependents []Dependent `json:"dependents,omitempty"`
	// FilesSeen … FilesSkipped are extract.Stats' counts: files accepted by
	// the walk, emitted because their content changed, emitted again because
	// a declaration they resolve against changed, vanished, unreadable, and
	// skipped (too large, binary, symlink, special).
	FilesSeen        int `json:"files_seen"`
	FilesChanged     int `json:"files_changed"`
	FilesReextracted int `json:"files_reextracted"`
	FilesRemoved     int `json:"files_removed"`
	FilesFailed      int `json:"files_failed"`
	FilesSkipped     int `json:"files_skipped"`
	// FilesKept counts, on a run cancelled while Go packages were
	// type-checked, the files it committed all the same (extract.Stats);
	// FilesChanged and FilesReextracted then count only those.
	FilesKept int `json:"files_kept,omitempty"`
	// FilesWithParseErrors counts emitted files whose extraction recorded
	// parse errors (partial results are kept).
	FilesWithParseErrors int `json:"files_with_parse_errors"`
	// GoPackagesChecked counts the Go packages type-checked (the tree's and
	// those they import; 0 when no Go file changed), GoFilesTyped the
	// emitted Go files whose edges come from go/types, GoFallback the
	// emitted Go files that kept syntax edges, by reason (load_error,
	// type_error, build_excluded, not_in_package).
	GoPackagesChecked int            `json:"go_packages_checked"`
	GoFilesTyped      int            `json:"go_files_typed"`
	GoFallback        map[string]int `json:"go_fallback,omitempty"`
	// Phases is where the wall time of the extraction went (extract.Stats).
	Phases []extract.Phase `json:"phases,omitempty"`
	// FilesSplit counts files whose payload was appended as several events
	// (graph.FileExtracted.Part) to fit the log's 1 MiB event limit.
	FilesSplit int `json:"files_split"`
	// FilesTrimmed counts payloads cut to fit the log's 1 MiB event limit
	// (see trimPayload); TrimmedPaths names up to 20 of them.
	FilesTrimmed int      `json:"files_trimmed"`
	TrimmedPaths []string `json:"trimmed_paths,omitempty"`
	// Precise says which files SCIP indexes made precise (cos index
	// --precise, --scip), and which files the graph held as precise lost
	// it; absent when there is nothing to say.
	Precise *PreciseReport `json:"precise,omitempty"`
	// Nodes and Edges count what the appended payloads carry.
	Nodes int `json:"nodes"`
	Edges int `json:"edges"`
	// Events is the number of events appended for files; Bytes their
	// data, in bytes. The run's own graph.index_started and
	// graph.index_finished are not counted.
	Events int   `json:"events"`
	Bytes  int64 `json:"bytes"`
	// Transactions is the number of Append calls (one per emitted batch).
	Transactions int `json:"transactions"`
	// FirstSeq and LastSeq bound the appended events, the run's own
	// included (0 when none).
	FirstSeq uint64 `json:"first_seq,omitempty"`
	LastSeq  uint64 `json:"last_seq,omitempty"`
	// SnapshotSeq is the seq of the snapshot taken at the end of the run,
	// 0 when none was (not due: RunOptions.SnapshotMinBytes).
	// SnapshotError says why the snapshot failed: the index is committed
	// all the same, but the next start replays the log from the previous
	// snapshot.
	// SnapshotSeconds is the time it took, projecting the run's events
	// included.
	SnapshotSeq     uint64  `json:"snapshot_seq,omitempty"`
	SnapshotError   string  `json:"snapshot_error,omitempty"`
	SnapshotSeconds float64 `json:"snapshot_seconds,omitempty"`
	// Commit is the commit HEAD named when the run began (root in a git
	// work tree with a commit), Dirty whether the files under root then
	// differed from it. Both are recorded in the run's graph.index_started.
	Commit string `json:"commit,omitempty"`
	Dirty  bool   `json:"dirty,omitempty"`
	// Git is the git file set the run walked (root in a work tree, a run
	// over the whole tree), nil otherwise.
	Git *extract.GitStats `json:"git,omitempty"`
	// Seconds is the wall time of the run, extraction and appends included.
	Seconds float64 `json:"seconds"`
	// Slowest are the slowest extractions of this run, slowest first.
	Slowest []extract.Timing `json:"slowest_extractions"`
	// MaxFileSize is the size limit of the run, in bytes (Options.MaxFileSize):
	// a larger file is in Skipped with reason too_large.
	MaxFileSize int64 `json:"max_file_size"`
	// ParseErrorPaths, Skipped and Failed name up to 20 files each.
	ParseErrorPaths []string           `json:"parse_error_paths,omitempty"`
	Skipped         []extract.FileNote `json:"skipped,omitempty"`
	Failed          []extract.FileNote `json:"failed,omitempty"`
}

// index is IndexWith with only o.Progress set: a full run.
func (x *Indexer) index(ctx context.Context, root string, progress func(done, total int)) (Report, error) {
	return x.IndexWith(ctx, root, RunOptions{Progress: progress})
}

// RunOptions tune IndexWith. The zero value is a full run without
// progress.
type RunOptions struct {
	// Progress, when set, receives (files done, files seen so far) from
	// one goroutine at a time.
	Progress func(done, total int)
	// Precise asks for SCIP indexes merged into the Python, TypeScript
	// and JavaScript files they cover (cos index --precise, --scip).
	Precise PreciseOptions
	// Force extracts every file again whatever its content hash (cos index
	// --force): what was deleted from the graph by hand comes back.
	Force bool
	// SnapshotMinBytes is how much event data (bytes) past the newest
	// snapshot makes the run take one at its end; 0 scales with the
	// snapshot's size, from DefaultSnapshotMinBytes (snapshotRun), a
	// negative value never snapshots.
	SnapshotMinBytes int64
	// FileTimeout bounds the extraction of one file (cos index
	// --file-timeout); 0 means extract.DefaultFileTimeout (30 s). A file
	// past it is reported in Report.Skipped with reason "timeout".
	FileTimeout time.Duration
	// Report, when set, receives the run's Progress each time it moves
	// (per file extracted, per batch appended), from one goroutine at a
	// time, once the run has its turn (the index lock); it must return
	// quickly.
	Report func(Progress)
	// LockWait bounds how long the run waits for another index run (of
	// this process or another) to finish before it starts; 0 waits until
	// ctx ends. Past it the run does nothing and returns E_UNAVAILABLE.
	// Read-your-edits uses it so that a read is not held up by a long run.
	LockWait time.Duration
	// Paths, when non-nil, makes the run targeted (extract.Options.Only):
	// only these paths, relative to the root and slash-separated, are
	// looked at again, everything else is taken as the graph holds it.
	// The watcher and read-your-edits use it; nil walks the whole tree.
	Paths []string
	// forceGo extracts the Go files again whatever their content hash: a
	// root holding a module they use was added (reextractDependents).
	forceGo bool
	// forceOnly extracts these paths again whatever their content hash: a
	// root they had edges into was removed (RemoveRoot).
	forceOnly []string
	// Name is the name a folder that is not yet a root takes as a new root
	// (default: its folder's name, made unique). It is refused (E_ARGUMENT)
	// for the first root of a state folder, whose paths carry no name, for
	// a folder inside a root, for a root under another name, and when
	// taken.
	Name string
	// UnlessIndexed makes the run do nothing, and return
	// ErrAlreadyIndexed, when once it holds the index lock the graph
	// already holds an index of root (Indexed): servers starting together
	// index a folder once (IndexAtStart).
	UnlessIndexed bool
}

// IndexWith indexes the folder root into the log: it runs the extractors
// (extract.Run) against the content hashes the graph projection already
// holds, and appends each batch of changed files as ONE eventlog.Append call
// (one transaction) holding one graph.file_extracted request per file on the
// graph stream, plus one graph.file_removed request per vanished path on the
// last batch. Unchanged files append nothing.
//
// root is placed among the graph's roots (see roots.go): a root is
// refreshed, a folder inside one refreshes that part of it only, another
// folder is added as a root (its paths name//path when it is not the
// first). Only files of the root concerned can be removed. The extractor
// caches live in <state>/index-cache/<root folder hash>.
//
// A payload over the log's 1 MiB event limit is trimmed, never dropped (see
// trimPayload). o.Progress, when set, receives (files done, files seen so
// far) from one goroutine at a time. Runs go one at a time per process.
// While a run appends, the state's projections and search index follow
// the log on a goroutine of their own (projector), and the background
// snapshots wait for the one the run takes at its end (snapshotRun).
//
// Errors: E_READ_ONLY on a point-in-time server, an envelope E_PATH when
// root is not a folder, the log's errors as the log returns them, ctx.Err().
//
// With o.Precise, the files the SCIP indexes cover get calls and references
// from them (see preciseStage), and Report.Precise says which. A missing or failing indexer is reported
// there, not an error; an index file that cannot be read or is not a SCIP
// index is E_ARGUMENT.
func (x *Indexer) IndexWith(ctx context.Context, root string, o RunOptions) (Report, error) {
	rep := Report{Slowest: []extract.Timing{}}
	if x.st.ReadOnly() {
		return rep, envelope.Errorf(envelope.CodeReadOnly, "indexing writes, and this is a read-only view of the log")
	}
	if !x.st.Writable() {
		return rep, envelope.Errorf(envelope.CodeReadOnly,
			"indexing writes, and the state folder %s is read-only (a read-only mount or no write permission); reads still work", x.st.Dir()).
			WithDetails(map[string]any{"state_dir": x.st.Dir()})
	}
	if o.FileTimeout < 0 {
		return rep, envelope.Errorf(envelope.CodeArgument, "file timeout %v is negative; give a duration such as 30s", o.FileTimeout)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return rep, envelope.Errorf(envelope.CodePath, "path %q: %v", root, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return rep, envelope.Errorf(envelope.CodePath, "%s is not a readable folder", root).WithDetails(map[string]any{"path": root})
	}
	// A root reached through a symbolic link is the folder it points to:
	// the same tree, the same caches, whichever way it is named.
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	release, err := x.takeTurn(ctx, o.LockWait)
	if err != nil {
		return rep, err
	}
	defer release()
	if o.UnlessIndexed && x.Indexed(abs) {
		return rep, ErrAlreadyIndexed
	}
	return x.indexLocked(ctx, abs, o)
}

// indexLocked is IndexWith once the run holds the index turn (takeTurn),
// abs absolute with its symbolic links resolved.
func (x *Indexer) indexLocked(ctx context.Context, abs string, o RunOptions) (Report, error) {
	progress := o.Progress
	rep := Report{Slowest: []extract.Timing{}}
	// Progress is reported from here: a run waiting for its turn has none.
	prog := newProgressState(o.Report)
	start := time.Now()
	var (
		previous, wasPrecise map[string]string
		last                 projections.IndexRun
		hasLast              bool
	)
	var at placement
	var perr error
	others := map[string]string{}
	var otherFiles map[string][]string
	if err := x.st.ReadStrict(ctx, func(v state.View) {
		roots := v.Graph.Roots()
		at, perr = place(abs, roots, o.Name)
		if perr != nil {
			return
		}
		for _, r := range roots {
			if r.Name != at.name {
				others[r.Root] = r.Name
			}
		}
		all := v.Graph.FileHashes()
		otherFiles = filesOfRoots(all, others)
		previous = rootFiles(all, at.name)
		wasPrecise = rootFiles(preciseFiles(v.Graph, all), at.name)
		if at.last != nil {
			last, hasLast = *at.last, true
		}
	}); err != nil {
		return rep, err
	}
	if perr != nil {
		return rep, perr
	}
	// A folder inside a root refreshes that part of the root only.
	asked := abs
	abs, rep.Root, rep.RootName, rep.Under, rep.RootAdded = at.folder, at.folder, at.name, at.sub, at.added
	if at.sub != "" {
		if o.Paths == nil {
			o.Paths = []string{at.sub}
		} else {
			paths := make([]string, len(o.Paths))
			for i, p := range o.Paths {
				paths[i] = path.Join(at.sub, p)
			}
			o.Paths = paths
		}
	}

	opts := extract.Options{
		OtherRoots:  others,
		OtherFiles:  otherFiles,
		CacheDir:    x.cacheDirOf(abs),
		Progress:    progress,
		Logger:      x.logger,
		ExcludeDirs: append(append([]string(nil), extract.DefaultExcludeDirs...), x.opts.Exclude...),
		FileTimeout: o.FileTimeout,
		Only:        o.Paths,
		MaxFileSize: x.maxFileSize(),
	}
	if prog != nil {
		opts.Progress = func(done, total int) {
			prog.walked(done, total)
			if progress != nil {
				progress(done, total)
			}
		}
		opts.Extracted = prog.extracted
		opts.TypeChecked = prog.typeChecked
	}
	// Never index our own state folder when it lives inside the tree.
	if rel, err := filepath.Rel(abs, x.st.Dir()); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		opts.ExcludeDirs = append(opts.ExcludeDirs, filepath.Base(x.st.Dir()))
	}
	ps, err := x.newPreciseStage(ctx, abs, o.Precise, wasPrecise, previous, opts.ExcludeDirs)
	if err != nil {
		return rep, err
	}
	defer ps.close()
	opts.Reemit = ps.reemit
	run := &runLog{root: abs, name: at.name, targeted: len(o.Paths), replayAtStart: x.st.ReplayBytes()}
	if o.Paths != nil && run.targeted == 0 {
		run.targeted = -1 // asked to look at nothing: still not a whole-tree run
	}
	// git status costs tens of milliseconds on a large tree: it runs
	// beside the extraction, and the run's first append waits for it.
	run.git = make(chan struct{})
	go func() {
		defer close(run.git)
		run.commit, run.dirty = x.gitState(ctx, abs)
	}()
	defer func() { <-run.git }()
	if hasLast {
		run.last = &last
	}
	opts.Keeping = func() { run.keeping = true }
	// The projections follow the appends as they come, and the background
	// snapshots wait for the one at the run's end (snapshotRun).
	releaseSnapshots := x.st.HoldSnapshots()
	defer releaseSnapshots()
	proj := startProjector(ctx, x.st)
	defer proj.stop()
	toLog := func(batch []graph.FileExtracted, removed []string) error {
		files, events := len(batch), rep.Events
		inRoot(at.name, batch, removed)
		if err := x.appendBatch(ctx, &rep, run, batch, removed); err != nil {
			return err
		}
		proj.appended(rep.LastSeq)
		prog.appended(files, rep.Events-events)
		return nil
	}
	known := previous
	if o.Force || o.forceGo || o.forceOnly != nil {
		// No hash matches "": every file is changed, and the paths the
		// graph holds are still known (a vanished one is still removed).
		known = make(map[string]string, len(previous))
		only := make(map[string]bool, len(o.forceOnly))
		for _, p := range o.forceOnly {
			only[p] = true
		}
		for p, h := range previous {
			if o.Force || o.forceGo && strings.HasSuffix(p, ".go") || only[p] {
				h = ""
			}
			known[p] = h
		}
	}
	st, err := extract.Run(ctx, abs, opts, known, ps.emit(toLog))
	if err == nil {
		err = ps.flush(toLog, extract.DefaultBatchFiles)
	}
	// Files marked changed only to be merged with an index are not
	// changes.
	st.FilesChanged -= ps.sameContent
	rep.Precise = ps.report()
	rep.FilesSeen, rep.FilesChanged, rep.FilesReextracted = st.FilesSeen, st.FilesChanged, st.FilesReextracted
	rep.FilesRemoved, rep.FilesFailed, rep.FilesSkipped = st.FilesRemoved, st.FilesFailed, st.FilesSkipped
	rep.FilesKept = st.FilesKept
	rep.FilesWithParseErrors = st.FilesWithParseErrors
	rep.GoPackagesChecked, rep.GoFilesTyped, rep.GoFallback = st.GoPackagesChecked, st.GoFilesTyped, st.GoFallback
	rep.Phases = st.Phases
	rep.Git = st.Git
	if st.Slowest != nil {
		rep.Slowest = st.Slowest
	}
	rep.ParseErrorPaths = capList(st.ParseErrorPaths)
	rep.Skipped, rep.Failed = capList(st.Skipped), capList(st.Failed)
	rep.MaxFileSize = x.maxFileSize()
	rep.Seconds = time.Since(start).Seconds()
	// Close the run in the log (when it appended anything), then
	// snapshot, so the next start does not replay what it appended.
	<-run.git
	rep.Commit, rep.Dirty = run.commit, run.dirty
	proj.stop()
	x.finishRun(ctx, &rep, run, err)
	if err == nil {
		x.snapshotRun(ctx, &rep, run, o.SnapshotMinBytes)
	}
	releaseSnapshots()
	if err != nil {
		var ee *envelope.Error
		if errors.As(err, &ee) {
			return rep, ee
		}
		var ae appendError
		if errors.As(err, &ae) {
			return rep, ae.err // the log's own error, for the caller to map
		}
		if errors.Is(err, extract.ErrRoot) {
			return rep, envelope.Wrap(err, envelope.CodePath, "%s is not a readable folder", asked)
		}
		if rep.FilesKept > 0 {
			return rep, envelope.Wrap(err, envelope.CodeCancelled,
				"indexing %s was cancelled while Go packages were type-checked; the %d files finished are committed, the next run indexes the rest", abs, rep.FilesKept).
				WithDetails(map[string]any{"files_kept": rep.FilesKept})
		}
		return rep, fmt.Errorf("index %s: %w", abs, err)
	}
	// A start index of this folder that failed is over once a run of it
	// succeeds, whoever ran it.
	x.start.succeed(abs)
	if at.added {
		x.reextractDependents(ctx, &rep, abs, others)
		x.reextractImporters(ctx, &rep, abs, at.name, others)
	} else if len(others) > 0 && rep.FilesChanged+rep.FilesRemoved > 0 {
		x.reextractStaleCallers(ctx, &rep, at.name, others)
	}
	// Remember which folder the primary root's paths are relative to:
	// the doctor's stale_paths and rename plans read files under it.
	if at.name != "" {
		return rep, nil
	}
	if b, err := json.Marshal(indexRoot{Root: abs}); err == nil {
		if err := atomicfile.Write(filepath.Join(x.st.Dir(), state.IndexRootFile), append(b, '\n')); err != nil {
			x.logger.Warn("index root not recorded; doctor and rename plans fall back to the working directory", "err", err)
		}
	}
	return rep, nil
}

type indexRoot struct {
	Root string `json:"root"`
}

// IndexedRoot returns the folder the graph was last indexed from, or "".
func (x *Indexer) IndexedRoot() string {
	b, err := os.ReadFile(filepath.Join(x.st.Dir(), state.IndexRootFile))
	if err != nil {
		return ""
	}
	var r indexRoot
	if json.Unmarshal(b, &r) != nil {
		return ""
	}
	return r.Root
}

// appendBatch appends one emitted batch in one Append call and adds it to
// rep.
func (x *Indexer) appendBatch(ctx context.Context, rep *Report, run *runLog, batch []graph.FileExtracted, removed []string) error {
	reqs := make([]eventlog.AppendRequest, 0, len(batch)+len(removed)+1)
	if run.startedSeq == 0 {
		// The run's first batch opens it, in the same transaction.
		req, err := run.startRequest(x.st.Client())
		if err != nil {
			return err
		}
		reqs = append(reqs, req)
	}
	add := func(typ string, data []byte) {
		reqs = append(reqs, eventlog.AppendRequest{
			Stream: graph.Stream,
			Events: []eventlog.Payload{{Type: typ, Data: data}},
			Client: x.st.Client(),
		})
		rep.Events++
		rep.Bytes += int64(len(data))
	}
	for i := range batch {
		parts, trimmed, err := encodePayload(&batch[i])
		if err != nil {
			return err
		}
		if trimmed {
			rep.FilesTrimmed++
			if len(rep.TrimmedPaths) < maxReportNotes {
				rep.TrimmedPaths = append(rep.TrimmedPaths, batch[i].Path)
			}
		}
		if len(parts) > 1 {
			rep.FilesSplit++
		}
		rep.Nodes += len(batch[i].Nodes)
		rep.Edges += len(batch[i].Edges)
		// The parts of one file go in one request: applied together or not
		// at all.
		evs := make([]eventlog.Payload, len(parts))
		for j, data := range parts {
			evs[j] = eventlog.Payload{Type: graph.TypeFileExtracted, Data: data}
			rep.Events++
			rep.Bytes += int64(len(data))
		}
		reqs = append(reqs, eventlog.AppendRequest{Stream: graph.Stream, Events: evs, Client: x.st.Client()})
	}
	for _, p := range removed {
		data, err := json.Marshal(graph.FileRemoved{Path: p})
		if err != nil {
			return err
		}
		add(graph.TypeFileRemoved, data)
	}
	if len(reqs) == 0 {
		return nil
	}
	// A batch is committed whole or not begun: once ctx ends no batch
	// starts (but those of the files a run cancelled while Go packages
	// were checked had finished: run.keeping), and the one under way is
	// waited for, so the files a cancelled run committed are exactly the
	// batches it reported (and the extractor's caches record them as
	// indexed).
	if err := ctx.Err(); err != nil && !run.keeping {
		return err
	}
	recs, err := x.st.Append(context.WithoutCancel(ctx), reqs...)
	if err != nil {
		return appendError{err}
	}
	if run.startedSeq == 0 {
		run.startedSeq = recs[0].FirstSeq
	}
	if x.afterBatch != nil {
		defer x.afterBatch()
	}
	rep.Transactions++
	for _, r := range recs {
		if rep.FirstSeq == 0 {
			rep.FirstSeq = r.FirstSeq
		}
		rep.LastSeq = max(rep.LastSeq, r.LastSeq)
	}
	return nil
}

func capList[T any](l []T) []T {
	if len(l) > maxReportNotes {
		return l[:maxReportNotes]
	}
	return l
}

// ApprovedPath resolves the path argument of cos_graph_index against the
// approved roots (Options.Roots, default the working directory): a relative
// path is taken from the first root; symlinks are resolved
// (filepath.EvalSymlinks) on both sides, so a link that escapes every root
// is refused. Errors are E_PATH envelope errors.
func (x *Indexer) ApprovedPath(path string) (string, error) {
	return x.approved(path, true)
}

// ApprovedFile is ApprovedPath for a file (a SCIP index): it must lie
// inside an approved root and be a regular file.
func (x *Indexer) ApprovedFile(path string) (string, error) {
	if path == "" {
		return "", envelope.Errorf(envelope.CodeArgument, "an empty path in scip; name SCIP index files")
	}
	return x.approved(path, false)
}

// approved resolves path against the approved roots; dir says whether it
// must be a folder or a regular file.
func (x *Indexer) approved(path string, dir bool) (string, error) {
	roots := x.opts.Roots
	if len(roots) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return "", envelope.Errorf(envelope.CodePath, "no approved root: the working directory is unreadable")
		}
		roots = []string{wd}
	}
	resolved := make([]string, 0, len(roots))
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		resolved = append(resolved, abs)
	}
	if len(resolved) == 0 {
		return "", envelope.Errorf(envelope.CodePath, "no approved root is usable")
	}
	if path == "" {
		return resolved[0], nil
	}
	target := path
	if !filepath.IsAbs(target) {
		target = filepath.Join(resolved[0], target)
	}
	details := map[string]any{"path": path, "approved_roots": resolved}
	real, err := filepath.EvalSymlinks(target)
	if err != nil {
		return "", envelope.Errorf(envelope.CodePath, "%s does not exist or cannot be read", path).WithDetails(details)
	}
	for _, r := range resolved {
		if within(r, real) {
			fi, err := os.Stat(real)
			if dir && (err != nil || !fi.IsDir()) {
				return "", envelope.Errorf(envelope.CodePath, "%s is not a folder; index a folder", path).WithDetails(details)
			}
			if !dir && (err != nil || !fi.Mode().IsRegular()) {
				return "", envelope.Errorf(envelope.CodePath, "%s is not a file; name a SCIP index file (index.scip)", path).WithDetails(details)
			}
			return real, nil
		}
	}
	msg := fmt.Sprintf("%s is outside the approved folders (%s)", path, strings.Join(resolved, ", "))
	if real != filepath.Clean(target) {
		msg = fmt.Sprintf("%s resolves to %s, outside the approved folders (%s)", path, real, strings.Join(resolved, ", "))
	}
	return "", envelope.Errorf(envelope.CodePath, "%s; start the server with --root to approve another", msg).WithDetails(details)
}

// within reports whether path is root or lies under it (both clean and
// absolute).
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// appendError carries an error of the log out of the extraction run
// unchanged.
type appendError struct{ err error }

func (e appendError) Error() string { return e.err.Error() }
func (e appendError) Unwrap() error { return e.err }

// takeTurn waits for the index runs of this process (Indexer.turn) and of
// other processes (the index lock file) to finish, for at most lockWait
// when positive, else until ctx ends; release gives the turn back. Two
// runs at once would each take the other's files for vanished. Errors:
// ctx.Err(), E_UNAVAILABLE past lockWait.
func (x *Indexer) takeTurn(ctx context.Context, lockWait time.Duration) (release func(), err error) {
	wait := ctx
	if lockWait > 0 {
		var cancel context.CancelFunc
		wait, cancel = context.WithTimeout(ctx, lockWait)
		defer cancel()
	}
	select {
	case x.turn <- struct{}{}:
	case <-wait.Done():
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, envelope.Errorf(envelope.CodeUnavailable, "another index run of this process did not finish within %v", lockWait)
	}
	lock := flock.New(filepath.Join(x.st.Dir(), state.IndexLockFile))
	locked, err := lock.TryLock()
	if err == nil && !locked {
		x.logger.Info("waiting for another cos index on this state folder to finish")
		locked, err = lock.TryLockContext(wait, 200*time.Millisecond)
	}
	if err != nil || !locked {
		<-x.turn
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, envelope.Errorf(envelope.CodeUnavailable, "another index of this state folder is running and did not finish: %v", err)
	}
	return func() {
		_ = lock.Unlock()
		<-x.turn
	}, nil
}
