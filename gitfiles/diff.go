package gitfiles

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// ChangeStatus says what happened to a file between a base revision and
// the work tree.
type ChangeStatus string

// The statuses of a FileChange. A mode change, or a file that became a
// symbolic link, is modified.
const (
	StatusAdded    ChangeStatus = "added"
	StatusDeleted  ChangeStatus = "deleted"
	StatusModified ChangeStatus = "modified"
	StatusRenamed  ChangeStatus = "renamed"
)

// LineRange is a run of lines on one side of a diff: Count lines from
// Start (1-based). Count 0 is an empty run placed after line Start (0:
// before the first line) — the side a pure insertion or deletion leaves
// untouched.
type LineRange struct {
	Start int `json:"start"`
	Count int `json:"count"`
}

// End is the last line of a non-empty range (Start+Count-1).
func (r LineRange) End() int { return r.Start + r.Count - 1 }

// Hunk is one changed region: the lines it replaced in the base (Old) and
// the lines that replaced them in the work tree (New). Diffs are taken
// without context lines, so every line of both ranges changed.
type Hunk struct {
	Old LineRange `json:"old"`
	New LineRange `json:"new"`
}

// FileChange is one file that differs between the base revision and the
// work tree (index included). Paths are slash-separated and relative to
// the folder Diff was asked about; OldPath is empty for an added file,
// NewPath for a deleted one.
type FileChange struct {
	OldPath string       `json:"old_path,omitempty"`
	NewPath string       `json:"new_path,omitempty"`
	Status  ChangeStatus `json:"status"`
	// Similarity is the percentage of content a renamed file kept.
	Similarity int `json:"similarity,omitempty"`
	// OldMode and NewMode are git's octal file modes when they differ
	// ("100644", "100755", "120000"); empty otherwise.
	OldMode string `json:"old_mode,omitempty"`
	NewMode string `json:"new_mode,omitempty"`
	// Binary is set when git compares the file as binary: it has no hunks.
	Binary bool `json:"binary,omitempty"`
	// Untracked marks a file git does not track yet (and does not ignore).
	Untracked bool   `json:"untracked,omitempty"`
	Hunks     []Hunk `json:"hunks,omitempty"`
}

// Path is the file's path in the work tree, or its base path when it was
// deleted.
func (f FileChange) Path() string {
	if f.NewPath != "" {
		return f.NewPath
	}
	return f.OldPath
}

// ErrBadRevision is returned (wrapped in a *RevisionError) when a base
// revision names no commit.
var ErrBadRevision = errors.New("not a commit")

// RevisionError is returned when Diff or Show is given a revision that is
// not a commit of the repository (a typo, a branch that does not exist, an
// option-like string).
type RevisionError struct {
	Rev string
}

func (e *RevisionError) Error() string {
	return fmt.Sprintf("revision %q names no commit of this repository", e.Rev)
}

// Unwrap returns ErrBadRevision.
func (e *RevisionError) Unwrap() error { return ErrBadRevision }

