package extract

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/cos-dev/cos/extract/internal/cfamily"
	"github.com/cos-dev/cos/extract/lang"
	"github.com/cos-dev/cos/extract/php"
	"github.com/cos-dev/cos/extract/python"
	"github.com/cos-dev/cos/extract/resolve"

	"golang.org/x/sync/errgroup"

	"github.com/cos-dev/cos/graph"
)

// EmitFunc receives the payloads of changed files in batches (at most
// Options.BatchFiles files, about Options.BatchBytes of payload) and, on its
// last call, the repo-relative paths that vanished since the previous map.
// A returned error stops Run.
type EmitFunc func(batch []graph.FileExtracted, removed []string) error

// Run indexes the repository at root. previous maps each repo-relative path
// already in the graph to its content hash (hex SHA-256); files whose hash is
// unchanged are not re-emitted, files of previous that are gone are handed
// to emit as removed on its last call. emit is not called when nothing
// changed. Unchanged files cost a stat when Options.CacheDir holds a cache
// from an earlier run, a read and a hash otherwise.
//
// Bad input never stops Run: unreadable files and folders, binaries, huge
// files and syntax errors are recorded in Stats. Run returns an error
// wrapping ErrRoot when root is unusable, ErrOptions for invalid options,
// ErrEmit when emit fails, or ctx.Err() when ctx is cancelled.
func Run(ctx context.Context, root string, opts Options, previous map[string]string, emit EmitFunc) (Stats, error) {
	start := time.Now()
	var st Stats
	if err := opts.Validate(); err != nil {
		return st, err
	}
	o := opts.withDefaults()
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return st, fmt.Errorf("%w: %v", ErrRoot, err)
	}
	if fi, err := os.Stat(absRoot); err != nil || !fi.IsDir() {
		return st, fmt.Errorf("%w: %s", ErrRoot, root)
	}
	// The walk does not follow symbolic links; the root itself may be one.
	if real, err := filepath.EvalSymlinks(absRoot); err == nil {
		absRoot = real
	}
	r := &runner{last: start, ctx: ctx, root: absRoot, o: o, previous: previous, emit: emit, st: &st, slow: slowest{n: DefaultSlowest}}
	err = r.run()
	st.Duration = time.Since(start)
	st.Slowest = r.slow.t
	return st, err
}

// runner is the state of one Run.
type runner struct {
	ctx      context.Context
	root     string
	o        Options
	previous map[string]string
	emit     EmitFunc
	st       *Stats
	cache    *cache

	// mu guards done, slow, timedOut and st.Failed and st.Skipped, written
	// by the extraction workers.
	mu   sync.Mutex
	done int
	slow slowest
	// timedOut holds the files whose extraction ran past
	// Options.FileTimeout in this run: they are not tried again.
	timedOut map[string]bool

	total int
	last  time.Time // end of the previous phase, for phase()
	// build is the Go build configuration of this run.
	build goBuild
	// emitTime is the time spent in emit, for Stats.Phases; emitWait the
	// part of the emit phase spent waiting for emit (emitter.wait).
	emitTime, emitWait time.Duration
	// extracted counts the changed files extracted so far, of
	// extractTotal (Options.Extracted); guarded by mu.
	extracted, extractTotal int
	// pending are the files an interrupted earlier run left to extract
	// again as dependents (statCache.Pending).
	pending map[string]bool
}

func (r *runner) progress(n int) {
	if r.o.Progress == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done += n
	r.o.Progress(r.done, r.total)
}

// parallel runs f(i) for i in [0, n) on Options.Workers goroutines.
func (r *runner) parallel(n int, f func(i int)) error {
	g, ctx := errgroup.WithContext(r.ctx)
	g.SetLimit(r.o.Workers)
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			f(i)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return r.ctx.Err()
}

// hashed is the outcome of the stat/hash phase for one file.
type hashed struct {
	hash   string
	binary bool
	err    error
	// at is when the content was read (statEntry.Hashed).
	at int64
}

