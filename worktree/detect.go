package worktree

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/cos-dev/cos/gitfiles"
)

// Info is a linked git worktree.
type Info struct {
	// Folder is the worktree's top folder; Main the main worktree's.
	Folder string
	Main   string
	// Name is the worktree's branch, or its folder's base name when HEAD
	// is detached: what a footprint records, never a path.
	Name string
}

// Detect reports whether dir is inside a linked git worktree (git's
// --git-dir differs from its --git-common-dir) of a repository with a main
// worktree, and describes it. Not in git, in the main worktree, or in a
// worktree of a bare repository: false, no error.
func Detect(ctx context.Context, dir string) (Info, bool, error) {
	out, err := gitfiles.Git(ctx, dir, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir", "--show-toplevel")
	if err != nil {
		if errors.Is(err, gitfiles.ErrNotWorkTree) || errors.Is(err, gitfiles.ErrNoGit) {
			return Info{}, false, nil
		}
		return Info{}, false, err
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 {
		return Info{}, false, nil
	}
	gitDir, common, top := filepath.Clean(lines[0]), filepath.Clean(lines[1]), filepath.Clean(lines[2])
	if gitDir == common || filepath.Base(common) != ".git" {
		return Info{}, false, nil // the main worktree, or a bare repository's
	}
	in := Info{Folder: top, Main: filepath.Dir(common), Name: filepath.Base(top)}
	if b, err := gitfiles.Git(ctx, top, "symbolic-ref", "--quiet", "--short", "HEAD"); err == nil {
		if name := strings.TrimSpace(string(b)); name != "" {
			in.Name = name
		}
	}
	return in, true, nil
}
