// Package gitfiles answers what git itself would answer about a folder:
// which files a work tree keeps (git ls-files --cached --others
// --exclude-standard), which commit HEAD names, whether the tree is dirty,
// and what changed against a revision (git diff). It runs the git binary
// when it is on PATH and falls back to go-git's implementation of git's
// ignore rules when it is not, so an index of a work tree holds exactly
// the files git keeps whichever way it was asked.
package gitfiles