func (r *runner) run() error {
	r.build = readGoBuild()
	c, cacheErr := loadCache(r.o.CacheDir, r.root, r.build.key)
	var w walkResult
	var err error
	if r.o.Only != nil {
		// A targeted run: the stat cache's files and the Only paths
		// looked at again, in place of the walk.
		w, err = r.targeted(c)
	} else {
		w, err = walk(r.ctx, r.root, r.o.ExcludeDirs, r.o.MaxFileSize)
	}
	if err != nil {
		if r.ctx.Err() != nil {
			return r.ctx.Err()
		}
		if errors.Is(err, ErrOptions) || errors.Is(err, ErrRoot) {
			return err
		}
		return fmt.Errorf("%w: %v", ErrRoot, err)
	}
	r.phase("walk")
	r.total = len(w.Files)
	r.st.FilesSeen = len(w.Files)
	if r.o.Only != nil {
		r.st.FilesSeen = r.underOnly(w.Files)
	}
	if w.Git != nil {
		r.st.Git = &GitStats{Top: w.Git.Top, Source: w.Git.Source, Note: w.Git.Note, Kept: w.Git.Len()}
	}
	skipped, failed := w.Skipped, w.Failed

	if cacheErr != nil {
		r.o.Logger.Warn("extract cache ignored", "err", cacheErr)
	}
	r.cache = c
	if c.outdated {
		// The cache was written by an older extractor or under another Go
		// build configuration: what the graph holds was extracted under
		// those rules too, so every file is extracted again.
		r.o.Logger.Info("extractors or Go build settings changed since the last index: every file is extracted again")
		stale := make(map[string]string, len(r.previous))
		for p := range r.previous {
			stale[p] = ""
		}
		r.previous = stale
	}
	r.phase("load cache")

	// Phase 1: a stat (cache hit) or a read and a hash per file.
	hs := make([]hashed, len(w.Files))
	if err := r.parallel(len(w.Files), func(i int) {
		f := w.Files[i]
		if se, ok := c.stat.Stat[f.Rel]; ok && (f.fromCache || se.trusted(f.Size, f.ModTime)) {
			hs[i] = hashed{hash: se.Hash, binary: se.Binary, at: se.Hashed}
			return
		}
		at := time.Now().UnixNano()
		hs[i] = hashFile(r.o.open, f.Abs)
		hs[i].at = at
	}); err != nil {
		return err
	}
	r.phase("stat and hash")
	newStat := make(map[string]statEntry, len(w.Files))
	present := make(map[string]string, len(w.Files)) // path → hash
	failedSet := map[string]bool{}
	var changed []entry
	for i, f := range w.Files {
		h := hs[i]
		switch {
		case h.err != nil:
			failed = append(failed, FileNote{Path: lang.CleanString(f.Rel), Reason: lang.CleanString(h.err.Error())})
			failedSet[f.Rel] = true
			continue
		case h.binary:
			skipped = append(skipped, FileNote{Path: lang.CleanString(f.Rel), Reason: SkipBinary})
		default:
			present[f.Rel] = h.hash
		}
		newStat[f.Rel] = statEntry{Size: f.Size, ModTime: f.ModTime, Hash: h.hash, Binary: h.binary, Hashed: h.at}
		if !h.binary && r.previous[f.Rel] != h.hash {
			changed = append(changed, f)
		}
	}
	for _, n := range failed {
		failedSet[n.Path] = true
	}
	r.progress(len(w.Files) - len(changed))
	var removed []string
	for p := range r.previous {
		if _, ok := present[p]; !ok && !failedSet[p] {
			removed = append(removed, p)
		}
	}
	sort.Strings(removed)
	r.st.FilesSkipped, r.st.FilesFailed = len(skipped), len(failed)
	r.st.Skipped, r.st.Failed = capNotes(skipped), capNotes(failed)
	r.st.FilesChanged, r.st.FilesRemoved = len(changed), len(removed)

	r.pending = make(map[string]bool, len(c.stat.Pending))
	for _, p := range c.stat.Pending {
		if _, ok := present[p]; ok && !c.outdated {
			r.pending[p] = true
		}
	}
	if len(changed) == 0 && len(removed) == 0 && len(r.pending) == 0 {
		if maps.Equal(c.stat.Stat, newStat) && len(c.stat.Pending) == 0 {
			return nil
		}
		c.stat.Stat = newStat
		c.stat.Pending = nil
		return r.save(false)
	}
	// Until the run emits, an interruption keeps what this run learnt of
	// the files' content (the stat cache) and nothing else.
	oldModules := c.stat.Modules
	interruptedEarly := func(err error) error {
		c.stat.Stat, c.stat.Modules = newStat, oldModules
		_ = r.save(false)
		return err
	}

	// The environment every extractor sees.
	e := &lang.Env{Files: make(map[string]bool, len(present)), MaxDepth: r.o.MaxConfigDepth}
	for p := range present {
		e.Files[p] = true
	}
	e.PyModules = python.Modules(e.Files)
	others := newOtherRoots(r.o)
	others.fill(e, r.root)
	byPath := make(map[string]entry, len(w.Files))
	for _, f := range w.Files {
		byPath[f.Rel] = f
	}
	e.PHPAutoload = php.Autoload(e.Files, func(p string) ([]byte, error) { return os.ReadFile(byPath[p].Abs) })
	e.CIncludePaths = cfamily.IncludePaths(e.Files, func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(r.root, filepath.FromSlash(p))) })
	mods, modsChanged := r.goModules(present, byPath)
	// A go.mod (its go line, its requirements), go.sum or go.work that
	// appears, changes or goes changes what go list resolves and how the
	// packages type-check. A composer.json (outside vendor/) likewise
	// changes which file a PHP use import names (its psr-4 map).
	autoloadChanged := false
	for _, f := range append(append([]entry(nil), changed...), removedEntries(removed)...) {
		switch path.Base(f.Rel) {
		case "go.mod", "go.work", "go.work.sum", "go.sum":
			modsChanged = true
		case "composer.json":
			autoloadChanged = autoloadChanged || php.IsAutoloadManifest(f.Rel)
		}
	}
	e.Modules = mods
	dc, err := c.loadDecls()
	if err != nil {
		r.o.Logger.Warn("extract declarations cache ignored", "err", err)
	}
	r.phase("load declarations")

	// Phase 2: extract the changed files.
	results := make(map[string]*lang.Result, len(changed))
	r.extractTotal = len(changed)
	if err := r.extractAll(changed, e, results, true); err != nil {
		return interruptedEarly(err)
	}
	r.phase("extract changed")

	// Phase 3: the declarations table, from fresh results and the cache;
	// unchanged files missing from the cache are parsed for theirs.
	fresh := map[string]*lang.Decl{}
	cached := map[string]lang.DeclRecord{}
	var needParse []entry
	for p, h := range present {
		if !declares(p) {
			continue
		}
		if fr, ok := results[p]; ok {
			if fr.Decl != nil {
				fresh[p] = fr.Decl
			}
			continue
		}
		if rec, ok := dc.Decls[p]; ok && rec.Hash == h {
			cached[p] = rec
			continue
		}
		needParse = append(needParse, byPath[p])
	}
	sort.Slice(needParse, func(i, j int) bool { return needParse[i].Rel < needParse[j].Rel })
	extra := make(map[string]*lang.Result, len(needParse))
	if err := r.extractAll(needParse, e, extra, false); err != nil {
		return interruptedEarly(err)
	}
	for p, fr := range extra {
		if fr.Decl != nil {
			fresh[p] = fr.Decl
		}
	}
	t := resolve.NewTable(fresh, cached, mods)
	t.SetForeign(others.decl)
	r.phase("declarations table")

	// Phase 4: unchanged files whose references looked into a scope whose
	// declarations changed, or read a name of a fine scope (C and C++)
	// whose entries changed, are extracted again (dependents).
	dep := newDependents(dc.Decls)
	for p, fr := range results {
		old, hadOld := dc.Decls[p]
		if fr.Decl == nil && !hadOld {
			continue
		}
		if fr.Decl == nil || !hadOld {
			_, existed := r.previous[p]
			switch {
			case hadOld:
				dep.gone(old)
			case existed && cfamilyScopeOf(p) != "":
				// In the graph, but its declarations there are not
				// known (no cache record): any of them may have gone.
				dep.unknownChange(cfamilyScopeOf(p))
			}
			if fr.Decl != nil {
				dep.came(fr.Decl.Record())
			}
			continue
		}
		dep.changed(old, fr.Decl.Record())
	}
	for _, p := range removed {
		if old, ok := dc.Decls[p]; ok {
			dep.gone(old)
		} else if s := cfamilyScopeOf(p); s != "" {
			dep.unknownChange(s)
		}
		// The documents linking to it, and the imports naming it (a C
		// include of its file name).
		for _, k := range watchKeys(p) {
			dep.affected[k] = true
		}
	}
	for _, f := range changed {
		if _, existed := r.previous[f.Rel]; !existed {
			for _, k := range watchKeys(f.Rel) {
				dep.affected[k] = true
			}
		}
	}
	dep.declaredFlips(fresh, cached)
	isDependent := func(p string, rec lang.DeclRecord) bool {
		if r.pending[p] {
			return true
		}
		if modsChanged && extractorFor(p) == lang.ExtractorGo || autoloadChanged && extractorFor(p) == lang.ExtractorPHP {
			return true
		}
		return dep.of(rec)
	}
	for p, fr := range extra {
		// Parsed for its declarations only: its Deps and Keys come from
		// resolving its references.
		if fr.Decl != nil && isDependent(p, refDeps(fr, t)) {
			results[p] = fr
		}
	}
	// A dependent's own declarations may change with what it resolved
	// (a base class or a re-export that now leads somewhere): its
	// dependents are extracted in turn, until nothing changes.
	for {
		var dependents []entry
		for p, rec := range cached {
			if _, done := results[p]; !done && isDependent(p, rec) {
				dependents = append(dependents, byPath[p])
			}
		}
		if len(dependents) == 0 {
			break
		}
		sort.Slice(dependents, func(i, j int) bool { return dependents[i].Rel < dependents[j].Rel })
		if err := r.extractAll(dependents, e, results, false); err != nil {
			return interruptedEarly(err)
		}
		grew := false
		for _, f := range dependents {
			old := cached[f.Rel]
			delete(cached, f.Rel)
			fr := results[f.Rel]
			if fr == nil || fr.Decl == nil {
				grew = dep.gone(old) || grew
				continue
			}
			fresh[f.Rel] = fr.Decl
			grew = dep.changed(old, fr.Decl.Record()) || grew
		}
		grew = dep.declaredFlips(fresh, cached) || grew
		if !grew {
			break
		}
	}
	// Resolution sees the dependents' declarations as they are now.
	t = resolve.NewTable(fresh, cached, mods)
	t.SetForeign(others.decl)
	r.phase("dependents")

	// Phase 4b: Go packages touched, and their importers, type-checked.
	goBefore := goRecordsOf(dc)
	kept, cancelled := r.typedGo(results, present, byPath, e, removed, modsChanged, dc)
	if cancelled != nil && len(kept) == 0 {
		goBefore.restore(dc)
		return interruptedEarly(cancelled)
	}
	reextracted := len(results) - len(changed)

	// Phase 5: resolve and emit in batches, in path order. A re-extracted
	// dependent whose payload is what the graph already holds is not
	// emitted again.
	paths := sortedPaths(results)
	// What an interruption of the emits must put back: the declarations
	// of the files not emitted yet, and which of them are dependents.
	em := emitState{prior: make(map[string]lang.DeclRecord, len(paths)), committed: make(map[string]bool, len(paths)), changed: make(map[string]bool, len(changed)), goBefore: goBefore}
	for _, p := range paths {
		if rec, ok := dc.Decls[p]; ok {
			em.prior[p] = rec
		}
	}
	for _, f := range changed {
		em.changed[f.Rel] = true
	}
	interrupted := func(err error) error {
		r.saveInterrupted(c, dc, &em, paths, results, newStat, mods.ByDir)
		return err
	}
	// A cancel while Go packages were checked: the files finished (the
	// packages extracted, the other languages' files) are emitted as this
	// run would have, the Go files not reached are left to the next run,
	// and the run ends cancelled (see keepFinished).
	emitPaths := paths
	if cancelled != nil {
		emitPaths = r.keepFinished(paths, kept, &em)
	}
	// The batches are emitted on a goroutine of their own (emitter):
	// stopEmits waits for those put so far and returns the error the run
	// ends with: err when given, else the context's once it has ended (as
	// when emits were made here), else emit's.
	out := r.startEmitter(&em, cancelled != nil)
	stopEmits := func(err error) error {
		sendErr := out.close()
		r.emitWait += out.wait
		switch {
		case err != nil || sendErr == nil:
			return err
		case r.ctx.Err() != nil && cancelled == nil:
			return r.ctx.Err()
		}
		return sendErr
	}
	var batch []graph.FileExtracted
	batchBytes := 0
	for i, p := range emitPaths {
		if err := r.ctx.Err(); err != nil && cancelled == nil {
			return interrupted(stopEmits(err))
		}
		fr := results[p]
		resolve.Resolve(fr, t)
		pl := payload(fr)
		results[p] = nil
		if fr.Decl != nil {
			prev, had := dc.Decls[p]
			fr.Decl.Hash = fr.Hash
			fr.Decl.Payload = payloadHash(pl)
			dc.Decls[p] = fr.Decl.Record()
			if had && prev.Hash == fr.Hash && prev.Payload == fr.Decl.Payload && r.previous[p] == fr.Hash && (r.o.Reemit == nil || !r.o.Reemit(p)) {
				reextracted--
				continue
			}
		}
		r.st.Nodes += len(pl.Nodes)
		r.st.Edges += len(pl.Edges)
		if len(pl.ParseErrors) > 0 {
			r.st.FilesWithParseErrors++
			if len(r.st.ParseErrorPaths) < maxNotes {
				r.st.ParseErrorPaths = append(r.st.ParseErrorPaths, pl.Path)
			}
		}
		batch = append(batch, pl)
		batchBytes += payloadSize(pl)
		if i < len(emitPaths)-1 && (len(batch) >= r.o.BatchFiles || batchBytes >= r.o.BatchBytes) {
			if !out.put(batch) {
				return interrupted(stopEmits(nil))
			}
			batch, batchBytes = nil, 0
		}
	}
	if err := stopEmits(nil); err != nil {
		return interrupted(err)
	}
	if err := r.ctx.Err(); err != nil && cancelled == nil {
		// Ended while the last batches were in emit.
		return interrupted(err)
	}
	if cancelled != nil {
		// The files vanished are removed by the next run, with the rest.
		if err := r.sendLast(batch, nil); err != nil {
			return interrupted(err)
		}
		for _, pl := range batch {
			em.committed[pl.Path] = true
		}
		r.st.FilesChanged, r.st.FilesReextracted, r.st.FilesRemoved = 0, 0, 0
		for p := range em.committed {
			if em.changed[p] {
				r.st.FilesChanged++
			} else {
				r.st.FilesReextracted++
			}
			if kept[p] {
				r.st.GoFilesTyped++
			}
		}
		r.st.FilesKept = len(em.committed)
		r.phase("resolve and emit")
		return interrupted(cancelled)
	}
	if err := r.sendLast(batch, removed); err != nil {
		return interrupted(err)
	}
	r.st.FilesReextracted = reextracted
	r.progress(len(changed))
	r.phase("resolve and emit")

	// Phase 6: the cache follows what is now in the graph.
	for p, fr := range extra {
		if _, emitted := dc.Decls[p]; emitted && dc.Decls[p].Hash == fr.Hash {
			continue
		}
		if fr.Decl != nil {
			resolve.Resolve(fr, t) // for Deps; the edges are not emitted
			fr.Decl.Hash = fr.Hash
			dc.Decls[p] = fr.Decl.Record()
		}
	}
	for p := range dc.Decls {
		if _, ok := present[p]; !ok {
			delete(dc.Decls, p)
		}
	}
	c.stat.Stat = newStat
	c.stat.Modules = mods.ByDir
	c.stat.Pending = nil
	err = r.save(true)
	r.phase("save cache")
	return err
}

