package indexing

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/extract/scip"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// This file is the precise stage of indexing (cos index --precise, --scip
// FILE): SCIP indexes merged into the payloads of the files they cover, as
// a stage between extract.Run and the log (see preciseStage).

// PreciseOptions ask an index for compiler-grade Python, TypeScript and
// JavaScript graphs from SCIP indexes. The zero value asks for none.
type PreciseOptions struct {
	// Run runs the SCIP indexers (scip-python, scip-typescript) over the
	// tree for the languages it has. An indexer that is not installed is
	// reported, never installed, and its files keep inferred edges.
	Run bool
	// Tools is a folder the indexers are looked for in before PATH (its
	// node_modules/.bin too: the folder of npm install --prefix); "" means
	// PATH only.
	Tools string
	// Indexes are SCIP index files (from any SCIP indexer) to merge.
	Indexes []string
	// Timeout bounds each indexer run; 0 means scip.DefaultTimeout.
	Timeout time.Duration
}

// Asked reports whether the options ask for any index.
func (o PreciseOptions) Asked() bool { return o.Run || len(o.Indexes) > 0 }

// Values of IndexerReport.Status.
const (
	IndexerOK      = "ok"
	IndexerMissing = "missing"
	IndexerFailed  = "failed"
	IndexerTimeout = "timeout"
)

// IndexerReport is one index of a precise run: an indexer cos ran, or a
// file given with --scip.
type IndexerReport struct {
	// Name is the indexer (scip-python, scip-typescript) or the index
	// file as given.
	Name string `json:"name"`
	// Indexer is the tool and version the index names ("scip-python
	// 0.6.6").
	Indexer string `json:"indexer,omitempty"`
	// Status is ok, missing (not installed), failed or timeout.
	Status string `json:"status"`
	// Message says what went wrong, how to install a missing indexer, or
	// how many of a --scip index's documents are files of the tree when
	// some are not.
	Message string `json:"message,omitempty"`
	// Seconds is the indexer's wall time.
	Seconds float64 `json:"seconds,omitempty"`
	// Documents counts the index's documents inside the tree,
	// FilesPrecise the files made precise from them.
	Documents    int `json:"documents"`
	FilesPrecise int `json:"files_precise"`
}

// PreciseReport says which files of an index run are precise.
type PreciseReport struct {
	Indexers []IndexerReport `json:"indexers,omitempty"`
	// FilesPrecise counts the files an index made precise in this run;
	// FilesUnchanged of them were in the graph as they are already, and
	// appended nothing.
	FilesPrecise   int `json:"files_precise"`
	FilesUnchanged int `json:"files_unchanged"`
	// FilesNotCovered counts the files of an indexer's languages this
	// run did not make precise: no document for them (the indexer left
	// them out or failed on them), or one that was not applied (stale,
	// changed); NotCovered names up to 20, with why. Such a file keeps
	// the edges the graph has for it when it did not change (precise ones
	// from an earlier index included), else gets inferred ones.
	FilesNotCovered int         `json:"files_not_covered"`
	NotCovered      []scip.Note `json:"not_covered,omitempty"`
	// FilesDemoted counts the files the graph held as precise that this
	// run extracted again without an index (their content changed, or a
	// declaration they use did): their calls are inferred again until
	// the next cos index --precise. Demoted names up to 20.
	FilesDemoted int      `json:"files_demoted"`
	Demoted      []string `json:"demoted,omitempty"`
	// Calls and References count the edges the indexes gave;
	// UnresolvedReceivers the calls left to *.name stubs (no type known
	// for the receiver).
	Calls               int `json:"calls"`
	References          int `json:"references"`
	UnresolvedReceivers int `json:"unresolved_receivers"`
	// InferredSites counts the call and reference sites of precise files
	// that keep the extractor's edge: the index had nothing there, or
	// could not say which declaration of a line holding several the site
	// is in (scip.Result.InferredSites). Answers about their targets are
	// lower bounds (completeness reason inferred_sites).
	InferredSites int `json:"inferred_sites"`
}

