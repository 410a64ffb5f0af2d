package gitfiles

import (
	"bytes"
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

	"github.com/go-git/go-git/v5/plumbing/filemode"
	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// The go-git fallback reads what git reads, in git's order of precedence
// (lowest first): the file core.excludesFile names (by default
// $XDG_CONFIG_HOME/git/ignore), $GIT_COMMON_DIR/info/exclude, then the
// .gitignore of each folder from the top down, and matches with go-git's
// gitignore package. It walks from the folder asked about, with the rules
// of the folders above it already read, and does not descend into an
// ignored folder (git cannot re-include a file below one) nor into a
// folder holding a .git file or folder (a boundary). Tracked files come
// from the index ($GIT_DIR/index), so a tracked file an ignore rule
// matches is kept as git keeps it. Not read: [include] sections of the
// configuration and an index go-git cannot decode (a split index); the
// second loses only tracked files that an ignore rule matches.

// repo is a work tree as the fallback reads it.
type repo struct {
	top       string // absolute, symlinks resolved
	gitDir    string // this work tree's git folder: its index
	commonDir string // the repository's shared folder: info/exclude, config
	// rules memoizes rulesAt by folder (relative to top).
	rules map[string]folderRules
}

// folderRules are the patterns that apply to the entries of a folder, and
// whether the folder itself is ignored or a boundary (then nothing below
// it is untracked-and-kept).
type folderRules struct {
	ps       []gitignore.Pattern
	excluded bool
}

// findRepo finds the work tree holding dir by looking for a .git folder
// (with a HEAD) or a .git file ("gitdir: …", a linked worktree or a
// submodule) in dir and the folders above it. It returns the repo and dir
// relative to its top.
func findRepo(dir string) (*repo, string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, "", err
	} else if !fi.IsDir() {
		return nil, "", fmt.Errorf("%s is not a folder", dir)
	}
	for d := abs; ; {
		if gitDir, ok := gitDirOf(d); ok {
			rel, err := filepath.Rel(d, abs)
			if err != nil {
				return nil, "", err
			}
			prefix := filepath.ToSlash(rel)
			if prefix == "." {
				prefix = ""
			}
			for _, c := range strings.Split(prefix, "/") {
				if c == ".git" {
					return nil, "", fmt.Errorf("%w: %s", ErrNotWorkTree, dir)
				}
			}
			common := gitDir
			if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
				c := strings.TrimSpace(string(b))
				if !filepath.IsAbs(c) {
					c = filepath.Join(gitDir, c)
				}
				common = filepath.Clean(c)
			}
			return &repo{top: d, gitDir: gitDir, commonDir: common, rules: map[string]folderRules{}}, prefix, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, "", fmt.Errorf("%w: %s", ErrNotWorkTree, dir)
		}
		d = parent
	}
}

// gitDirOf returns the git folder of the work tree whose top is d, if d
// is one: d/.git when it is a folder holding HEAD, or the folder a .git
// file names.
func gitDirOf(d string) (string, bool) {
	p := filepath.Join(d, ".git")
	fi, err := os.Lstat(p)
	if err != nil {
		return "", false
	}
	if fi.IsDir() {
		if _, err := os.Stat(filepath.Join(p, "HEAD")); err != nil {
			return "", false
		}
		return p, true
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	g, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return "", false
	}
	g = strings.TrimSpace(g)
	if !filepath.IsAbs(g) {
		g = filepath.Join(d, g)
	}
	return filepath.Clean(g), true
}

// isBoundary reports whether folder abs holds a .git file or folder: a
// nested repository, submodule or linked worktree.
func isBoundary(abs string) bool {
	_, err := os.Lstat(filepath.Join(abs, ".git"))
	return err == nil
}

// components splits a top-relative slash path into the form go-git's
// patterns match; "" is the top (no components).
func components(rel string) []string {
	if rel == "" {
		return nil
	}
	return strings.Split(rel, "/")
}

