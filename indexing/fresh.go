package indexing

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/gitfiles"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/state"
)

// RacyWindow is how close to the moment a file was read its modification
// time may be for a size and time match to prove nothing: a write within
// the file system's timestamp granularity of the read (one or two seconds
// on some file systems, a clock tick on others) can leave size and time
// unchanged ("racy git"). Such a file is read and hashed instead. It is the
// extractor's own window.
const RacyWindow = extract.RacyWindow

// ErrNoIndexRun is returned by Freshness.Stale when the graph records no
// index run: there is no folder to compare its files with.
var ErrNoIndexRun = errors.New("the graph records no index run")

// Freshness tells whether files on disk are what the graph holds. The
// cheap path is one lstat per file, compared with the size and
// modification time the extractor recorded in its stat cache
// (<state>/index-cache/<root hash>/, read again whenever that file
// changes) or with what this Freshness verified since; a file whose record
// is missing, differs, or was made within RacyWindow of the file's
// modification time is read and its SHA-256 compared with the graph's
// content hash. It is safe for concurrent use; its methods take no lock but
// its own (a leaf: they may run inside a view) and never block on another
// process.
type Freshness struct {
	st *state.State
	// mu guards every field below. It is a leaf lock: nothing else is
	// taken while it is held.
	mu sync.Mutex
	// caches holds what is known of each root folder's files.
	caches map[string]*rootCache
	// hashes is hashesOf's FileHashes at hashesSeq (its Version), kept
	// because a copy of the whole map per call costs more than the check;
	// byRoot is it split by root (nil until a graph with several roots
	// asks for it).
	hashes    map[string]string
	byRoot    map[string]map[string]string
	hashesOf  *projections.Graph
	hashesSeq uint64
}

// rootCache is what a Freshness knows of one root folder's files.
type rootCache struct {
	// cacheStamp is the stat cache file's size and modification time when
	// records was read; zero when there was none.
	cacheStamp fileStamp
	// records is the extractor's stat cache of the root: each record says
	// when its file was read (StatRecord.Hashed).
	records map[string]extract.StatRecord
	// memo holds files read and hashed since, by path.
	memo map[string]verified
}

// fileStamp identifies a version of a file cheaply.
type fileStamp struct {
	size  int64
	mtime int64
}

// verified is a file read and hashed at time at (Unix ns).
type verified struct {
	fileStamp
	hash string
	at   int64
}

// NewFreshness returns a Freshness for the graph of st.
func NewFreshness(st *state.State) *Freshness {
	return &Freshness{st: st, caches: map[string]*rootCache{}}
}

// Check is the outcome of Freshness.Stale.
type Check struct {
	// Root is the absolute folder of the root the graph was last indexed
	// from.
	Root string
	// IndexedSeq is the seq of the last index run's graph.index_finished,
	// or of its graph.index_started while none is recorded.
	IndexedSeq uint64
	// Checked counts the distinct paths looked at; Roots names, sorted,
	// the roots they belong to ("" the primary root).
	Checked int
	Roots   []string
	// Stale lists, sorted, the paths whose file differs from what the
	// graph holds: changed, gone, or (for a path the graph does not hold)
	// a regular file that is there and not known to be binary.
	Stale []string
	// Reindex names the files of Stale by the folder of their root, as
	// they are named on disk under it, for RunOptions.Paths: the graph
	// holds a name that is not valid UTF-8 under its Latin-1 reading.
	Reindex map[string][]string
}

// Stale checks paths — repo-relative, slash-separated paths of the
// graph's indexed root; absolute or escaping ones are ignored — against
// the graph of v. Call it inside the view v. Errors: ErrNoIndexRun.
func (f *Freshness) Stale(v state.View, paths []string) (Check, error) {
	return f.stale(v, paths, false)
}

// StaleHeld is Stale for the paths the graph holds files of; the others
// (folders, paths of nodes written by hand) are not looked at.
func (f *Freshness) StaleHeld(v state.View, paths []string) (Check, error) {
	return f.stale(v, paths, true)
}