// emptyTree names the empty tree in git's default (SHA-1) object format.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// ResolveCommit returns the full commit id rev names in the repository
// holding dir. Errors: *RevisionError when rev names no commit (or starts
// with "-"), ErrNoGit, ErrNotWorkTree, git's own.
func ResolveCommit(ctx context.Context, dir, rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, "\x00\n\r") {
		return "", &RevisionError{Rev: rev}
	}
	out, err := Git(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", &RevisionError{Rev: rev}
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// diffArgs pin every setting that would change the patch's shape: a
// user's diff.noprefix, mnemonic prefixes, colour, external diff drivers,
// text conversion and quoting of non-ASCII paths.
var diffArgs = []string{
	"-c", "core.quotePath=false", "-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false",
	"-c", "color.ui=never",
	"diff", "--no-ext-diff", "--no-color", "--no-textconv", "-U0", "-M",
	"--src-prefix=a/", "--dst-prefix=b/", "--relative",
}

// Diff returns what changed between base and the work tree of the
// repository holding dir — the index and the working files, as
// `git diff -U0 -M <base>` sees them — plus the untracked files that are
// not ignored, as added. Only files below dir are listed, with paths
// relative to dir. base "" means HEAD; HEAD of a repository without a
// commit yet is the empty tree (every file added).
//
// Errors: *RevisionError (ErrBadRevision) when base names no commit,
// ErrNotWorkTree when dir is not in a git work tree, ErrNoGit, ctx.Err(),
// git's own failures.
func Diff(ctx context.Context, dir, base string) ([]FileChange, error) {
	if base == "" {
		base = "HEAD"
	}
	commit, err := ResolveCommit(ctx, dir, base)
	if err != nil {
		var re *RevisionError
		if base != "HEAD" || !errors.As(err, &re) {
			return nil, err
		}
		head, herr := Head(ctx, dir)
		if herr != nil || head != "" {
			return nil, err
		}
		commit = emptyTree // no commit yet: everything is new
	}
	out, err := Git(ctx, dir, append(diffArgs, commit, "--")...)
	if err != nil {
		return nil, err
	}
	changes, err := ParsePatch(out)
	if err != nil {
		return nil, err
	}
	others, err := Git(ctx, dir, "ls-files", "-z", "--others", "--exclude-standard", "--", ".")
	if err != nil {
		return nil, err
	}
	for _, p := range bytes.Split(others, []byte{0}) {
		if len(p) == 0 {
			continue
		}
		changes = append(changes, untrackedChange(dir, string(p)))
	}
	return changes, nil
}

// untrackedChange is an untracked file as an added one: one hunk over all
// its lines (none when it is empty); binary when its first 8,000 bytes
// hold a NUL byte, as git decides. A file that cannot be read is listed
// without hunks.
func untrackedChange(dir, p string) FileChange {
	fc := FileChange{NewPath: p, Status: StatusAdded, Untracked: true}
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		return fc
	}
	if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
		fc.Binary = true
		return fc
	}
	if n := bytes.Count(data, []byte{'\n'}); n > 0 || len(data) > 0 {
		if len(data) > 0 && data[len(data)-1] != '\n' {
			n++
		}
		fc.Hunks = []Hunk{{Old: LineRange{Start: 0, Count: 0}, New: LineRange{Start: 1, Count: n}}}
	}
	return fc
}

// Show returns the content of path (relative to dir) at commit rev, and
// false when the file does not exist there. Errors: *RevisionError,
// ErrNoGit, ErrNotWorkTree, git's own.
func Show(ctx context.Context, dir, rev, path string) ([]byte, bool, error) {
	commit, err := ResolveCommit(ctx, dir, rev)
	if err != nil {
		return nil, false, err
	}
	spec := commit + ":./" + path
	if _, err := Git(ctx, dir, "cat-file", "-e", spec); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, false, nil
		}
		return nil, false, err
	}
	out, err := Git(ctx, dir, "cat-file", "blob", spec)
	if err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// ErrPatch is returned (wrapped) by ParsePatch for text that is not a
// git patch.
var ErrPatch = errors.New("malformed git patch")