// parsePatterns reads ignore patterns from data as git does: a UTF-8 byte
// order mark is skipped, "\r\n" ends a line like "\n", blank lines and
// lines starting with "#" are not patterns.
func parsePatterns(data []byte, domain []string) []gitignore.Pattern {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var ps []gitignore.Pattern
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "" || strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// readPatterns reads the ignore file at abs; a missing or unreadable one
// has no patterns (git reads it the same way).
func readPatterns(abs string, domain []string) []gitignore.Pattern {
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil
	}
	return parsePatterns(data, domain)
}

// topRules are the patterns that apply everywhere in the work tree:
// core.excludesFile first, then info/exclude (later patterns win).
func (r *repo) topRules() []gitignore.Pattern {
	ps := readPatterns(r.excludesFile(), nil)
	return append(ps, readPatterns(filepath.Join(r.commonDir, "info", "exclude"), nil)...)
}

// excludesFile is the path core.excludesFile names, read from the system,
// global and repository configuration in git's order (the last one set
// wins), or git's default $XDG_CONFIG_HOME/git/ignore.
func (r *repo) excludesFile() string {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var files []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		files = append(files, "/etc/gitconfig")
	}
	if g, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		files = append(files, g) // set but empty: no global configuration
	} else {
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	files = append(files, filepath.Join(r.commonDir, "config"))
	value := ""
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		cfg := gitconfig.New()
		if err := gitconfig.NewDecoder(bytes.NewReader(data)).Decode(cfg); err != nil {
			continue
		}
		if v := cfg.Section("core").Option("excludesFile"); v != "" {
			value = v
		}
	}
	switch {
	case value == "":
		if xdg == "" {
			return ""
		}
		return filepath.Join(xdg, "git", "ignore")
	case value == "~" || strings.HasPrefix(value, "~/"):
		return filepath.Join(home, value[1:])
	case !filepath.IsAbs(value):
		return filepath.Join(r.top, value)
	}
	return value
}

// rulesAt returns the patterns that apply to the entries of folder rel
// (top-relative): those of the top and of every folder down to rel,
// rel's own .gitignore included; excluded is set when rel or a folder
// above it is ignored or a boundary.
func (r *repo) rulesAt(rel string) folderRules {
	if fr, ok := r.rules[rel]; ok {
		return fr
	}
	var fr folderRules
	if rel == "" {
		fr.ps = append(r.topRules(), readPatterns(filepath.Join(r.top, ".gitignore"), nil)...)
	} else {
		parentRel := path.Dir(rel)
		if parentRel == "." {
			parentRel = ""
		}
		parent := r.rulesAt(parentRel)
		abs := filepath.Join(r.top, filepath.FromSlash(rel))
		comps := components(rel)
		switch {
		case parent.excluded || isBoundary(abs) || gitignore.NewMatcher(parent.ps).Match(comps, true):
			fr.excluded = true
		default:
			own := readPatterns(filepath.Join(abs, ".gitignore"), comps)
			fr.ps = append(parent.ps[:len(parent.ps):len(parent.ps)], own...)
		}
	}
	r.rules[rel] = fr
	return fr
}

// scan adds to out every untracked-and-kept file below folder rel
// (top-relative), whose rules are fr: regular files and symbolic links
// that no pattern ignores, in folders that are neither ignored nor
// boundaries. An unreadable folder is passed over, as git passes over it.
func (r *repo) scan(ctx context.Context, rel string, fr folderRules, out *[]string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	abs := filepath.Join(r.top, filepath.FromSlash(rel))
	ents, err := os.ReadDir(abs)
	if err != nil {
		return nil
	}
	m := gitignore.NewMatcher(fr.ps)
	for _, e := range ents {
		name := e.Name()
		if name == ".git" {
			continue
		}
		child := name
		if rel != "" {
			child = rel + "/" + name
		}
		comps := components(child)
		switch t := e.Type(); {
		case t.IsDir():
			childAbs := filepath.Join(abs, name)
			if isBoundary(childAbs) || m.Match(comps, true) {
				continue
			}
			own := readPatterns(filepath.Join(childAbs, ".gitignore"), comps)
			cr := folderRules{ps: append(fr.ps[:len(fr.ps):len(fr.ps)], own...)}
			if err := r.scan(ctx, child, cr, out); err != nil {
				return err
			}
		case t.IsRegular() || t&fs.ModeSymlink != 0:
			if !m.Match(comps, false) {
				*out = append(*out, child)
			}
		}
	}
	return nil
}