// watchKeys are the scopes a new file satisfies: its fileWatchScope (the
// documents linking to it), and the "missing:" scopes of imports looking
// for it — the module names of a Python file, the import specifiers
// (without extension, or with .js for a TypeScript file) that resolve to a
// JS/TS file.
func watchKeys(p string) []string {
	return append(importWatchKeys(p), lang.FileWatchScope(p))
}

// importWatchKeys are the "missing:" scopes of watchKeys (the owning
// extractor's Provides).
func importWatchKeys(p string) []string {
	if x := extractorOf(p); x != nil {
		return x.Provides(p)
	}
	return nil
}

// declChanged reports whether a file's declarations differ between two
// records in anything another file's resolution reads.
func declChanged(old, nr lang.DeclRecord) bool {
	return old.Scope != nr.Scope || old.Names != nr.Names || old.Alias != nr.Alias || old.Results != nr.Results || old.Facts != nr.Facts
}

// cfamilyScopeOf returns the scope a C or C++ file declares in, "" for a
// file of another language: the scope of a file whose declarations are not
// known (dependents.unknownChange).
func cfamilyScopeOf(p string) string {
	if x := extractorFor(p); x == lang.ExtractorC || x == lang.ExtractorCPP {
		return cfamily.Scope
	}
	return ""
}

