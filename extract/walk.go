package extract

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cos-dev/cos/extract/lang"

	ignore "github.com/sabhiram/go-gitignore"

	"github.com/cos-dev/cos/gitfiles"
)

// Skip reasons recorded in Stats.Skipped.
const (
	SkipTooLarge = "too_large"
	SkipBinary   = "binary"
	SkipSymlink  = "symlink"
	SkipSpecial  = "not_regular"
	// SkipNameCollision is a file whose name is not valid UTF-8 and whose
	// converted path (see pathKey) is already taken by another file.
	SkipNameCollision = "name_collision"
	// SkipTimeout is a file whose extraction ran past
	// Options.FileTimeout; the graph keeps what it held for the file, and
	// the next index tries it again.
	SkipTimeout = "timeout"
)

// FileNote is a file the index skipped or failed on, with why.
type FileNote struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// entry is one regular file found by the walk.
type entry struct {
	Rel     string // repo-relative, slash-separated, valid UTF-8 (pathKey)
	Abs     string // as on disk: the only place the raw name is kept
	Size    int64
	ModTime int64  // UnixNano
	raw     string // repo-relative as on disk, to break key collisions
	// fromCache marks an entry a targeted run took from the stat cache
	// without a stat (Options.Only): its cached hash is taken as is.
	fromCache bool
}

// walkResult is everything the walk found.
type walkResult struct {
	Files   []entry
	Skipped []FileNote
	Failed  []FileNote
	// Git is the file set git keeps under the root when it lies in a
	// work tree, nil outside one.
	Git *gitfiles.Set
}

// gitignoreLevel is one .gitignore and the folder it applies to.
type gitignoreLevel struct {
	dir string // repo-relative, "" for the root
	gi  *ignore.GitIgnore
}

// pathKey is the one name a repo-relative path has everywhere past the
// walk: in payloads, in the previous map, in the removed list and in both
// caches. A valid UTF-8 path is itself; in any other, each byte that does
// not start a valid sequence is read as the Latin-1 code point of the same
// value (validUTF8), so "bad\xff.go" is "badÿ.go". The conversion is not
// injective ("\xe9" and the valid "é" meet): walk keeps one file per key and
// records the others as SkipNameCollision.
func pathKey(raw string) string {
	return lang.ValidUTF8([]byte(raw))
}

