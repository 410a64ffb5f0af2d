package gitfiles

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Sources of a Set: which implementation of git's rules listed it.
const (
	// SourceGit is a Set listed by the git binary (git ls-files).
	SourceGit = "git"
	// SourceGoGit is a Set listed by go-git's implementation of git's
	// ignore rules, used when git is not on PATH or could not answer.
	SourceGoGit = "go-git"
)

// ErrOutside is returned by Keep for a path that is absolute or leaves the
// folder it is relative to ("../x").
var ErrOutside = errors.New("path is outside the folder")

// maxPathspecBytes bounds the pathspec bytes given to one git ls-files
// call by Keep; a longer list is asked in several calls.
const maxPathspecBytes = 64 << 10

// Set is the set of files git keeps below a folder of a work tree: what
// `git ls-files --cached --others --exclude-standard` lists there, that is
// every tracked file (even one an ignore rule matches, even one deleted
// from disk since) and every untracked file no ignore rule matches. A
// submodule, a nested repository and a linked worktree (a folder holding a
// .git file or folder) are boundaries: nothing below them is in the Set.
// A Set is read-only and safe for concurrent use.
type Set struct {
	// Top is the absolute top folder of the work tree.
	Top string
	// Prefix is the listed folder relative to Top, slash-separated, ""
	// for Top itself.
	Prefix string
	// Source is SourceGit or SourceGoGit.
	Source string
	// Note says why SourceGoGit answered although git is on PATH (git
	// failed: the reason); "" otherwise.
	Note string

	files []string // sorted, relative to the listed folder
	has   map[string]struct{}
	dirs  map[string]struct{} // every folder with a kept file below
}

// Has reports whether git keeps the file rel (relative to the listed
// folder, slash-separated).
func (s *Set) Has(rel string) bool {
	_, ok := s.has[rel]
	return ok
}

// HasDir reports whether some kept file lies below the folder rel
// (relative to the listed folder, slash-separated; "" is the folder
// itself).
func (s *Set) HasDir(rel string) bool {
	if rel == "" || rel == "." {
		return len(s.files) > 0
	}
	_, ok := s.dirs[rel]
	return ok
}

// Len is the number of kept files.
func (s *Set) Len() int { return len(s.files) }

// newSet builds a Set of files (relative to the listed folder), sorting
// and deduplicating them.
func newSet(top, prefix, source string, files []string) *Set {
	sort.Strings(files)
	files = dedupe(files)
	s := &Set{Top: top, Prefix: prefix, Source: source, files: files,
		has: make(map[string]struct{}, len(files)), dirs: map[string]struct{}{}}
	for _, f := range files {
		s.has[f] = struct{}{}
		for d := path.Dir(f); d != "." && d != "/"; d = path.Dir(d) {
			if _, ok := s.dirs[d]; ok {
				break
			}
			s.dirs[d] = struct{}{}
		}
	}
	return s
}

// dedupe drops adjacent duplicates of a sorted slice, in place.
func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i > 0 && v == s[i-1] {
			continue
		}
		out = append(out, v)
	}
	return out
}

// Option tunes Load and Keep.
type Option func(*config)

type config struct {
	goGit bool
}

// withGoGit makes Load and Keep use go-git's implementation of git's rules
// even when git is on PATH (as they do when it is not).
func withGoGit() Option { return func(c *config) { c.goGit = true } }