// ParsePatch parses the output of git diff -p (any context) into one
// FileChange per file, in the patch's order. A file that changed type
// (a file that became a symbolic link) comes as a deletion then a
// creation of the same path; they are merged into one modified change.
// Errors: ErrPatch, wrapped with the line number.
func ParsePatch(patch []byte) ([]FileChange, error) {
	var (
		out []FileChange
		cur *FileChange
		// oldLeft and newLeft count the lines left of the current hunk.
		oldLeft, newLeft int
	)
	lines := bytes.Split(patch, []byte{'\n'})
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	finish := func() {
		if cur == nil {
			return
		}
		if n := len(out); n > 0 && cur.Path() == out[n-1].Path() &&
			out[n-1].Status == StatusDeleted && cur.Status == StatusAdded {
			// A type change: one modified file.
			prev := &out[n-1]
			prev.NewPath, prev.Status, prev.NewMode = cur.NewPath, StatusModified, cur.NewMode
			prev.Binary = prev.Binary || cur.Binary
			prev.Hunks = mergeTypeChange(prev.Hunks, cur.Hunks)
		} else {
			out = append(out, *cur)
		}
		cur = nil
	}
	for i, raw := range lines {
		line := string(raw)
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case strings.HasPrefix(line, "-"):
				oldLeft--
			case strings.HasPrefix(line, "+"):
				newLeft--
			case strings.HasPrefix(line, " "):
				oldLeft--
				newLeft--
			case strings.HasPrefix(line, `\`): // \ No newline at end of file
			default:
				return nil, fmt.Errorf("%w: line %d: hunk ends early", ErrPatch, i+1)
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, "diff --git "):
			finish()
			cur = &FileChange{Status: StatusModified}
			a, b, ok := headerPaths(line[len("diff --git "):])
			if !ok {
				return nil, fmt.Errorf("%w: line %d: unreadable header %q", ErrPatch, i+1, line)
			}
			cur.OldPath, cur.NewPath = a, b
		case cur == nil:
			// Text before the first file (none from git diff): skip.
		case strings.HasPrefix(line, "@@ "):
			h, err := parseHunkHeader(line)
			if err != nil {
				return nil, fmt.Errorf("%w: line %d: %v", ErrPatch, i+1, err)
			}
			cur.Hunks = append(cur.Hunks, h)
			oldLeft, newLeft = h.Old.Count, h.New.Count
		case strings.HasPrefix(line, "new file mode "):
			cur.Status, cur.NewMode = StatusAdded, line[len("new file mode "):]
		case strings.HasPrefix(line, "deleted file mode "):
			cur.Status, cur.OldMode = StatusDeleted, line[len("deleted file mode "):]
		case strings.HasPrefix(line, "old mode "):
			cur.OldMode = line[len("old mode "):]
		case strings.HasPrefix(line, "new mode "):
			cur.NewMode = line[len("new mode "):]
		case strings.HasPrefix(line, "similarity index "):
			cur.Similarity, _ = strconv.Atoi(strings.TrimSuffix(line[len("similarity index "):], "%"))
		case strings.HasPrefix(line, "rename from "):
			cur.Status = StatusRenamed
			p, err := unquotePath(line[len("rename from "):])
			if err != nil {
				return nil, fmt.Errorf("%w: line %d: %v", ErrPatch, i+1, err)
			}
			cur.OldPath = p
		case strings.HasPrefix(line, "rename to "):
			p, err := unquotePath(line[len("rename to "):])
			if err != nil {
				return nil, fmt.Errorf("%w: line %d: %v", ErrPatch, i+1, err)
			}
			cur.NewPath = p
		case strings.HasPrefix(line, "--- "):
			if p, ok, err := sidePath(line[4:], "a/"); err != nil {
				return nil, fmt.Errorf("%w: line %d: %v", ErrPatch, i+1, err)
			} else if ok {
				cur.OldPath = p
			}
		case strings.HasPrefix(line, "+++ "):
			if p, ok, err := sidePath(line[4:], "b/"); err != nil {
				return nil, fmt.Errorf("%w: line %d: %v", ErrPatch, i+1, err)
			} else if ok {
				cur.NewPath = p
			}
		case strings.HasPrefix(line, "Binary files ") || line == "GIT binary patch":
			cur.Binary = true
		}
	}
	if oldLeft > 0 || newLeft > 0 {
		return nil, fmt.Errorf("%w: the last hunk is cut short", ErrPatch)
	}
	finish()
	for i := range out {
		f := &out[i]
		switch f.Status {
		case StatusAdded:
			f.OldPath = ""
		case StatusDeleted:
			f.NewPath = ""
		}
		if f.Status == StatusAdded || f.Status == StatusDeleted || f.OldMode == f.NewMode || f.OldMode == "" || f.NewMode == "" {
			f.OldMode, f.NewMode = "", ""
		}
	}
	return out, nil
}

// mergeTypeChange joins the deletion's and the creation's hunks of a file
// that changed type: every old line went, every new line came.
func mergeTypeChange(del, add []Hunk) []Hunk {
	var h Hunk
	if len(del) > 0 {
		h.Old = del[0].Old
	}
	if len(add) > 0 {
		h.New = add[0].New
	}
	if h.Old.Count == 0 && h.New.Count == 0 {
		return nil
	}
	return []Hunk{h}
}

// parseHunkHeader reads "@@ -a[,b] +c[,d] @@…".
func parseHunkHeader(line string) (Hunk, error) {
	rest := strings.TrimPrefix(line, "@@ ")
	end := strings.Index(rest, " @@")
	if end < 0 {
		return Hunk{}, fmt.Errorf("hunk header %q has no closing @@", line)
	}
	fields := strings.Fields(rest[:end])
	if len(fields) != 2 || !strings.HasPrefix(fields[0], "-") || !strings.HasPrefix(fields[1], "+") {
		return Hunk{}, fmt.Errorf("hunk header %q is not -old +new", line)
	}
	old, err := parseRange(fields[0][1:])
	if err != nil {
		return Hunk{}, fmt.Errorf("hunk header %q: %v", line, err)
	}
	nw, err := parseRange(fields[1][1:])
	if err != nil {
		return Hunk{}, fmt.Errorf("hunk header %q: %v", line, err)
	}
	return Hunk{Old: old, New: nw}, nil
}

// parseRange reads "start[,count]" (count 1 when left out).
func parseRange(s string) (LineRange, error) {
	a, b, hasCount := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 {
		return LineRange{}, fmt.Errorf("bad line number %q", a)
	}
	count := 1
	if hasCount {
		if count, err = strconv.Atoi(b); err != nil || count < 0 {
			return LineRange{}, fmt.Errorf("bad line count %q", b)
		}
	}
	return LineRange{Start: start, Count: count}, nil
}

// sidePath reads the path of a ---/+++ line: /dev/null (false), or the
// prefix and a path, C-quoted when git quoted it. git ends a path holding
// a space with a tab, which is dropped.
func sidePath(s, prefix string) (string, bool, error) {
	s = strings.TrimSuffix(s, "\t")
	if s == "/dev/null" {
		return "", false, nil
	}
	p, err := unquotePath(s)
	if err != nil {
		return "", false, err
	}
	if !strings.HasPrefix(p, prefix) {
		return "", false, fmt.Errorf("path %q lacks the %q prefix", s, prefix)
	}
	return p[len(prefix):], true, nil
}

// headerPaths reads the two paths of "diff --git a/X b/Y". Unquoted paths
// may hold spaces, so when neither is quoted the split is taken where both
// halves name the same path (the only case the header alone must answer:
// renames, additions and deletions carry their paths on later lines).
func headerPaths(s string) (string, string, bool) {
	var a, b string
	if strings.HasPrefix(s, `"`) {
		q, rest, ok := cutQuoted(s)
		if !ok {
			return "", "", false
		}
		a = q
		rest = strings.TrimPrefix(rest, " ")
		if strings.HasPrefix(rest, `"`) {
			if b, _, ok = cutQuoted(rest); !ok {
				return "", "", false
			}
		} else {
			b = rest
		}
	} else if strings.HasSuffix(s, `"`) {
		i := strings.Index(s, ` "`)
		if i < 0 {
			return "", "", false
		}
		a = s[:i]
		q, _, ok := cutQuoted(s[i+1:])
		if !ok {
			return "", "", false
		}
		b = q
	} else {
		// "a/P b/P": len = 2*len(P) + 5.
		if (len(s)-5)%2 == 0 && len(s) > 5 {
			n := (len(s) - 5) / 2
			a, b = s[:n+2], s[n+3:]
		}
		if a == "" || a[2:] != b[2:] {
			i := strings.Index(s, " b/")
			if i < 0 {
				return "", "", false
			}
			a, b = s[:i], s[i+1:]
		}
	}
	if !strings.HasPrefix(a, "a/") || !strings.HasPrefix(b, "b/") {
		return "", "", false
	}
	return a[2:], b[2:], true
}

// cutQuoted reads one C-quoted string at the start of s and returns it
// unquoted and what follows.
func cutQuoted(s string) (string, string, bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			u, err := unquotePath(s[:i+1])
			if err != nil {
				return "", "", false
			}
			return u, s[i+1:], true
		}
	}
	return "", "", false
}