// preciseStage sits between extract.Run and the log. Before the run it
// runs the indexers (or opens the index files) and marks every file they
// have a document for as changed, so that the extractors emit its
// payload; during the run it holds those payloads back; after it, it
// merges the indexes into them (scip.Merge) and appends those whose
// precise payload differs from the graph's (a digest on the file node,
// graph.MetaPreciseDigest).
//
// On every run, precise or not, it notes the files the graph holds as
// precise whose payload is replaced by an inferred one (demoted): a
// changed file is extracted again from its new content, and a file whose
// declarations it uses changed is extracted again as well
// (extract.Options.Reemit), since its precise edges may point at what
// moved. An unchanged file that nothing it uses changed keeps its precise
// edges. "Uses" is what the extractor's own resolution looked into (its
// declarations cache): a precise edge the extractor could not have found
// (a call on a receiver only the type checker typed) into a file whose
// declaration moved can dangle until the next precise index (doctor lists
// it).
type preciseStage struct {
	root string
	opts PreciseOptions
	// before maps the graph's precise files to their precise digest.
	before map[string]string
	// indexes are the indexes to merge; covered the paths they have a
	// document for.
	indexes []*scip.Index
	covered map[string]bool
	// origHash is previous's hash of the covered files marked changed.
	origHash map[string]string
	// held are the covered files' payloads, merged after the run.
	held []graph.FileExtracted
	// sameContent counts held files whose content did not change.
	sameContent int
	// paths are the tree's files: the graph's before the run, plus those
	// emitted, less those removed.
	paths map[string]bool
	rep   PreciseReport
	// reports indexes rep.Indexers by index.
	reports []int
	workDir string
}

// newPreciseStage prepares the stage: it reads which files the graph holds
// as precise and, when asked, runs the indexers and opens the index files,
// marking their files changed in previous. exclude are the folder names
// the walk skips.
//
// Errors: an index file that is not readable, not a SCIP index, or has
// no document that is a file of the tree (E_ARGUMENT); an indexers'
// folder (o.Tools) that does not exist (E_ARGUMENT); ctx.Err(). A missing
// or failing indexer is reported, not an error.
func (x *Indexer) newPreciseStage(ctx context.Context, root string, o PreciseOptions, before map[string]string, previous map[string]string, exclude []string) (*preciseStage, error) {
	ps := &preciseStage{root: root, opts: o, before: before, covered: map[string]bool{}, origHash: map[string]string{}}
	if !o.Asked() {
		return ps, nil
	}
	ps.paths = make(map[string]bool, len(previous))
	for p := range previous {
		ps.paths[p] = true
	}
	for _, f := range o.Indexes {
		x, err := scip.Open(f, root)
		if err != nil {
			if errors.Is(err, scip.ErrNotIndex) {
				return nil, envelope.Wrap(err, envelope.CodeArgument, "%s is not a SCIP index", f).WithDetails(map[string]any{"scip": f})
			}
			return nil, envelope.Wrap(err, envelope.CodeArgument, "SCIP index %s cannot be read", f).WithDetails(map[string]any{"scip": f})
		}
		r := IndexerReport{Name: f, Indexer: x.Indexer, Status: IndexerOK}
		docs, files := len(x.Paths())+x.Outside, filesOf(root, x.Paths())
		switch {
		case docs > 0 && files == 0:
			return nil, envelope.Errorf(envelope.CodeArgument, "SCIP index %s: 0 of %d documents are files of this tree (%s); was it made for another folder?", f, docs, root).
				WithDetails(map[string]any{"scip": f, "documents": docs, "files": 0})
		case files < docs:
			r.Message = fmt.Sprintf("%d of %d documents are files of this tree", files, docs)
		}
		ps.add(x, r)
	}
	if o.Run {
		if err := ps.runIndexers(ctx, x, exclude); err != nil {
			return nil, err
		}
	}
	for p := range ps.covered {
		if h, ok := previous[p]; ok {
			ps.origHash[p] = h
			previous[p] = ""
		}
	}
	return ps, nil
}

// filesOf counts the paths (slash-separated, relative to root) that are
// regular files under root.
func filesOf(root string, paths []string) int {
	n := 0
	for _, p := range paths {
		if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err == nil && fi.Mode().IsRegular() {
			n++
		}
	}
	return n
}

// add records an index and its report.
func (ps *preciseStage) add(x *scip.Index, r IndexerReport) {
	r.Documents = len(x.Paths())
	for _, p := range x.Paths() {
		ps.covered[p] = true
	}
	ps.indexes = append(ps.indexes, x)
	ps.rep.Indexers = append(ps.rep.Indexers, r)
	ps.reports = append(ps.reports, len(ps.rep.Indexers)-1)
}