// refDeps returns what fr's references look into, as the record of a
// file resolved against t would say (Deps, Keys): fr is resolved on a copy
// and left as it was.
func refDeps(fr *lang.Result, t *resolve.Table) lang.DeclRecord {
	cp := *fr
	d := *fr.Decl
	d.Deps = nil
	cp.Decl, cp.Nodes, cp.Edges = &d, nil, nil
	resolve.Resolve(&cp, t)
	return lang.DeclRecord{Scope: d.Scope, Deps: d.Deps, Keys: d.Keys, KeysKnown: d.KeysKnown}
}

// readFile reads a whole file through Options.open.
func (r *runner) readFile(abs string) ([]byte, error) {
	f, err := r.o.open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// phase logs how long the phase that just ended took, at debug level.
func (r *runner) phase(name string) {
	now := time.Now()
	d := now.Sub(r.last)
	r.o.Logger.Debug("extract phase", "phase", name, "ms", d.Milliseconds())
	r.last = now
	if name == "resolve and emit" {
		// Emits overlap with resolving: the time in emit is its own
		// phase, and this one is the time not spent waiting for it.
		d -= r.emitWait
		r.addPhase("emit (appending to the log)", r.emitTime)
	}
	r.addPhase(name, d)
}

// addPhase adds d to the named phase of Stats.Phases.
func (r *runner) addPhase(name string, d time.Duration) {
	for i := range r.st.Phases {
		if r.st.Phases[i].Name == name {
			r.st.Phases[i].Seconds += d.Seconds()
			return
		}
	}
	r.st.Phases = append(r.st.Phases, Phase{Name: name, Seconds: d.Seconds()})
}

func (r *runner) send(batch []graph.FileExtracted, removed []string) error {
	if len(batch) == 0 && len(removed) == 0 {
		return nil
	}
	r.st.Batches++
	start := time.Now()
	err := r.emit(batch, removed)
	r.emitTime += time.Since(start)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrEmit, err)
	}
	return nil
}

