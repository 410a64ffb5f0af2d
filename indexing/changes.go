package indexing

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/gitfiles"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// This file finds what cos_graph_changes maps onto the graph: the files
// changed since a base (a git revision, or the last index), with the
// declarations of their base content and of the files on disk, read at
// the syntax level.

// BaseIndex is the base of a diff that compares the files on disk with
// what the graph was last indexed from.
const BaseIndex = "index"

// ChangeSet is a diff of the files under a root against a base.
type ChangeSet struct {
	// Files are the changed files, in git's order.
	Files []gitfiles.FileChange
	// Commit is the base commit ("" when none: base "index" outside git,
	// or a repository without a commit).
	Commit string
	// Note says how the changes were found when it is not a plain diff.
	Note string
	// root is the folder the paths are relative to; roots, in a change
	// set of several roots (DiffRoots), each root's folder by name, the
	// paths then being graph paths (graph.RootPath).
	root  string
	roots map[string]string
	// base holds the base content of each old path that has one (nil
	// when there is no base revision: base "index" outside git).
	base map[string][]byte
	// olds caches the declarations of each base file (OldNodes).
	olds map[string][]graph.Node
}

// OldNodes returns the declarations (nodes with a line) of old path p at
// the base, extracted once, and whether the base has that file.
func (cs *ChangeSet) OldNodes(p string) ([]graph.Node, bool) {
	data, ok := cs.base[p]
	if !ok {
		return nil, false
	}
	if s, done := cs.olds[p]; done {
		return s, true
	}
	if cs.olds == nil {
		cs.olds = map[string][]graph.Node{}
	}
	s := cs.nodesOf(p, data)
	cs.olds[p] = s
	return s, true
}

// DiskNodes returns the declarations (nodes with a line) of the file p
// on disk under the root, and whether it could be read.
func (cs *ChangeSet) DiskNodes(p string) ([]graph.Node, bool) {
	folder, rel := cs.disk(p)
	data, err := os.ReadFile(filepath.Join(folder, filepath.FromSlash(rel)))
	if err != nil {
		return nil, false
	}
	return cs.nodesOf(p, data), true
}

// Matches reports whether the file p (a path of the change set) has the
// content hash want on disk (FileMatches).
func (cs *ChangeSet) Matches(p, want string) bool {
	folder, rel := cs.disk(p)
	return FileMatches(folder, rel, want)
}

// disk returns the folder and the path inside it of the change set's
// path p.
func (cs *ChangeSet) disk(p string) (folder, rel string) {
	if cs.roots == nil {
		return cs.root, p
	}
	name, rel := graph.SplitRoot(p)
	return cs.roots[name], rel
}

// nodesOf is fileNodes for the change set's path p: the nodes of a file of
// a named root carry that root's uids.
func (cs *ChangeSet) nodesOf(p string, data []byte) []graph.Node {
	if cs.roots == nil {
		return fileNodes(p, data)
	}
	name, rel := graph.SplitRoot(p)
	out := fileNodes(rel, data)
	for i := range out {
		out[i].UID, out[i].Path = graph.InRoot(out[i].UID, name), p
	}
	return out
}

// DiffRoots is Diff over every root of the graph (roots, with all the
// graph's content hashes): one change set whose paths are graph paths.
// Commit is the primary root's base commit (the first root's when there
// is no primary). A root whose repository cannot answer base (base names
// a commit of another repository, the root is not in git) is left out,
// and Note says so; when no root can, the first root's error is returned.
func DiffRoots(ctx context.Context, roots []projections.IndexRun, base string, hashes map[string]string) (*ChangeSet, error) {
	if len(roots) == 1 && roots[0].Name == "" {
		return Diff(ctx, roots[0].Root, base, hashes, roots[0], true)
	}
	out := &ChangeSet{roots: map[string]string{}, base: map[string][]byte{}}
	var (
		notes    []string
		firstErr error
		answered bool
	)
	for _, r := range roots {
		cs, err := Diff(ctx, r.Root, base, rootFiles(hashes, r.Name), r, true)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			notes = append(notes, fmt.Sprintf("root %s (%s) left out: %v", rootLabel(r), r.Root, err))
			continue
		}
		answered = true
		out.roots[r.Name] = r.Root
		if out.Commit == "" || r.Name == "" {
			out.Commit = cs.Commit
		}
		if cs.Note != "" {
			notes = append(notes, fmt.Sprintf("root %s: %s", rootLabel(r), cs.Note))
		}
		for _, f := range cs.Files {
			if f.OldPath != "" {
				f.OldPath = graph.RootPath(r.Name, f.OldPath)
			}
			if f.NewPath != "" {
				f.NewPath = graph.RootPath(r.Name, f.NewPath)
			}
			out.Files = append(out.Files, f)
		}
		for p, b := range cs.base {
			out.base[graph.RootPath(r.Name, p)] = b
		}
	}
	if !answered {
		return nil, firstErr
	}
	out.Note = strings.Join(notes, "; ")
	return out, nil
}

// HasBase reports whether the diff has a base commit.
func (cs *ChangeSet) HasBase() bool { return cs.Commit != "" }

// Changes returns Files.
func (cs *ChangeSet) Changes() []gitfiles.FileChange { return cs.Files }

// fileNodes extracts the nodes with a line of a file's content at the
// syntax level, their path set to p.
func fileNodes(p string, data []byte) []graph.Node {
	fe := extract.File(p, data)
	var out []graph.Node
	for _, n := range fe.Nodes {
		if n.Line > 0 {
			n.Path = p
			out = append(out, n)
		}
	}
	return out
}

