package rust

import (
	"path"
	"strings"
)

// layout places a file in its crate: the crate's folder (where its
// Cargo.toml is, "" when none is found) and the crate root file that
// crate:: paths start from.
type layout struct {
	files    map[string]bool
	path     string
	crateDir string
	root     string
}

// newLayout finds p's crate through files (every indexed path).
func newLayout(p string, files map[string]bool) *layout {
	l := &layout{files: files, path: p, crateDir: "."}
	found := false
	for d := path.Dir(p); ; d = path.Dir(d) {
		if files[join(d, "Cargo.toml")] {
			l.crateDir, found = d, true
			break
		}
		if d == "." || d == "/" {
			break
		}
	}
	rel := p
	if found && l.crateDir != "." {
		rel = strings.TrimPrefix(p, l.crateDir+"/")
	}
	if !found {
		// No manifest: the folder holding src/ is the crate's.
		if i := strings.LastIndex(p, "/src/"); i >= 0 {
			l.crateDir, rel = p[:i], p[i+1:]
		} else if strings.HasPrefix(p, "src/") {
			l.crateDir = "."
		}
	}
	l.root = l.rootOf(rel)
	return l
}

// join joins a folder and a name, "." being the repository's root.
func join(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return dir + "/" + name
}

// rootOf returns the crate root of the file at rel (relative to the
// crate's folder), as a repository path: src/lib.rs (else src/main.rs)
// for the library's modules, the binary's own file under src/bin,
// tests/, examples/ and benches/.
func (l *layout) rootOf(rel string) string {
	parts := strings.Split(rel, "/")
	abs := func(r string) string { return join(l.crateDir, r) }
	if len(parts) >= 2 && parts[0] == "src" && parts[1] != "bin" {
		for _, r := range []string{"src/lib.rs", "src/main.rs"} {
			if l.files[abs(r)] {
				return abs(r)
			}
		}
		return l.path
	}
	// src/bin/x.rs, tests/x.rs, examples/x.rs, benches/x.rs: their own
	// crate; a file below (tests/x/y.rs) belongs to x/main.rs.
	base := 1
	if parts[0] == "src" {
		base = 2
	}
	if len(parts) > base+1 {
		m := abs(strings.Join(parts[:base+1], "/") + "/main.rs")
		if l.files[m] {
			return m
		}
	}
	return l.path
}

// isModRoot reports whether the file p holds the children of its own
// folder's module (a crate root, mod.rs) rather than of a folder named
// after it (a.rs's children are in a/).
func (l *layout) isModRoot(p string) bool {
	return p == l.root || path.Base(p) == "mod.rs" || (p == l.path && (path.Base(p) == "lib.rs" || path.Base(p) == "main.rs"))
}

// childFiles returns the two files mod name; in p may live in.
func (l *layout) childFiles(p, name string) [2]string {
	dir := path.Dir(p)
	if !l.isModRoot(p) {
		dir = join(dir, strings.TrimSuffix(path.Base(p), ".rs"))
	}
	return [2]string{join(dir, name+".rs"), join(dir, name+"/mod.rs")}
}

// childFile returns the file of mod name; in p, "" when neither exists.
func (l *layout) childFile(p, name string) string {
	for _, c := range l.childFiles(p, name) {
		if l.files[c] {
			return c
		}
	}
	return ""
}

// parentFile returns the file of the module enclosing p's module ("" for
// a crate root or when it cannot be found).
func (l *layout) parentFile(p string) string {
	if p == l.root {
		return ""
	}
	dir := path.Dir(p)
	if path.Base(p) == "mod.rs" {
		dir = path.Dir(dir)
	}
	if dir == path.Dir(l.root) {
		return l.root
	}
	if f := join(path.Dir(dir), path.Base(dir)+".rs"); l.files[f] {
		return f
	}
	if f := join(dir, "mod.rs"); l.files[f] {
		return f
	}
	return ""
}