// runIndexers runs each indexer the tree has files for.
func (ps *preciseStage) runIndexers(ctx context.Context, x *Indexer, exclude []string) error {
	need := languagesIn(ctx, ps.root, exclude)
	for _, ix := range scip.Indexers {
		if !need[ix.Name] {
			continue
		}
		exe, err := scip.Find(ix, ps.opts.Tools)
		if errors.Is(err, scip.ErrNoToolsFolder) {
			what := "does not exist"
			if _, serr := os.Stat(ps.opts.Tools); serr == nil {
				what = "is not a folder"
			}
			return envelope.Wrap(err, envelope.CodeArgument, "the SCIP indexers' folder %s (--scip-tools, or COS_SCIP_TOOLS) %s", ps.opts.Tools, what).
				WithDetails(map[string]any{"scip_tools": ps.opts.Tools})
		}
		if err != nil {
			ps.rep.Indexers = append(ps.rep.Indexers, IndexerReport{Name: ix.Name, Status: IndexerMissing, Message: err.Error()})
			continue
		}
		if ps.workDir == "" {
			if ps.workDir, err = os.MkdirTemp("", "cos-scip-"); err != nil {
				return err
			}
		}
		x.logger.Info("running SCIP indexer", "indexer", ix.Name, "root", ps.root)
		start := time.Now()
		out, err := scip.RunIndexer(ctx, ix, exe, ps.root, ps.workDir, scip.RunOptions{Timeout: ps.opts.Timeout, Exclude: exclude})
		r := IndexerReport{Name: ix.Name, Seconds: time.Since(start).Seconds()}
		if err == nil {
			var x *scip.Index
			if x, err = scip.Open(out, ps.root); err == nil {
				r.Status, r.Indexer = IndexerOK, x.Indexer
				ps.add(x, r)
				continue
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.Status, r.Message = IndexerFailed, err.Error()
		if errors.Is(err, scip.ErrIndexerTimeout) {
			r.Status = IndexerTimeout
		}
		x.logger.Warn("SCIP indexer failed; its files keep inferred edges", "indexer", ix.Name, "err", err)
		ps.rep.Indexers = append(ps.rep.Indexers, r)
	}
	return nil
}

// maxLanguageWalk bounds the entries languagesIn looks at.
const maxLanguageWalk = 200_000

// languagesIn returns the indexers the tree has files for, by a walk that
// skips hidden and excluded folders and files over the extraction size
// limit, and stops once every indexer has one.
func languagesIn(ctx context.Context, root string, exclude []string) map[string]bool {
	skip := map[string]bool{}
	for _, d := range exclude {
		skip[d] = true
	}
	need := map[string]bool{}
	seen := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		seen++
		if err != nil || ctx.Err() != nil || seen > maxLanguageWalk || len(need) == len(scip.Indexers) {
			if err != nil && d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			if err != nil {
				return nil
			}
			return filepath.SkipAll
		}
		if d.IsDir() {
			if p != root && (skip[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > extract.DefaultMaxFileSize {
			return nil // not indexed by cos either: no reason to run an indexer for it
		}
		for _, ix := range scip.Indexers {
			if ix.Indexes(d.Name()) {
				need[ix.Name] = true
			}
		}
		return nil
	})
	return need
}

// reemit is extract.Options.Reemit: a precise file extracted again as a
// dependent is emitted, to replace its precise payload.
func (ps *preciseStage) reemit(path string) bool {
	_, ok := ps.before[path]
	return ok
}

// emit wraps the log's emit: covered files are held back, the others go
// on, and a precise file replaced by an inferred payload is noted.
func (ps *preciseStage) emit(next extract.EmitFunc) extract.EmitFunc {
	return func(batch []graph.FileExtracted, removed []string) error {
		pass := batch[:0:0]
		if ps.paths != nil {
			for _, p := range batch {
				ps.paths[p.Path] = true
			}
			for _, p := range removed {
				delete(ps.paths, p)
			}
		}
		for _, p := range batch {
			if ps.covered[p.Path] && mergeable(p.Extractor) {
				if h, ok := ps.origHash[p.Path]; ok && h == p.ContentHash {
					ps.sameContent++
				}
				ps.held = append(ps.held, p)
				continue
			}
			ps.noteInferred(p.Path)
			pass = append(pass, p)
		}
		if len(pass) == 0 && len(removed) == 0 {
			return nil
		}
		return next(pass, removed)
	}
}

// mergeable reports whether scip.Merge works on payloads of extractor.
func mergeable(extractor string) bool {
	return scip.Mergeable(extractor)
}

func (ps *preciseStage) noteInferred(path string) {
	if _, was := ps.before[path]; !was {
		return
	}
	ps.rep.FilesDemoted++
	if len(ps.rep.Demoted) < maxReportNotes {
		ps.rep.Demoted = append(ps.rep.Demoted, path)
	}
}

// flush merges the indexes into the held payloads and hands those that
// differ from the graph's to next, batchFiles at a time.
func (ps *preciseStage) flush(next extract.EmitFunc, batchFiles int) error {
	defer ps.close()
	ps.uncovered()
	if len(ps.held) == 0 {
		return nil
	}
	res := scip.Merge(ps.root, ps.held, ps.indexes...)
	precise := make(map[string]bool, len(res.Precise))
	for _, p := range res.Precise {
		precise[p] = true
	}
	byIndexer := map[string]int{}
	for _, p := range res.Precise {
		byIndexer[res.Indexer[p]]++
	}
	for _, at := range ps.reports {
		r := &ps.rep.Indexers[at]
		r.FilesPrecise = byIndexer[r.Indexer]
	}
	ps.rep.Calls, ps.rep.References, ps.rep.UnresolvedReceivers = res.Calls, res.References, res.Unresolved
	ps.rep.InferredSites = res.InferredSites
	for _, n := range res.Skipped {
		ps.notCovered(n)
	}
	var batch []graph.FileExtracted
	for _, p := range ps.held {
		if !precise[p.Path] {
			ps.noteInferred(p.Path)
		} else {
			ps.rep.FilesPrecise++
			d := scip.Digest(p)
			if ps.before[p.Path] == d {
				ps.rep.FilesUnchanged++
				continue
			}
			setFileMeta(&p, graph.MetaPreciseDigest, d)
		}
		batch = append(batch, p)
		if len(batch) >= batchFiles {
			if err := next(batch, nil); err != nil {
				return err
			}
			batch = nil
		}
	}
	if len(batch) > 0 {
		return next(batch, nil)
	}
	return nil
}

// notCovered records a file of an indexer's languages that keeps inferred
// edges.
func (ps *preciseStage) notCovered(n scip.Note) {
	ps.rep.FilesNotCovered++
	if len(ps.rep.NotCovered) < maxReportNotes {
		ps.rep.NotCovered = append(ps.rep.NotCovered, n)
	}
}

// uncovered counts, after the run, the files of the languages of the
// indexers that ran that no index has a document for.
func (ps *preciseStage) uncovered() {
	var exts []scip.Indexer
	for _, r := range ps.rep.Indexers {
		for _, ix := range scip.Indexers {
			if r.Status == IndexerOK && strings.HasPrefix(r.Indexer, ix.Name) {
				exts = append(exts, ix)
			}
		}
	}
	files := make([]string, 0, len(ps.paths))
	for p := range ps.paths {
		files = append(files, p)
	}
	sort.Strings(files)
	for _, p := range files {
		if ps.covered[p] {
			continue
		}
		for _, ix := range exts {
			if ix.Indexes(p) {
				ps.notCovered(scip.Note{Path: p, Reason: "no document in the " + ix.Name + " index"})
				break
			}
		}
	}
}

func (ps *preciseStage) close() {
	if ps.workDir != "" {
		_ = os.RemoveAll(ps.workDir)
		ps.workDir = ""
	}
}

// report returns the stage's report, nil when there is nothing to say.
func (ps *preciseStage) report() *PreciseReport {
	if !ps.opts.Asked() && ps.rep.FilesDemoted == 0 {
		return nil
	}
	r := ps.rep
	return &r
}

// setFileMeta sets a key on the payload's file node.
func setFileMeta(p *graph.FileExtracted, key string, v any) {
	uid := graph.SourceFileUID(p.Path)
	for i := range p.Nodes {
		if p.Nodes[i].UID != uid {
			continue
		}
		m := make(map[string]any, len(p.Nodes[i].Metadata)+1)
		for k, x := range p.Nodes[i].Metadata {
			m[k] = x
		}
		m[key] = v
		p.Nodes[i].Metadata = m
	}
}

// preciseFiles returns the graph's precise files among paths, with the
// digest of their precise payload. It reads the file node of each Python,
// TypeScript, JavaScript or other-language file (one metadata decode
// each). Call it inside a view.
func preciseFiles(g *projections.Graph, paths map[string]string) map[string]string {
	out := map[string]string{}
	for p := range paths {
		uid := graph.SourceFileUID(p)
		h, ok := g.NodeHeader(uid)
		if !ok || !mergeable(h.Extractor) {
			continue
		}
		n, ok := g.Node(uid)
		if !ok || n.Metadata[graph.MetaExtraction] != graph.ExtractionPrecise {
			continue
		}
		d, _ := n.Metadata[graph.MetaPreciseDigest].(string)
		out[p] = d
	}
	return out
}