func configOf(opts []Option) config {
	var c config
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Load lists the files git keeps below dir (see Set). dir may be the top
// of a work tree or any folder inside one; the ignore rules of the whole
// work tree apply (the top's .gitignore, those of the folders above dir,
// .git/info/exclude, core.excludesFile).
//
// With the git binary on PATH it runs `git rev-parse` and one
// `git ls-files`; without it, or when git fails on something other than
// dir not being in a work tree (a repository git refuses to read, say), it
// reads the rules with go-git and walks the folder (Set.Source and
// Set.Note say which answered and why).
//
// Errors: ErrNotWorkTree when dir is not inside a work tree (or is inside
// a .git folder); the context's error; a failure of both implementations.
func Load(ctx context.Context, dir string, opts ...Option) (*Set, error) {
	c := configOf(opts)
	if c.goGit || Binary() == "" {
		return loadGoGit(ctx, dir)
	}
	s, err := loadGit(ctx, dir)
	if err == nil || errors.Is(err, ErrNotWorkTree) || ctx.Err() != nil {
		return s, err
	}
	fs, ferr := loadGoGit(ctx, dir)
	if ferr != nil {
		return nil, fmt.Errorf("list files of %s: %w (go-git: %v)", dir, err, ferr)
	}
	fs.Note = err.Error()
	return fs, nil
}

// loadGit is Load with the git binary: one git ls-files; the top and
// prefix are found as git finds them (the nearest .git above dir), and
// asked of git rev-parse only when that look-up fails.
func loadGit(ctx context.Context, dir string) (*Set, error) {
	out, err := Git(ctx, dir, lsFilesArgs()...)
	if err != nil {
		return nil, err
	}
	files := parseLsFiles(out)
	if r, prefix, err := findRepo(dir); err == nil {
		return newSet(r.top, prefix, SourceGit, files), nil
	}
	out, err = Git(ctx, dir, "rev-parse", "--show-toplevel", "--show-prefix")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if lines[0] == "" {
		return nil, fmt.Errorf("%w: %s", ErrNotWorkTree, dir)
	}
	prefix := ""
	if len(lines) > 1 {
		prefix = strings.TrimSuffix(lines[1], "/")
	}
	return newSet(lines[0], prefix, SourceGit, files), nil
}

// lsFilesArgs is the git command line listing kept files: --stage shows
// the mode of tracked entries so that submodules (gitlinks) can be
// dropped; -t tags each record ("? " untracked, "H " and the other
// letters tracked), so an untracked name that reads like a staged record
// is not taken for one; untracked nested repositories are listed as
// "dir/" and dropped by parseLsFiles.
func lsFilesArgs(pathspecs ...string) []string {
	args := []string{"--literal-pathspecs", "-c", "core.quotePath=false", "ls-files", "-z", "-t", "--stage", "--cached", "--others", "--exclude-standard"}
	if len(pathspecs) > 0 {
		args = append(args, "--")
		args = append(args, pathspecs...)
	}
	return args
}

// parseLsFiles reads the NUL-separated output of lsFilesArgs: a tracked
// entry is "<tag> <mode> <object> <stage>\t<path>", an untracked one
// "? <path>" ("? dir/" for a nested repository). A record without a tag
// (git ls-files without -t) is read by its shape: a staged entry, else a
// bare path. Submodules and nested repositories are dropped; paths are
// returned as git gave them.
func parseLsFiles(out []byte) []string {
	var files []string
	for len(out) > 0 {
		i := bytes.IndexByte(out, 0)
		if i < 0 {
			i = len(out)
		}
		rec := string(out[:i])
		out = out[min(i+1, len(out)):]
		if rec == "" {
			continue
		}
		untracked := false
		if tag, rest, ok := lsFilesTag(rec); ok {
			rec, untracked = rest, tag == '?'
			if rec == "" {
				continue
			}
		}
		if mode, p, ok := stagedEntry(rec); ok && !untracked {
			if mode != "160000" && p != "" {
				files = append(files, p)
			}
			continue
		}
		if strings.HasSuffix(rec, "/") {
			continue // an untracked nested repository or linked worktree
		}
		files = append(files, rec)
	}
	return files
}

// lsFilesTag splits the status tag git ls-files -t puts before a record
// ("? ", "H ", "S ", "M ", "R ", "C ", "K ", or a lower-case letter);
// ok is false for a record without one.
func lsFilesTag(rec string) (tag byte, rest string, ok bool) {
	if len(rec) < 2 || rec[1] != ' ' {
		return 0, rec, false
	}
	switch c := rec[0]; {
	case c == '?', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		return c, rec[2:], true
	}
	return 0, rec, false
}

// stagedEntry splits an ls-files --stage record "<mode> <object>
// <stage>\t<path>"; ok is false for any other shape.
func stagedEntry(rec string) (mode, p string, ok bool) {
	meta, p, found := strings.Cut(rec, "\t")
	if !found {
		return "", "", false
	}
	f := strings.Split(meta, " ")
	if len(f) != 3 || len(f[0]) != 6 || (len(f[1]) != 40 && len(f[1]) != 64) || len(f[2]) != 1 {
		return "", "", false
	}
	for _, r := range f[0] {
		if r < '0' || r > '7' {
			return "", "", false
		}
	}
	for _, r := range f[1] {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return "", "", false
		}
	}
	if f[2][0] < '0' || f[2][0] > '3' {
		return "", "", false
	}
	return f[0], p, true
}

// Keep returns which of rels (paths relative to dir, slash-separated) git
// keeps right now, sorted: a file is kept as Load would keep it (a tracked
// file deleted from disk is still kept: git still tracks it); a folder
// stands for the kept files below it, which are returned in its place. A
// path neither kept nor a folder is left out. Keep is what a watcher asks
// about a burst of changed paths, without listing the whole tree.
//
// Errors: ErrOutside for an absolute path or one leaving dir;
// ErrNotWorkTree; the context's error; git's or go-git's failure.
func Keep(ctx context.Context, dir string, rels []string, opts ...Option) ([]string, error) {
	clean := make([]string, 0, len(rels))
	for _, r := range rels {
		c, err := cleanRel(r)
		if err != nil {
			return nil, err
		}
		clean = append(clean, c)
	}
	if len(clean) == 0 {
		return nil, nil
	}
	c := configOf(opts)
	if c.goGit || Binary() == "" {
		return keepGoGit(ctx, dir, clean)
	}
	kept, err := keepGit(ctx, dir, clean)
	if err == nil || errors.Is(err, ErrNotWorkTree) || ctx.Err() != nil {
		return kept, err
	}
	kept, ferr := keepGoGit(ctx, dir, clean)
	if ferr != nil {
		return nil, fmt.Errorf("keep files of %s: %w (go-git: %v)", dir, err, ferr)
	}
	return kept, nil
}

// cleanRel checks and cleans one path given to Keep; "" and "." are the
// folder itself.
func cleanRel(r string) (string, error) {
	if r == "" {
		return ".", nil
	}
	if path.IsAbs(r) || filepath.IsAbs(r) {
		return "", fmt.Errorf("%w: %q is absolute", ErrOutside, r)
	}
	c := path.Clean(r)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("%w: %q", ErrOutside, r)
	}
	return c, nil
}

// keepGit is Keep with the git binary, in batches of at most
// maxPathspecBytes of pathspecs.
func keepGit(ctx context.Context, dir string, rels []string) ([]string, error) {
	var kept []string
	for start := 0; start < len(rels); {
		end, size := start, 0
		for end < len(rels) && (end == start || size+len(rels[end]) <= maxPathspecBytes) {
			size += len(rels[end]) + 1
			end++
		}
		out, err := Git(ctx, dir, lsFilesArgs(rels[start:end]...)...)
		if err != nil {
			return nil, err
		}
		kept = append(kept, parseLsFiles(out)...)
		start = end
	}
	sort.Strings(kept)
	return dedupe(kept), nil
}
