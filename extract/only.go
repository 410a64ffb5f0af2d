package extract

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/cos-dev/cos/extract/lang"

	ignore "github.com/sabhiram/go-gitignore"

	"github.com/cos-dev/cos/gitfiles"
)

// keepFunc says which of rels (relative to dir, slash-separated) the
// repository's ignore rules keep. It returns an error wrapping
// errNotWorkTree when dir is not inside a git work tree; the targeted run
// then applies the .gitignore files as the walk does outside git.
type keepFunc func(ctx context.Context, dir string, rels []string) ([]string, error)

// gitKeep asks git which paths it keeps: what a full walk inside a work
// tree keeps (gitfiles.Load). Tests may replace it.
var gitKeep keepFunc = func(ctx context.Context, dir string, rels []string) ([]string, error) {
	return gitfiles.Keep(ctx, dir, rels)
}

// errNotWorkTree is what gitKeep wraps when the root is not in a work
// tree.
var errNotWorkTree = gitfiles.ErrNotWorkTree

// targeted lists the entries of a targeted run (Options.Only) in place of
// the walk: every file the stat cache c records (and every path of
// previous it lacks, lstat'ed), as recorded, with no stat; then each Only
// path looked at again: gone, ignored or excluded (dropped, with anything
// the entries held below it), a folder (its files listed by the walk's
// rules), a file (lstat'ed afresh). An Only path that is absolute, empty,
// the root itself or leads out of the root is an error wrapping
// ErrOptions.
func (r *runner) targeted(c *cache) (walkResult, error) {
	var res walkResult
	only := make([]string, 0, len(r.o.Only))
	seen := make(map[string]bool, len(r.o.Only))
	for _, p := range r.o.Only {
		clean := path.Clean(p)
		if p == "" || path.IsAbs(p) || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
			return res, fmt.Errorf("%w: Only path %q: give a path inside the root, relative and slash-separated", ErrOptions, p)
		}
		if !seen[clean] {
			seen[clean] = true
			only = append(only, clean)
		}
	}
	sort.Strings(only)

	files := make(map[string]entry, len(c.stat.Stat)+len(only))
	abs := func(raw string) string { return filepath.Join(r.root, filepath.FromSlash(raw)) }
	for p, se := range c.stat.Stat {
		files[p] = entry{Rel: p, Abs: abs(p), Size: se.Size, ModTime: se.ModTime, raw: p, fromCache: true}
	}
	for p := range r.previous {
		if _, ok := files[p]; ok || seen[p] {
			continue
		}
		if e, ok := r.lstatEntry(p, p, &res); ok {
			files[p] = e
		}
	}

	// Each Only path replaces whatever the entries held at it and below.
	dropped := make(map[string]bool, len(only))
	var fresh []entry
	for _, raw := range only {
		if err := r.ctx.Err(); err != nil {
			return res, err
		}
		rel := pathKey(raw)
		dropped[rel] = true
		if r.excludedPath(rel) {
			continue
		}
		fi, err := os.Lstat(abs(raw))
		switch {
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			// Gone, or a folder on its way is now a file.
			continue
		case err != nil:
			res.Failed = append(res.Failed, FileNote{Path: lang.CleanString(rel), Reason: lang.CleanString(err.Error())})
			// Not dropped: a file that cannot be looked at now keeps what
			// the graph holds (as the walk's failures do).
			delete(dropped, rel)
			continue
		case fi.IsDir():
			if path.Base(rel) == ".git" {
				continue
			}
			w, err := walk(r.ctx, abs(raw), r.o.ExcludeDirs, r.o.MaxFileSize)
			if err != nil {
				if r.ctx.Err() != nil {
					return res, r.ctx.Err()
				}
				res.Failed = append(res.Failed, FileNote{Path: lang.CleanString(rel), Reason: lang.CleanString(err.Error())})
				continue
			}
			for _, f := range w.Files {
				f.raw = raw + "/" + f.raw
				f.Rel = pathKey(f.raw)
				fresh = append(fresh, f)
			}
			res.Skipped = append(res.Skipped, prefixNotes(rel, w.Skipped)...)
			res.Failed = append(res.Failed, prefixNotes(rel, w.Failed)...)
		default:
			if e, ok := r.fileEntry(rel, raw, fi, &res); ok {
				fresh = append(fresh, e)
			}
		}
	}
	for p := range files {
		if droppedBelow(dropped, p) {
			delete(files, p)
		}
	}
	kept, err := r.keep(fresh)
	if err != nil {
		return res, err
	}
	for _, e := range kept {
		files[e.Rel] = e
	}

	res.Files = make([]entry, 0, len(files))
	for _, e := range files {
		res.Files = append(res.Files, e)
	}
	sort.Slice(res.Files, func(i, j int) bool { return res.Files[i].Rel < res.Files[j].Rel })
	return res, nil
}

// lstatEntry looks at one file of previous the stat cache does not
// record: a regular file within the size limit is an entry.
func (r *runner) lstatEntry(rel, raw string, res *walkResult) (entry, bool) {
	if r.excludedPath(rel) {
		return entry{}, false
	}
	fi, err := os.Lstat(filepath.Join(r.root, filepath.FromSlash(raw)))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			res.Failed = append(res.Failed, FileNote{Path: lang.CleanString(rel), Reason: lang.CleanString(err.Error())})
		}
		return entry{}, false
	}
	if fi.IsDir() {
		return entry{}, false
	}
	return r.fileEntry(rel, raw, fi, res)
}