// sendLast is send on Run's goroutine, after the emitter is closed: the
// emit phase waits for it.
func (r *runner) sendLast(batch []graph.FileExtracted, removed []string) error {
	start := time.Now()
	err := r.send(batch, removed)
	r.emitWait += time.Since(start)
	return err
}

// save writes the stat cache and, with decls, the declarations cache. A
// failure is logged, never returned: the cache is an aid.
func (r *runner) save(decls bool) error {
	if err := r.cache.saveStat(); err != nil {
		r.o.Logger.Warn("extract cache not saved", "err", err)
	}
	if decls {
		if err := r.cache.saveDecls(); err != nil {
			r.o.Logger.Warn("extract declarations cache not saved", "err", err)
		}
	}
	return nil
}

// extractAll reads and extracts files in parallel into out. timed files
// count in Stats.Slowest and the progress.
func (r *runner) extractAll(files []entry, e *lang.Env, out map[string]*lang.Result, timed bool) error {
	res := make([]*lang.Result, len(files))
	err := r.parallel(len(files), func(i int) {
		f := files[i]
		data, err := r.readFile(f.Abs)
		if err != nil {
			// Readable a moment ago (it was hashed): record it, emit nothing.
			r.mu.Lock()
			r.st.FilesFailed++
			if len(r.st.Failed) < maxNotes {
				r.st.Failed = append(r.st.Failed, FileNote{Path: lang.CleanString(f.Rel), Reason: lang.CleanString(err.Error())})
			}
			r.mu.Unlock()
			return
		}
		sum := sha256.Sum256(data)
		fr := r.extractWithin(f.Rel, data, hex.EncodeToString(sum[:]), e)
		if timed {
			r.mu.Lock()
			if fr != nil {
				r.slow.add(fr.Path, fr.DurationMS)
			}
			r.extracted++
			if r.o.Extracted != nil {
				r.o.Extracted(r.extracted, r.extractTotal)
			}
			r.mu.Unlock()
		}
		if fr == nil {
			return
		}
		res[i] = fr
	})
	if err != nil {
		return err
	}
	for _, fr := range res {
		if fr != nil {
			out[fr.Path] = fr
		}
	}
	return nil
}

