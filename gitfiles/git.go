package gitfiles

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// ErrNotWorkTree is returned when a folder is not inside a git work tree
// (or git says so).
var ErrNotWorkTree = errors.New("not inside a git work tree")

// ErrNoGit is returned by the functions that need the git binary when it
// is not on PATH.
var ErrNoGit = errors.New("git is not on PATH")

var (
	gitOnce sync.Once
	gitPath string
)

// Binary returns the path of the git binary on PATH, or "" when there is
// none. It is looked up once per process.
func Binary() string {
	gitOnce.Do(func() {
		if p, err := exec.LookPath("git"); err == nil {
			gitPath = p
		}
	})
	return gitPath
}

// Git runs git with args in dir and returns its stdout. A non-zero exit
// is an error carrying git's first line of stderr. The environment's
// GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE are removed, so the folder's
// own repository answers whatever the caller's shell had set.
func Git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	bin := Binary()
	if bin == "" {
		return nil, ErrNoGit
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = cleanEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if strings.Contains(msg, "not a git repository") || strings.Contains(msg, "must be run in a work tree") {
			return nil, fmt.Errorf("%w: %s", ErrNotWorkTree, dir)
		}
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, msg)
	}
	return stdout.Bytes(), nil
}

// cleanEnv is the process environment without the variables that would
// point git at another repository than the folder it runs in.
func cleanEnv() []string {
	var env []string
	for _, kv := range osEnviron() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_PREFIX":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// TopLevel returns the absolute top folder of the work tree holding dir.
// Errors: ErrNoGit, ErrNotWorkTree, git's own.
func TopLevel(ctx context.Context, dir string) (string, error) {
	out, err := Git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	top := strings.TrimSpace(string(out))
	if top == "" {
		return "", fmt.Errorf("%w: %s", ErrNotWorkTree, dir)
	}
	return top, nil
}

// Head returns the full commit id HEAD names in the work tree holding dir,
// or "" when the repository has no commit yet.
func Head(ctx context.Context, dir string) (string, error) {
	out, err := Git(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 1 {
			return "", nil // no commit yet
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// Dirty reports whether the work tree holding dir, below dir, differs from
// HEAD: modified, staged, deleted or untracked files that are not ignored.
func Dirty(ctx context.Context, dir string) (bool, error) {
	out, err := Git(ctx, dir, "status", "--porcelain=v1", "-z", "--untracked-files=normal", "--", ".")
	if err != nil {
		return false, err
	}
	return len(out) > 0, nil
}

// CommitsAhead returns how many commits head has that base has not
// (git rev-list --count base..head). An unknown base (a commit gone after
// a rebase) is an error.
func CommitsAhead(ctx context.Context, dir, base, head string) (int, error) {
	out, err := Git(ctx, dir, "rev-list", "--count", base+".."+head, "--")
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return 0, fmt.Errorf("git rev-list --count: %q: %w", out, err)
	}
	return n, nil
}