// walk lists the regular files under root. Inside a git work tree it keeps
// exactly the files git keeps (gitfiles.Load: tracked files and untracked
// ones no ignore rule of the work tree matches, nested repositories,
// submodules and linked worktrees left out) and descends only into
// folders holding one; outside git it honours the .gitignore files at
// every level. Either way it skips .git, the excluded folder names and
// symlinks (so a symlink loop cannot hang it). Files larger than maxSize
// are skipped; an unreadable folder is recorded as failed. Paths are
// pathKey'd (the .gitignore patterns, read the same way, match the
// converted path); of files whose keys collide, the one whose name is
// valid UTF-8, else the smallest raw name, is kept. The result is sorted
// by path. Errors: the context's; git's file set unreadable by git and by
// the go-git fallback.
func walk(ctx context.Context, root string, exclude []string, maxSize int64) (walkResult, error) {
	var res walkResult
	excluded := make(map[string]bool, len(exclude)+1)
	for _, e := range exclude {
		excluded[e] = true
	}
	excluded[".git"] = true
	var levels []gitignoreLevel
	set, err := gitfiles.Load(ctx, root)
	switch {
	case errors.Is(err, gitfiles.ErrNotWorkTree):
		set = nil // outside git: the .gitignore files decide
	case err != nil:
		return res, err
	}
	res.Git = set

	ignored := func(rel string, isDir bool) bool {
		for _, l := range levels {
			sub := rel
			if l.dir != "" {
				if !strings.HasPrefix(rel, l.dir+"/") {
					continue
				}
				sub = rel[len(l.dir)+1:]
			}
			if isDir {
				sub += "/"
			}
			if l.gi.MatchesPath(sub) {
				return true
			}
		}
		return false
	}

	err = filepath.WalkDir(root, func(abs string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		rel, rerr := filepath.Rel(root, abs)
		if rerr != nil {
			return rerr
		}
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = ""
		}
		raw := rel
		rel = pathKey(raw)
		if err != nil {
			if rel == "" {
				return err
			}
			res.Failed = append(res.Failed, FileNote{Path: lang.CleanString(rel), Reason: lang.CleanString(err.Error())})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if set != nil {
				if rel != "" && (excluded[d.Name()] || !set.HasDir(raw)) {
					return fs.SkipDir
				}
				return nil
			}
			if rel == "" {
				levels = addGitignore(levels, abs, "")
				return nil
			}
			if excluded[d.Name()] || ignored(rel, true) {
				return fs.SkipDir
			}
			// Drop levels of folders we have left, then add this one's.
			levels = trimLevels(levels, rel)
			levels = addGitignore(levels, abs, rel)
			return nil
		}
		if set != nil {
			if !set.Has(raw) {
				return nil
			}
		} else if levels = trimLevels(levels, path.Dir(rel)); ignored(rel, false) {
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			res.Skipped = append(res.Skipped, FileNote{Path: lang.CleanString(rel), Reason: SkipSymlink})
			return nil
		case !d.Type().IsRegular():
			res.Skipped = append(res.Skipped, FileNote{Path: lang.CleanString(rel), Reason: SkipSpecial})
			return nil
		}
		info, ierr := d.Info()
		if ierr != nil {
			res.Failed = append(res.Failed, FileNote{Path: lang.CleanString(rel), Reason: lang.CleanString(ierr.Error())})
			return nil
		}
		if info.Size() > maxSize {
			res.Skipped = append(res.Skipped, FileNote{Path: lang.CleanString(rel), Reason: SkipTooLarge})
			return nil
		}
		res.Files = append(res.Files, entry{Rel: rel, Abs: abs, Size: info.Size(), ModTime: info.ModTime().UnixNano(), raw: raw})
		return nil
	})
	if err != nil {
		return res, err
	}
	sort.Slice(res.Files, func(i, j int) bool {
		a, b := res.Files[i], res.Files[j]
		if a.Rel != b.Rel {
			return a.Rel < b.Rel
		}
		// Same key: the valid UTF-8 name first, then raw byte order.
		if av, bv := a.raw == a.Rel, b.raw == b.Rel; av != bv {
			return av
		}
		return a.raw < b.raw
	})
	kept := res.Files[:0]
	for _, f := range res.Files {
		if len(kept) > 0 && f.Rel == kept[len(kept)-1].Rel {
			res.Skipped = append(res.Skipped, FileNote{Path: f.Rel, Reason: SkipNameCollision})
			continue
		}
		kept = append(kept, f)
	}
	res.Files = kept
	return res, nil
}

// trimLevels drops the .gitignore levels that do not apply inside dir.
func trimLevels(levels []gitignoreLevel, dir string) []gitignoreLevel {
	if dir == "." {
		dir = ""
	}
	for len(levels) > 0 {
		l := levels[len(levels)-1]
		if l.dir == "" || l.dir == dir || strings.HasPrefix(dir, l.dir+"/") {
			break
		}
		levels = levels[:len(levels)-1]
	}
	return levels
}

// addGitignore appends the .gitignore of folder abs (repo-relative rel), if
// it has a readable one.
func addGitignore(levels []gitignoreLevel, abs, rel string) []gitignoreLevel {
	data, err := os.ReadFile(filepath.Join(abs, ".gitignore"))
	if err != nil {
		return levels
	}
	lines := strings.Split(lang.ValidUTF8(data), "\n")
	return append(levels, gitignoreLevel{dir: rel, gi: ignore.CompileIgnoreLines(lines...)})
}

// ListFiles returns, sorted, the repo-relative paths of the files a run
// of root would look at (the walk's rules: git's file set in a work tree,
// .gitignore files outside one, exclude folder names, no symlinks, files
// up to maxSize bytes; 0 means DefaultMaxFileSize). Errors: the
// context's, or the root unreadable.
func ListFiles(ctx context.Context, root string, exclude []string, maxSize int64) ([]string, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxFileSize
	}
	w, err := walk(ctx, root, exclude, maxSize)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(w.Files))
	for i, f := range w.Files {
		out[i] = f.Rel
	}
	return out, nil
}
