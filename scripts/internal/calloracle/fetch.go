package calloracle

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// CacheEnv names the variable giving the folder fetched sources are kept
// in; its default is ${XDG_CACHE_HOME:-$HOME/.cache}/cos-oracles.
const CacheEnv = "COS_ORACLE_CACHE"

// commitMark is the file, in a fetched project's folder, holding the
// commit it was checked out at.
const commitMark = ".cos-oracle-commit"

// CacheDir returns the fetch cache folder.
func CacheDir() (string, error) {
	if d := os.Getenv(CacheEnv); d != "" {
		return d, nil
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "cos-oracles"), nil
}

// Fetch returns <cache>/src/<name>, a checkout of repo (a GitHub
// owner/name) at commit, fetching it with git when the folder is absent.
// A folder already there is used as it is when its .cos-oracle-commit
// file names commit, else refused: delete it to fetch again.
func Fetch(ctx context.Context, cache, name, repo, commit string, log io.Writer) (string, error) {
	dir := filepath.Join(cache, "src", name)
	if b, err := os.ReadFile(filepath.Join(dir, commitMark)); err == nil {
		if got := strings.TrimSpace(string(b)); got != commit {
			return "", fmt.Errorf("%s holds %s at %s, not %s: delete it to fetch again", dir, repo, got, commit)
		}
		return dir, nil
	}
	if _, err := os.Stat(dir); err == nil {
		return "", fmt.Errorf("%s exists without a %s file: delete it, or write %s into that file if it is %s at that commit", dir, commitMark, commit, repo)
	}
	fmt.Fprintf(log, "== fetching %s@%s into %s\n", repo, commit[:12], dir)
	tmp := dir + ".part"
	_ = os.RemoveAll(tmp)
	steps := [][]string{
		{"init", "-q", tmp},
		{"-C", tmp, "fetch", "-q", "--depth", "1", "https://github.com/" + repo, commit},
		{"-C", tmp, "checkout", "-q", "FETCH_HEAD"},
	}
	for _, s := range steps {
		cmd := exec.CommandContext(ctx, "git", s...)
		cmd.Stderr = log
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("git %s: %w", strings.Join(s, " "), err)
		}
	}
	if err := os.RemoveAll(filepath.Join(tmp, ".git")); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, commitMark), []byte(commit+"\n"), 0o644); err != nil {
		return "", err
	}
	return dir, os.Rename(tmp, dir)
}