// extractWithin runs extractFile under Options.FileTimeout. A file past it
// is recorded as skipped (SkipTimeout) and nil returned; the extraction,
// which cannot be interrupted, goes on in its goroutine until it ends and
// its result is dropped (it writes only to its own fileResult). A file
// that timed out once in this run is not tried again.
func (r *runner) extractWithin(p string, data []byte, hash string, e *lang.Env) *lang.Result {
	r.mu.Lock()
	gaveUp := r.timedOut[p]
	r.mu.Unlock()
	if gaveUp {
		return nil
	}
	done := make(chan *lang.Result, 1)
	go func() { done <- extractFile(p, data, hash, e) }()
	timer := time.NewTimer(r.o.FileTimeout)
	defer timer.Stop()
	select {
	case fr := <-done:
		return fr
	case <-timer.C:
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timedOut == nil {
		r.timedOut = map[string]bool{}
	}
	r.timedOut[p] = true
	r.st.FilesSkipped++
	if len(r.st.Skipped) < maxNotes {
		r.st.Skipped = append(r.st.Skipped, FileNote{Path: lang.CleanString(p), Reason: SkipTimeout})
	}
	r.o.Logger.Warn("extraction ran past its time limit; file skipped", "path", p, "limit", r.o.FileTimeout)
	return nil
}

// hashFile reads a file and returns its SHA-256, or that it is binary.
func hashFile(open func(string) (io.ReadCloser, error), abs string) hashed {
	f, err := open(abs)
	if err != nil {
		return hashed{err: err}
	}
	defer f.Close()
	head := make([]byte, lang.SniffLen)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return hashed{err: err}
	}
	head = head[:n]
	h := sha256.New()
	h.Write(head)
	if lang.IsBinary(head) {
		return hashed{binary: true}
	}
	if _, err := io.Copy(h, f); err != nil {
		return hashed{err: err}
	}
	return hashed{hash: hex.EncodeToString(h.Sum(nil))}
}