// Diff finds the files under root changed against base (a git revision,
// or BaseIndex), with their base content; hashes are the graph's content
// hashes by path and last its last index run (hasRun: there is one).
//
// Errors: E_ARGUMENT when base names no commit or root is not in a git
// work tree, E_UNAVAILABLE when git is not installed; other git failures
// unchanged.
func Diff(ctx context.Context, root, base string, hashes map[string]string, last projections.IndexRun, hasRun bool) (*ChangeSet, error) {
	if base == BaseIndex {
		return indexDiff(ctx, root, hashes, last, hasRun)
	}
	commit, err := gitfiles.ResolveCommit(ctx, root, base)
	var re *gitfiles.RevisionError
	if err != nil && base == "HEAD" && errors.As(err, &re) {
		// A repository without a commit yet: HEAD is the empty tree and
		// every file is added (gitfiles.Diff's reading of "HEAD").
		if head, herr := gitfiles.Head(ctx, root); herr == nil && head == "" {
			commit, err = "", nil
		}
	}
	if err != nil {
		return nil, gitError(err, root, base)
	}
	files, err := gitfiles.Diff(ctx, root, commit)
	if err != nil {
		return nil, gitError(err, root, base)
	}
	cs := &ChangeSet{Files: files, Commit: commit, root: root}
	if err := cs.loadBase(ctx, root); err != nil {
		return nil, gitError(err, root, base)
	}
	return cs, nil
}

// loadBase reads the base content of every old path a hunk touches.
func (cs *ChangeSet) loadBase(ctx context.Context, root string) error {
	var olds []string
	for _, f := range cs.Files {
		if f.OldPath != "" && !f.Binary {
			olds = append(olds, f.OldPath)
		}
	}
	cs.base = map[string][]byte{}
	if len(olds) == 0 || cs.Commit == "" {
		return nil
	}
	b, err := gitfiles.ShowFiles(ctx, root, cs.Commit, olds)
	if err != nil {
		return err
	}
	cs.base = b
	return nil
}

// indexDiff is base "index": the files whose content differs from what
// the graph holds. In git, when the last index run recorded a clean
// commit, that commit is the base of a real diff limited to those files;
// otherwise every symbol of a changed file is compared by uid only.
func indexDiff(ctx context.Context, root string, hashes map[string]string, last projections.IndexRun, hasRun bool) (*ChangeSet, error) {
	stale := map[string]bool{}
	for p, want := range hashes {
		if !FileMatches(root, p, want) {
			stale[p] = true
		}
	}
	inGit := false
	if _, err := gitfiles.TopLevel(ctx, root); err == nil {
		inGit = true
		// New files git would keep are changes too.
		if out, err := gitfiles.Git(ctx, root, "ls-files", "-z", "--others", "--exclude-standard", "--", "."); err == nil {
			for _, p := range bytes.Split(out, []byte{0}) {
				if len(p) > 0 {
					if _, held := hashes[string(p)]; !held {
						stale[string(p)] = true
					}
				}
			}
		}
	}
	if inGit && hasRun && last.Commit != "" && !last.Dirty {
		files, err := gitfiles.Diff(ctx, root, last.Commit)
		if err == nil {
			cs := &ChangeSet{Commit: last.Commit, root: root}
			for _, f := range files {
				if stale[f.NewPath] || stale[f.OldPath] {
					cs.Files = append(cs.Files, f)
				}
			}
			if err := cs.loadBase(ctx, root); err == nil {
				return cs, nil
			}
		}
	}
	cs := &ChangeSet{root: root, Note: "the last index was not of a clean git commit, so no base content is known: " +
		"every symbol of a file changed since the last index is listed as modified unless its uid is new or gone"}
	for _, p := range slices.Sorted(maps.Keys(stale)) {
		_, held := hashes[p]
		_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		switch {
		case !held:
			cs.Files = append(cs.Files, gitfiles.FileChange{NewPath: p, Status: gitfiles.StatusAdded})
		case err != nil:
			cs.Files = append(cs.Files, gitfiles.FileChange{OldPath: p, Status: gitfiles.StatusDeleted})
		default:
			cs.Files = append(cs.Files, gitfiles.FileChange{OldPath: p, NewPath: p, Status: gitfiles.StatusModified})
		}
	}
	return cs, nil
}

// FileMatches reports whether the file p under root has the content hash
// want (the graph's); a binary file (the graph records no hash) matches
// when it exists.
func FileMatches(root, p, want string) bool {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(OnDisk(root, p))))
	if err != nil {
		return false
	}
	if want == "" {
		return true
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]) == want
}

// gitError maps the git failures of cos_graph_changes to envelope errors.
func gitError(err error, root, base string) error {
	var re *gitfiles.RevisionError
	switch {
	case errors.As(err, &re):
		return envelope.Errorf(envelope.CodeArgument,
			"base %q names no commit of the repository at %s; give a branch, tag or commit id (HEAD, main, HEAD~1), or \"index\" for the files changed since the last index", clip(base, 80), root).
			WithDetails(map[string]any{"field": "base", "value": clip(base, 80), "example": `{"base": "HEAD"}`})
	case errors.Is(err, gitfiles.ErrNotWorkTree):
		return envelope.Errorf(envelope.CodeArgument,
			"%s is not inside a git work tree, so there is no revision %q to compare with; use base \"index\" for the files changed since the last index", root, clip(base, 80)).
			WithDetails(map[string]any{"field": "base", "value": clip(base, 80), "example": `{"base": "index"}`})
	case errors.Is(err, gitfiles.ErrNoGit):
		return envelope.Errorf(envelope.CodeUnavailable,
			"git is not installed (not on PATH), so base %q cannot be read; install git or use base \"index\"", clip(base, 80))
	}
	return err
}

// clip shortens s to at most n runes for an error message.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
