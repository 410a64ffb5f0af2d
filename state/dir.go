package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// GitignoreFile is the state folder's own .gitignore: "*", so that a state
// folder inside a git checkout (./.cos, the default) never shows in
// `git status`.
const GitignoreFile = ".gitignore"

// gitignoreBody ignores everything in the folder, the .gitignore included.
const gitignoreBody = "# written by cos: everything in this state folder is local state\n*\n"

// EnsureDir creates the state folder dir when it is missing and, for a new
// state folder (one that holds no event log yet), writes its .gitignore
// ("*") unless one exists. An existing .gitignore is never touched, and a
// state folder that already holds a log gets none, so deleting it sticks.
// Errors: the folder cannot be created, or the .gitignore cannot be
// written (both name the path).
func EnsureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create state folder: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, LogFile)); err == nil {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(dir, GitignoreFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("write the state folder's .gitignore: %w", err)
	}
	if _, err := f.WriteString(gitignoreBody); err != nil {
		_ = f.Close()
		return fmt.Errorf("write the state folder's .gitignore: %w", err)
	}
	return f.Close()
}

// dirWritable reports whether this process may create files in dir (false
// on a read-only mount or without write permission).
func dirWritable(dir string) bool {
	return unix.Access(dir, unix.W_OK) == nil
}