func (f *Freshness) stale(v state.View, paths []string, heldOnly bool) (Check, error) {
	run, ok := v.Graph.LastIndex()
	if !ok {
		return Check{}, ErrNoIndexRun
	}
	roots := v.Graph.Roots()
	c := Check{Root: run.Root, IndexedSeq: indexedSeq(run)}
	f.mu.Lock()
	defer f.mu.Unlock()
	hashes := f.graphHashes(v)
	seen := make(map[string]bool, len(paths))
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		folder, rel, ok := DiskPath(roots, p)
		if !ok || !relPath(rel) {
			continue
		}
		want, held := hashes[p]
		if heldOnly && !held {
			continue
		}
		c.Checked++
		if name, _ := graph.SplitRoot(p); !slices.Contains(c.Roots, name) {
			c.Roots = append(c.Roots, name)
		}
		rc := f.load(folder)
		if disk := OnDisk(folder, rel); f.staleLocked(rc, folder, disk, want, held) {
			c.Stale = append(c.Stale, p)
			if c.Reindex == nil {
				c.Reindex = map[string][]string{}
			}
			c.Reindex[folder] = append(c.Reindex[folder], disk)
		}
	}
	slices.Sort(c.Stale)
	slices.Sort(c.Roots)
	for _, l := range c.Reindex {
		slices.Sort(l)
	}
	return c, nil
}

// indexedSeq is the run's finished seq, else its started seq.
func indexedSeq(run projections.IndexRun) uint64 {
	if run.Finished.Seq != 0 {
		return run.Finished.Seq
	}
	return run.Started.Seq
}