// unquotePath undoes git's C-style quoting of a path ("a\tb", "\303\251");
// a path not starting with a double quote is returned as it is.
func unquotePath(s string) (string, error) {
	if !strings.HasPrefix(s, `"`) {
		return s, nil
	}
	if len(s) < 2 || !strings.HasSuffix(s, `"`) {
		return "", fmt.Errorf("unterminated quoted path %s", s)
	}
	body := s[1 : len(s)-1]
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(body) {
			return "", fmt.Errorf("quoted path %s ends in a backslash", s)
		}
		switch e := body[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'v':
			b.WriteByte('\v')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case '"', '\\':
			b.WriteByte(e)
		default:
			if e < '0' || e > '3' || i+2 >= len(body) {
				return "", fmt.Errorf("bad escape in quoted path %s", s)
			}
			v, err := strconv.ParseUint(body[i:i+3], 8, 8)
			if err != nil {
				return "", fmt.Errorf("bad octal escape in quoted path %s", s)
			}
			b.WriteByte(byte(v))
			i += 2
		}
	}
	return b.String(), nil
}

// ShowFiles returns the content of each of paths (relative to dir) at
// commit rev, read through one git cat-file process; a path that does not
// exist there is left out of the map. Errors: *RevisionError, ErrNoGit,
// ErrNotWorkTree, ctx.Err(), git's own.
func ShowFiles(ctx context.Context, dir, rev string, paths []string) (map[string][]byte, error) {
	commit, err := ResolveCommit(ctx, dir, rev)
	if err != nil {
		return nil, err
	}
	prefix, err := Git(ctx, dir, "rev-parse", "--show-prefix")
	if err != nil {
		return nil, err
	}
	pre := strings.TrimSpace(string(prefix))
	out := make(map[string][]byte, len(paths))
	var batch []string
	for _, p := range paths {
		if strings.ContainsAny(p, "\n\r") {
			// cat-file --batch reads one name a line: ask alone.
			if b, ok, err := Show(ctx, dir, commit, p); err != nil {
				return nil, err
			} else if ok {
				out[p] = b
			}
			continue
		}
		batch = append(batch, p)
	}
	if len(batch) == 0 {
		return out, nil
	}
	bin := Binary()
	if bin == "" {
		return nil, ErrNoGit
	}
	var in bytes.Buffer
	for _, p := range batch {
		in.WriteString(commit + ":" + pre + p + "\n")
	}
	cmd := exec.CommandContext(ctx, bin, "cat-file", "--batch")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, cleanEnv(), &in
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("git cat-file --batch: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	rest := stdout.Bytes()
	for _, p := range batch {
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			return nil, fmt.Errorf("git cat-file --batch: the answer for %q is cut short", p)
		}
		header := string(rest[:nl])
		rest = rest[nl+1:]
		if strings.HasSuffix(header, " missing") || strings.HasSuffix(header, " ambiguous") {
			continue
		}
		f := strings.Fields(header) // <oid> <type> <size>
		if len(f) != 3 {
			return nil, fmt.Errorf("git cat-file --batch: unexpected header %q", header)
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size < 0 || size+1 > len(rest) {
			return nil, fmt.Errorf("git cat-file --batch: unexpected header %q", header)
		}
		if f[1] == "blob" {
			out[p] = rest[:size:size]
		}
		rest = rest[size+1:]
	}
	return out, nil
}
