package cfamily

import (
	"encoding/json"
	"path"
	"path/filepath"
	"strings"
)

// CompileDBPaths are where a compilation database is looked for, in this
// order: the tree's root, then its build/ folder (read even when the walk
// leaves build/ out).
var CompileDBPaths = []string{"compile_commands.json", "build/compile_commands.json"}

// compileEntry is one entry of a compile_commands.json: the compiler's
// working folder, the source file, and its command line as a list
// (arguments) or one shell string (command).
type compileEntry struct {
	Directory string   `json:"directory"`
	File      string   `json:"file"`
	Arguments []string `json:"arguments"`
	Command   string   `json:"command"`
}

// IncludePaths reads the first compilation database of CompileDBPaths
// that read (given a repository-relative path) returns and maps each
// source it compiles (repository-relative, in files: the tree's paths) to
// the in-tree folders its -I, -iquote and -isystem flags name, in
// command-line order; the key "" holds every such folder of the database
// in first-seen order (what a header, compiled only through the sources,
// is resolved with). Paths in the database are absolute or relative to an
// entry's directory; the tree's root is where the entries' files are
// found in files, so a database made on another machine still maps. Nil
// when there is no database, it cannot be decoded, or it names no in-tree
// folder.
func IncludePaths(files map[string]bool, read func(p string) ([]byte, error)) map[string][]string {
	if len(files) == 0 {
		return nil
	}
	for _, db := range CompileDBPaths {
		data, err := read(db)
		if err != nil {
			continue
		}
		var entries []compileEntry
		if json.Unmarshal(data, &entries) != nil {
			return nil
		}
		return includePaths(entries, files)
	}
	return nil
}

func includePaths(entries []compileEntry, files map[string]bool) map[string][]string {
	root, ok := treeRoot(entries, files)
	if !ok {
		return nil
	}
	dirs := map[string]bool{}
	for p := range files {
		for d := path.Dir(p); d != "." && d != "/" && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	// rel maps an absolute slash path under root to its repository path.
	rel := func(abs string) (string, bool) {
		if abs == root {
			return ".", true
		}
		r, ok := strings.CutPrefix(abs, strings.TrimSuffix(root, "/")+"/")
		return r, ok && r != ""
	}
	out := map[string][]string{}
	seenAll := map[string]bool{}
	for _, e := range entries {
		src, ok := rel(absPath(e.Directory, e.File))
		if !ok || !files[src] {
			continue
		}
		args := e.Arguments
		if len(args) == 0 {
			args = splitCommand(e.Command)
		}
		seen := map[string]bool{}
		for _, d := range includeFlags(args) {
			r, ok := rel(absPath(e.Directory, d))
			if !ok || r != "." && !dirs[r] || seen[r] {
				continue
			}
			seen[r] = true
			out[src] = append(out[src], r)
			if !seenAll[r] {
				seenAll[r] = true
				out[""] = append(out[""], r)
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// treeRoot returns the absolute (slash) folder the database's paths put
// the tree at: the first entry whose file, minus a leading folder, is a
// path of files gives it, the longest such path winning.
func treeRoot(entries []compileEntry, files map[string]bool) (string, bool) {
	for _, e := range entries {
		abs := absPath(e.Directory, e.File)
		for i := 0; i < len(abs); i++ {
			if abs[i] != '/' {
				continue
			}
			if files[abs[i+1:]] {
				if i == 0 {
					return "/", true
				}
				return abs[:i], true
			}
		}
	}
	return "", false
}

// absPath is p made absolute against dir (both as a compiler sees them),
// cleaned, with slashes; a relative dir is taken from "/".
func absPath(dir, p string) string {
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") && !isWindowsAbs(p) {
		p = path.Join(filepath.ToSlash(dir), p)
	}
	if !strings.HasPrefix(p, "/") && !isWindowsAbs(p) {
		p = "/" + p
	}
	return path.Clean(p)
}

// isWindowsAbs reports whether p starts with a drive letter ("C:/").
func isWindowsAbs(p string) bool {
	return len(p) >= 3 && p[1] == ':' && p[2] == '/'
}

// includeFlags returns the folders of a command line's -I, -iquote and
// -isystem flags (joined, "-Idir", or separate, "-I dir"), in order.
func includeFlags(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		for _, flag := range []string{"-I", "-iquote", "-isystem"} {
			if !strings.HasPrefix(a, flag) {
				continue
			}
			v := a[len(flag):]
			if v == "" && i+1 < len(args) {
				i++
				v = args[i]
			}
			if v != "" {
				out = append(out, v)
			}
			break
		}
	}
	return out
}

// splitCommand splits a shell command line into words: blanks separate,
// single quotes keep everything, double quotes keep all but a backslash
// before " or \, a backslash outside quotes keeps the next character.
func splitCommand(s string) []string {
	var out []string
	var w strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, w.String())
				w.Reset()
				in = false
			}
		case c == '\'':
			in = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			in = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				w.WriteByte(s[i])
			}
		case c == '\\' && i+1 < len(s):
			in = true
			i++
			w.WriteByte(s[i])
		default:
			in = true
			w.WriteByte(c)
		}
	}
	if in {
		out = append(out, w.String())
	}
	return out
}