// relPath reports whether p is a clean repo-relative path.
func relPath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, `\`) || path.Clean(p) != p {
		return false
	}
	return p != "." && p != ".." && !strings.HasPrefix(p, "../")
}

// OnDisk returns the name on disk of the graph's path p under root: p, or
// the bytes of its Latin-1 reading when the graph holds a name that is not
// valid UTF-8 that way (extract stores such names so: "bad\xff.go" is
// "badÿ.go" in the graph) and only those bytes name a file.
func OnDisk(root, p string) string {
	raw, ok := latin1Bytes(p)
	if !ok {
		return p
	}
	if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p))); err == nil {
		return p
	}
	if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(raw))); err == nil {
		return raw
	}
	return p
}

// latin1Bytes turns a string whose runes are all below U+0100 and not all
// ASCII back into those bytes; false otherwise.
func latin1Bytes(s string) (string, bool) {
	wide := false
	for _, r := range s {
		if r >= 0x100 {
			return "", false
		}
		if r >= 0x80 {
			wide = true
		}
	}
	if !wide {
		return "", false
	}
	b := make([]byte, 0, len(s))
	for _, r := range s {
		b = append(b, byte(r))
	}
	return string(b), true
}

// graphHashes returns the graph's content hashes, copied once per graph
// change. Called with mu held, inside the view v.
func (f *Freshness) graphHashes(v state.View) map[string]string {
	seq := v.Graph.Version()
	if f.hashes == nil || f.hashesOf != v.Graph || f.hashesSeq != seq {
		f.hashes, f.byRoot, f.hashesOf, f.hashesSeq = v.Graph.FileHashes(), nil, v.Graph, seq
	}
	return f.hashes
}

// rootHashes returns the content hashes of the root name's files, keyed
// by their path inside the root. Called with mu held, inside the view v.
func (f *Freshness) rootHashes(v state.View, name string, several bool) map[string]string {
	all := f.graphHashes(v)
	if !several && name == "" {
		return all
	}
	if f.byRoot == nil {
		f.byRoot = map[string]map[string]string{}
		for p, h := range all {
			n, rel := graph.SplitRoot(p)
			m := f.byRoot[n]
			if m == nil {
				m = map[string]string{}
				f.byRoot[n] = m
			}
			m[rel] = h
		}
	}
	return f.byRoot[name]
}

// cacheDir is where the extractor keeps its caches for root (as IndexWith
// names it).
func cacheDir(stateDir, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(stateDir, state.IndexCacheDir, hex.EncodeToString(sum[:8]))
}

// load returns what is known of the files of root, reading the
// extractor's stat cache of root again when it changed on disk. Called
// with mu held. A cache that cannot be read leaves no records: every file
// is then hashed, which is slower, not wrong.
func (f *Freshness) load(root string) *rootCache {
	rc := f.caches[root]
	if rc == nil {
		rc = &rootCache{memo: map[string]verified{}}
		f.caches[root] = rc
	}
	dir := cacheDir(f.st.Dir(), root)
	fi, err := os.Stat(filepath.Join(dir, extract.StatCacheFile))
	if err != nil {
		rc.records, rc.cacheStamp = nil, fileStamp{}
		return rc
	}
	stamp := fileStamp{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if stamp == rc.cacheStamp && rc.records != nil {
		return rc
	}
	recs, ok, err := extract.ReadStatCache(dir, root)
	if err != nil {
		f.st.Logger().Warn("the extractor's stat cache is unreadable; freshness checks hash every file", "err", err)
	}
	if !ok {
		recs = nil
	}
	rc.records, rc.cacheStamp = recs, stamp
	return rc
}

// staleLocked reports whether the file p under root is not what the graph
// holds (want, when held). Called with mu held.
func (f *Freshness) staleLocked(rc *rootCache, root, p, want string, held bool) bool {
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
	if err != nil || !fi.Mode().IsRegular() {
		return held // gone (or no longer a file): stale when the graph holds it
	}
	st := fileStamp{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if r, ok := rc.records[p]; ok && r.Size == st.size && r.ModTime == st.mtime && !racy(st.mtime, r.Hashed) {
		if !held {
			return !r.Binary // a binary file is never held; any other is new
		}
		return r.Hash != want
	}
	if !held {
		return true // a file the graph does not hold and the extractor did not see
	}
	if m, ok := rc.memo[p]; ok && m.fileStamp == st && !racy(st.mtime, m.at) {
		return m.hash != want
	}
	now := time.Now().UnixNano()
	h, err := hashFile(filepath.Join(root, filepath.FromSlash(p)))
	if err != nil {
		return true // unreadable: the graph cannot be shown to hold it
	}
	rc.memo[p] = verified{fileStamp: st, hash: h, at: now}
	return h != want
}

// racy reports whether a file modified at mtime may have changed again
// within the file system's timestamp granularity of a record made at at
// (both Unix ns).
func racy(mtime, at int64) bool {
	return mtime+int64(RacyWindow) > at
}

// hashFile returns the SHA-256 of the file at abs, lowercase hex (the
// graph's content hash).
func hashFile(abs string) (string, error) {
	fh, err := os.Open(abs)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Target is what a freshness scan compares the disk with: one root of
// the graph and its content hashes, taken inside a view so that the scan
// itself (file reads, git) runs outside it. Its paths are relative to the
// root's folder; graph.RootPath(Name, p) is the graph's path.
type Target struct {
	// Root is the root's absolute folder, Name its name ("" the primary
	// root).
	Root string
	Name string
	// IndexedSeq is the root's last index run's finished seq, else its
	// started seq.
	IndexedSeq uint64
	// Commit is the commit the root's last index run recorded, "" when
	// none.
	Commit string
	hashes map[string]string
}

// Target returns what Scan compares with for the root the graph was last
// indexed from, and false when the graph records no index run. Call it
// inside the view v; the hashes it holds are shared and must not be
// changed.
func (f *Freshness) Target(v state.View) (Target, bool) {
	run, ok := v.Graph.LastIndex()
	if !ok {
		return Target{}, false
	}
	for _, t := range f.Targets(v) {
		if t.Name == run.Name {
			return t, true
		}
	}
	return Target{}, false
}

// Targets returns a Target for each root of the graph, ordered by name
// (the primary root first). Call it inside the view v.
func (f *Freshness) Targets(v state.View) []Target {
	roots := v.Graph.Roots()
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Target, 0, len(roots))
	for _, r := range roots {
		out = append(out, Target{Root: r.Root, Name: r.Name, IndexedSeq: indexedSeq(r), Commit: r.Commit,
			hashes: f.rootHashes(v, r.Name, len(roots) > 1)})
	}
	return out
}

// Scan is what Freshness.Scan found.
type Scan struct {
	// Root is the folder compared.
	Root string `json:"root"`
	// FilesChecked counts the graph's files looked at.
	FilesChecked int `json:"files_checked"`
	// Changed counts the graph's files that changed on disk or are gone
	// and are not indexed yet; New the files git keeps (untracked, not
	// ignored) that the graph does not hold (outside git, the files a walk
	// of the folder finds that the graph does not hold).
	Changed int `json:"changed"`
	New     int `json:"new"`
	// Paths names up to the limit given of them, changed first, each
	// group sorted; PathsTruncated says some were left out.
	Paths          []string `json:"paths"`
	PathsTruncated bool     `json:"paths_truncated,omitempty"`
	// Git says whether the root is inside a git work tree.
	Git bool `json:"git"`
	// Head is the commit HEAD names, when in git.
	Head string `json:"head,omitempty"`
	// CommitsAhead is how many commits HEAD is ahead of the indexed
	// commit; nil when unknown, and CommitsAheadUnknown then says why.
	CommitsAhead        *int   `json:"commits_ahead,omitempty"`
	CommitsAheadUnknown string `json:"commits_ahead_unknown,omitempty"`
}

// Scan compares every file of t with the disk (the cheap check of Stale)
// and, in a git work tree, lists the untracked files git does not ignore
// that the graph does not hold (git ls-files --others --exclude-standard),
// and how many commits HEAD is ahead of the indexed commit. limit bounds
// Scan.Paths. Run it outside any view: it reads files and runs git. A
// failure of git is reported in the answer, not returned; the error is
// ctx's.
func (f *Freshness) Scan(ctx context.Context, t Target, limit int) (Scan, error) {
	s := Scan{Root: t.Root, Paths: []string{}, FilesChecked: len(t.hashes)}
	changed, err := f.Changed(ctx, t)
	if err != nil {
		return s, err
	}
	s.Changed = len(changed)
	var added []string
	if _, err := gitfiles.TopLevel(ctx, t.Root); err == nil {
		s.Git = true
		added = f.untracked(ctx, t)
		s.Head, _ = gitfiles.Head(ctx, t.Root)
	} else {
		added = f.unheld(ctx, t)
	}
	s.New = len(added)
	for _, p := range append(changed, added...) {
		if len(s.Paths) == limit {
			s.PathsTruncated = true
			break
		}
		s.Paths = append(s.Paths, p)
	}
	switch {
	case !s.Git:
		s.CommitsAheadUnknown = "the indexed folder is not in a git work tree"
	case t.Commit == "":
		s.CommitsAheadUnknown = "the last index run recorded no commit; index again to record one"
	case s.Head == "":
		s.CommitsAheadUnknown = "the repository has no commit"
	default:
		n, err := gitfiles.CommitsAhead(ctx, t.Root, t.Commit, s.Head)
		if err != nil {
			s.CommitsAheadUnknown = "git cannot count the commits since the indexed one (" + t.Commit + "), perhaps rewritten by a rebase: " + err.Error()
		} else {
			s.CommitsAhead = &n
		}
	}
	return s, ctx.Err()
}

// Pending returns, sorted, every file an index of t's root would look at
// again: the graph's files that changed on disk or are gone (Changed) and,
// in a git work tree, the untracked files git keeps that the graph does
// not hold. Outside git a new file is not found (that takes a walk). Run
// it outside any view; the error is ctx's.
func (f *Freshness) Pending(ctx context.Context, t Target) ([]string, error) {
	changed, err := f.Changed(ctx, t)
	if err != nil {
		return nil, err
	}
	if _, err := gitfiles.TopLevel(ctx, t.Root); err == nil {
		changed = append(changed, f.untracked(ctx, t)...)
		slices.Sort(changed)
		changed = slices.Compact(changed)
	}
	return changed, ctx.Err()
}

// Changed returns, sorted, the files of t that changed on disk or are
// gone since they were indexed: the cheap check of Stale over every file
// the graph holds. The error is ctx's.
func (f *Freshness) Changed(ctx context.Context, t Target) ([]string, error) {
	var changed []string
	f.mu.Lock()
	defer f.mu.Unlock()
	rc := f.load(t.Root)
	n := 0
	for p, want := range t.hashes {
		if f.staleLocked(rc, t.Root, OnDisk(t.Root, p), want, true) {
			changed = append(changed, p)
		}
		if n++; n%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	slices.Sort(changed)
	return changed, nil
}

// unheld lists, sorted, the files an index of t.Root (not in git) would
// take that the graph does not hold: a walk of the folder by the index's
// rules (.gitignore files, the excluded folders, the state folder). A
// walk that fails is logged and counts nothing.
func (f *Freshness) unheld(ctx context.Context, t Target) []string {
	exclude := append([]string(nil), extract.DefaultExcludeDirs...)
	if rel, err := filepath.Rel(t.Root, f.st.Dir()); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		exclude = append(exclude, filepath.Base(f.st.Dir()))
	}
	files, err := extract.ListFiles(ctx, t.Root, exclude, 0)
	if err != nil {
		f.st.Logger().Warn("listing the folder failed; new files are not counted", "root", t.Root, "err", err)
		return nil
	}
	var added []string
	for _, p := range files {
		if _, held := t.hashes[p]; !held && f.indexable(t.Root, p) {
			added = append(added, p)
		}
	}
	return added
}

// untracked lists, sorted, the files under t.Root that git keeps untracked
// and does not ignore, that the graph does not hold and that indexing
// would not skip (the built-in excluded folders, the state folder, a
// symbolic link or other file that is not regular, a file over
// extract.DefaultMaxFileSize, a file the last index found binary).
func (f *Freshness) untracked(ctx context.Context, t Target) []string {
	out, err := gitfiles.Git(ctx, t.Root, "ls-files", "-z", "--others", "--exclude-standard", "--", ".")
	if err != nil {
		f.st.Logger().Warn("git ls-files failed; new files are not counted", "err", err)
		return nil
	}
	skip := map[string]bool{}
	for _, d := range extract.DefaultExcludeDirs {
		skip[d] = true
	}
	if rel, err := filepath.Rel(t.Root, f.st.Dir()); err == nil && !strings.HasPrefix(rel, "..") {
		skip[filepath.ToSlash(rel)] = true
	}
	var added []string
	for b := range bytes.SplitSeq(out, []byte{0}) {
		p := string(b)
		if p == "" || !relPath(p) {
			continue
		}
		if _, held := t.hashes[p]; held || excluded(p, skip) || !f.indexable(t.Root, p) {
			continue
		}
		added = append(added, p)
	}
	slices.Sort(added)
	return added
}

// indexable reports whether an index would take the file p under root:
// a regular file within extract.DefaultMaxFileSize that the last index
// did not find binary as it is now (same size and modification time).
func (f *Freshness) indexable(root, p string) bool {
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > extract.DefaultMaxFileSize {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.load(root).records[p]
	return !ok || !r.Binary || r.Size != fi.Size() || r.ModTime != fi.ModTime().UnixNano()
}

// excluded reports whether a folder of p (or a leading run of its folders)
// is in skip.
func excluded(p string, skip map[string]bool) bool {
	dir := path.Dir(p)
	for dir != "." && dir != "/" {
		if skip[path.Base(dir)] || skip[dir] {
			return true
		}
		dir = path.Dir(dir)
	}
	return false
}