// goModules reads every go.mod of the repository (they are few and small;
// byPath gives each its name on disk) and reports whether the module map
// differs from the cached one.
func (r *runner) goModules(present map[string]string, byPath map[string]entry) (*lang.GoModules, bool) {
	byDir := map[string]string{}
	for p := range present {
		if path.Base(p) != "go.mod" {
			continue
		}
		data, err := os.ReadFile(byPath[p].Abs)
		if err != nil {
			continue
		}
		if mp := lang.ParseGoMod(lang.ValidUTF8(data)).Module; mp != "" {
			d := path.Dir(p)
			if d == "." {
				d = ""
			}
			byDir[d] = mp
		}
	}
	if _, ok := byDir[""]; !ok {
		// A sub-folder of a module or of GOROOT/src: its packages have the
		// import paths of the enclosing module.
		if dir, mp := enclosingModule(r.root); dir != "" {
			if ip := enclosingImportPath(r.root, dir, mp); ip != "" {
				byDir[""] = ip
			}
		}
	}
	return lang.NewGoModules(byDir), !maps.Equal(byDir, r.cache.stat.Modules)
}

// payloadSize estimates the JSON size of a payload, for batching.
func payloadSize(p graph.FileExtracted) int {
	n := 200 + len(p.Path)
	for _, x := range p.Nodes {
		n += 80 + len(x.UID) + len(x.Label) + len(x.Path)
	}
	for _, x := range p.Edges {
		n += 60 + len(x.Source) + len(x.Target)
	}
	return n
}