// fileEntry applies the walk's rules to a non-folder: symlinks and special
// files are skipped, so are files over Options.MaxFileSize.
func (r *runner) fileEntry(rel, raw string, fi fs.FileInfo, res *walkResult) (entry, bool) {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		res.Skipped = append(res.Skipped, FileNote{Path: lang.CleanString(rel), Reason: SkipSymlink})
		return entry{}, false
	case !fi.Mode().IsRegular():
		res.Skipped = append(res.Skipped, FileNote{Path: lang.CleanString(rel), Reason: SkipSpecial})
		return entry{}, false
	case fi.Size() > r.o.MaxFileSize:
		res.Skipped = append(res.Skipped, FileNote{Path: lang.CleanString(rel), Reason: SkipTooLarge})
		return entry{}, false
	}
	return entry{Rel: rel, Abs: filepath.Join(r.root, filepath.FromSlash(raw)), Size: fi.Size(), ModTime: fi.ModTime().UnixNano(), raw: raw}, true
}

// excludedPath reports whether a folder on rel's way (rel itself included,
// as it may be a folder) is .git or one of Options.ExcludeDirs: the walk
// never descends into those.
func (r *runner) excludedPath(rel string) bool {
	for part := range strings.SplitSeq(rel, "/") {
		if part == ".git" {
			return true
		}
		for _, x := range r.o.ExcludeDirs {
			if part == x {
				return true
			}
		}
	}
	return false
}

// droppedBelow reports whether p or one of its folders is in dropped.
func droppedBelow(dropped map[string]bool, p string) bool {
	for {
		if dropped[p] {
			return true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}

// prefixNotes returns notes with dir+"/" before each path.
func prefixNotes(dir string, notes []FileNote) []FileNote {
	out := make([]FileNote, len(notes))
	for i, n := range notes {
		out[i] = FileNote{Path: dir + "/" + n.Path, Reason: n.Reason}
	}
	return out
}

// keep returns the entries the repository's ignore rules keep: git's
// answer inside a work tree (gitKeep), the .gitignore files of the root
// and of every folder on the way otherwise (as the walk reads them).
func (r *runner) keep(es []entry) ([]entry, error) {
	if len(es) == 0 {
		return nil, nil
	}
	if gitKeep != nil {
		raws := make([]string, len(es))
		for i, e := range es {
			raws[i] = e.raw
		}
		kept, err := gitKeep(r.ctx, r.root, raws)
		switch {
		case err == nil:
			ok := make(map[string]bool, len(kept))
			for _, k := range kept {
				ok[k] = true
			}
			out := es[:0]
			for _, e := range es {
				if ok[e.raw] {
					out = append(out, e)
				}
			}
			return out, nil
		case !errors.Is(err, errNotWorkTree):
			if r.ctx.Err() != nil {
				return nil, r.ctx.Err()
			}
			return nil, fmt.Errorf("%w: which files git keeps: %v", ErrRoot, err)
		}
	}
	ig := &ignoreLevels{root: r.root, byDir: map[string]*ignore.GitIgnore{}}
	out := es[:0]
	for _, e := range es {
		if !ig.ignored(e.Rel, e.raw) {
			out = append(out, e)
		}
	}
	return out, nil
}

// ignoreLevels answers, for one path at a time, what the walk's .gitignore
// levels answer: a path is ignored when a folder on its way, or the path
// itself, matches the .gitignore of a folder above it.
type ignoreLevels struct {
	root string
	// byDir caches each folder's compiled .gitignore (nil: none), by
	// repo-relative key.
	byDir map[string]*ignore.GitIgnore
}

func (l *ignoreLevels) level(rel, raw string) *ignore.GitIgnore {
	if gi, ok := l.byDir[rel]; ok {
		return gi
	}
	var gi *ignore.GitIgnore
	if data, err := os.ReadFile(filepath.Join(l.root, filepath.FromSlash(raw), ".gitignore")); err == nil {
		gi = ignore.CompileIgnoreLines(strings.Split(lang.ValidUTF8(data), "\n")...)
	}
	l.byDir[rel] = gi
	return gi
}

func (l *ignoreLevels) ignored(rel, raw string) bool {
	parts := strings.Split(rel, "/")
	rawParts := strings.Split(raw, "/")
	if len(rawParts) != len(parts) {
		rawParts = parts
	}
	for i := 1; i <= len(parts); i++ {
		sub := strings.Join(parts[:i], "/")
		for j := range i {
			gi := l.level(strings.Join(parts[:j], "/"), strings.Join(rawParts[:j], "/"))
			if gi == nil {
				continue
			}
			s := sub
			if j > 0 {
				s = strings.Join(parts[j:i], "/")
			}
			if i < len(parts) {
				s += "/"
			}
			if gi.MatchesPath(s) {
				return true
			}
		}
	}
	return false
}

// underOnly counts the files of a targeted run that lie at or under one
// of its Only paths: what the run looked at, not the rest of the tree it
// carries along from the stat cache.
func (r *runner) underOnly(files []entry) int {
	n := 0
	for _, f := range files {
		for _, p := range r.o.Only {
			p = pathKey(path.Clean(p))
			if f.Rel == p || strings.HasPrefix(f.Rel, p+"/") {
				n++
				break
			}
		}
	}
	return n
}