// tracked returns the index's file entries (top-relative), submodules and
// sparse folder entries left out; nil when there is no index or go-git
// cannot decode it.
func (r *repo) tracked() []string {
	f, err := os.Open(filepath.Join(r.gitDir, "index"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var idx index.Index
	if err := index.NewDecoder(f).Decode(&idx); err != nil {
		return nil
	}
	out := make([]string, 0, len(idx.Entries))
	for _, e := range idx.Entries {
		if e.Mode == filemode.Submodule || e.Mode == filemode.Dir {
			continue
		}
		out = append(out, e.Name)
	}
	sort.Strings(out)
	return dedupe(out)
}

// under returns the paths of sorted that lie below folder rel
// (top-relative; "" is the top), made relative to it.
func under(sorted []string, rel string) []string {
	if rel == "" {
		return append([]string(nil), sorted...)
	}
	p := rel + "/"
	i := sort.SearchStrings(sorted, p)
	var out []string
	for ; i < len(sorted) && strings.HasPrefix(sorted[i], p); i++ {
		out = append(out, sorted[i][len(p):])
	}
	return out
}

// relTo makes top-relative paths relative to folder prefix (they all lie
// below it).
func relTo(files []string, prefix string) []string {
	if prefix == "" {
		return files
	}
	out := files[:0]
	for _, f := range files {
		out = append(out, strings.TrimPrefix(f, prefix+"/"))
	}
	return out
}

// loadGoGit is Load with go-git's rules.
func loadGoGit(ctx context.Context, dir string) (*Set, error) {
	r, prefix, err := findRepo(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	if fr := r.rulesAt(prefix); !fr.excluded {
		if err := r.scan(ctx, prefix, fr, &files); err != nil {
			return nil, err
		}
	}
	files = relTo(files, prefix)
	files = append(files, under(r.tracked(), prefix)...)
	return newSet(r.top, prefix, SourceGoGit, files), nil
}

// keepGoGit is Keep with go-git's rules; rels are cleaned by Keep.
func keepGoGit(ctx context.Context, dir string, rels []string) ([]string, error) {
	r, prefix, err := findRepo(dir)
	if err != nil {
		return nil, err
	}
	tracked := r.tracked()
	var kept []string
	for _, rel := range rels {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := rel
		if p == "." {
			p = ""
		}
		if prefix != "" {
			p = strings.TrimSuffix(prefix+"/"+p, "/")
		}
		var found []string
		fi, err := os.Lstat(filepath.Join(r.top, filepath.FromSlash(p)))
		switch {
		case err == nil && fi.IsDir():
			if fr := r.rulesAt(p); !fr.excluded {
				if err := r.scan(ctx, p, fr, &found); err != nil {
					return nil, err
				}
			}
			for _, t := range under(tracked, p) {
				found = append(found, strings.TrimPrefix(p+"/"+t, "/"))
			}
		case err == nil && (fi.Mode().IsRegular() || fi.Mode()&fs.ModeSymlink != 0):
			if parent := r.rulesAt(parentOf(p)); !parent.excluded && !gitignore.NewMatcher(parent.ps).Match(components(p), false) {
				found = append(found, p)
			}
		case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return nil, err
		}
		if i := sort.SearchStrings(tracked, p); i < len(tracked) && tracked[i] == p {
			found = append(found, p)
		}
		kept = append(kept, relTo(found, prefix)...)
	}
	sort.Strings(kept)
	return dedupe(kept), nil
}

// parentOf is the top-relative folder holding p ("" for the top).
func parentOf(p string) string {
	d := path.Dir(p)
	if d == "." {
		return ""
	}
	return d
}