// removedEntries wraps removed paths as entries (Rel only).
func removedEntries(removed []string) []entry {
	out := make([]entry, len(removed))
	for i, p := range removed {
		out[i] = entry{Rel: p}
	}
	return out
}

// goRecords are the Go records of the declarations cache as a run found
// them: an interrupted run puts them back, so the next run type-checks
// again what this one did not emit.
type goRecords struct {
	shapes     map[string]string
	interfaces string
	ifaces     map[string]ifaceRecord
	methods    map[string][][]string
	dirs       map[string][]string
}

// goRecordsOf returns the Go records of dc (typedRun.save replaces their
// values, never changes one in place).
func goRecordsOf(dc *declCache) goRecords {
	return goRecords{shapes: maps.Clone(dc.Shapes), interfaces: dc.Interfaces, ifaces: dc.GoInterfaces, methods: maps.Clone(dc.GoMethods), dirs: maps.Clone(dc.GoDirs)}
}

// restore puts the records back into dc.
func (g goRecords) restore(dc *declCache) {
	dc.Shapes, dc.Interfaces, dc.GoInterfaces, dc.GoMethods, dc.GoDirs = g.shapes, g.interfaces, g.ifaces, g.methods, g.dirs
}

// emitState is what the emit phase has done so far, for saveInterrupted.
type emitState struct {
	// prior are the declarations cache's records of the files to emit as
	// the run found them.
	prior map[string]lang.DeclRecord
	// committed are the files whose batch emit accepted.
	committed map[string]bool
	// changed are the run's changed files (the rest of what it emits are
	// dependents).
	changed  map[string]bool
	goBefore goRecords
	// recheck are files that, emitted or not, the next run extracts again
	// (the Go files a cancelled type-check kept: their implements edges
	// saw only the interfaces checked so far).
	recheck []string
}

// keepFinished is the emit plan of a run cancelled while Go packages were
// checked: of paths (the files to emit, sorted), the Go files of kept (the
// packages extracted) and the files of other languages, whose extraction
// was over. It tells Options.Keeping, so that these emits are committed
// although ctx has ended, and records the kept Go files in em.recheck.
func (r *runner) keepFinished(paths []string, kept map[string]bool, em *emitState) []string {
	var out []string
	for _, p := range paths {
		switch {
		case kept[p]:
			out = append(out, p)
			em.recheck = append(em.recheck, p)
		case extractorFor(p) != lang.ExtractorGo:
			out = append(out, p)
		}
	}
	if r.o.Keeping != nil {
		r.o.Keeping()
	}
	r.o.Logger.Debug("cancelled while Go packages were checked: emitting the files finished", "files", len(out), "of", len(paths))
	return out
}

// saveInterrupted saves the caches of a run whose emits stopped part way
// (the context ended, or emit failed). The files emitted count as indexed:
// their declarations are kept, so the next run neither reads nor extracts
// them again. A changed file not emitted keeps the declarations this run
// found (the files emitted were resolved against them): the next run finds
// it changed in the graph and extracts it, and only a real change of its
// declarations affects others. A dependent not emitted gets its earlier
// declarations back and is recorded as pending: the next run extracts it
// again and emits it. Like save, it only logs a failure.
func (r *runner) saveInterrupted(c *cache, dc *declCache, em *emitState, paths []string, results map[string]*lang.Result, stat map[string]statEntry, modules map[string]string) {
	pending := make([]string, 0)
	for _, p := range paths {
		switch {
		case em.committed[p]:
		case em.changed[p]:
			if fr := results[p]; fr != nil { // not reached by the emits
				if fr.Decl == nil {
					delete(dc.Decls, p)
					continue
				}
				d := *fr.Decl
				d.Hash = fr.Hash
				dc.Decls[p] = d.Record()
			}
		default:
			if rec, ok := em.prior[p]; ok {
				dc.Decls[p] = rec
			} else {
				delete(dc.Decls, p)
			}
			pending = append(pending, p)
		}
	}
	for _, p := range em.recheck {
		if em.committed[p] { // the others are pending already
			pending = append(pending, p)
		}
	}
	em.goBefore.restore(dc)
	c.stat.Stat, c.stat.Modules, c.stat.Pending = stat, modules, pending
	_ = r.save(true)
}
