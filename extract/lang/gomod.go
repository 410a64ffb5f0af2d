package lang

import (
	"path"
	"sort"
	"strings"

	"github.com/cos-dev/cos/graph"
)

// GoModules maps the repository's go.mod folders to their module paths and
// back, to turn an import path into a repository folder.
type GoModules struct {
	ByDir map[string]string // go.mod folder ("" for the root) → module path
	dirs  []string          // folders, longest first
}

func NewGoModules(byDir map[string]string) *GoModules {
	m := &GoModules{ByDir: byDir}
	for d := range byDir {
		m.dirs = append(m.dirs, d)
	}
	sort.Slice(m.dirs, func(i, j int) bool {
		if len(m.dirs[i]) != len(m.dirs[j]) {
			return len(m.dirs[i]) > len(m.dirs[j])
		}
		return m.dirs[i] < m.dirs[j]
	})
	return m
}

// moduleOf returns the folder and module path of the go.mod governing dir.
func (m *GoModules) moduleOf(dir string) (modDir, modPath string, ok bool) {
	for _, d := range m.dirs {
		if d == "" || d == dir || strings.HasPrefix(dir, d+"/") {
			return d, m.ByDir[d], true
		}
	}
	return "", "", false
}

// ImportPath returns the import path of the package in folder dir: the module
// path joined with the folder's path below go.mod; for the standard
// library's module "std" the module path is left out. Without a go.mod the
// folder itself is the import path ("." for the root).
func (m *GoModules) ImportPath(dir string) string {
	modDir, modPath, ok := m.moduleOf(dir)
	if !ok {
		if dir == "" {
			return "."
		}
		return dir
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(dir, modDir), "/")
	switch {
	case modPath == "std" && rest == "":
		return "std"
	case modPath == "std":
		return rest
	case rest == "":
		return modPath
	}
	return modPath + "/" + rest
}

// DirOf returns the repository folder of import path ip, if a go.mod of the
// repository covers it.
func (m *GoModules) DirOf(ip string) (string, bool) {
	best, bestLen, found := "", -1, false
	for _, d := range m.dirs {
		mp := m.ByDir[d]
		rest, matchLen := "", len(mp)
		switch {
		case ip == mp:
		case strings.HasPrefix(ip, mp+"/"):
			rest = ip[len(mp)+1:]
		case mp == "std" && !strings.Contains(strings.SplitN(ip, "/", 2)[0], "."):
			// The standard library: import paths are folders below src.
			rest, matchLen = ip, 0
		default:
			continue
		}
		if matchLen > bestLen {
			best, bestLen, found = path.Join(d, rest), matchLen, true
		}
	}
	if best == "." {
		best = ""
	}
	return best, found
}

// goModFile is what the extractors need from a go.mod.
type goModFile struct {
	Module   string
	Requires []goRequire
}

type goRequire struct {
	Path, Version string
	Line          int
	Indirect      bool
}

// ParseGoMod reads the module path and require directives of a go.mod;
// it is lenient: unknown directives and malformed lines are ignored.
func ParseGoMod(src string) goModFile {
	var f goModFile
	inRequire := false
	for i, line := range strings.Split(src, "\n") {
		comment := ""
		if c := strings.Index(line, "//"); c >= 0 {
			comment = line[c+2:]
			line = line[:c]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if inRequire {
			if fields[0] == ")" {
				inRequire = false
				continue
			}
			if len(fields) >= 2 {
				f.Requires = append(f.Requires, goRequire{Path: unquote(fields[0]), Version: fields[1], Line: i + 1, Indirect: strings.TrimSpace(comment) == "indirect"})
			}
			continue
		}
		switch fields[0] {
		case "module":
			if len(fields) >= 2 {
				f.Module = unquote(fields[1])
			}
		case "require":
			if len(fields) >= 2 && fields[1] == "(" {
				inRequire = true
			} else if len(fields) >= 3 {
				f.Requires = append(f.Requires, goRequire{Path: unquote(fields[1]), Version: fields[2], Line: i + 1, Indirect: strings.TrimSpace(comment) == "indirect"})
			}
		}
	}
	return f
}

func unquote(s string) string { return strings.Trim(s, "\"`") }

// GoPackageNode is the go:package: node of an import or module path, the
// same whether a Go file imports it or a go.mod requires it.
func GoPackageNode(p string) graph.Node {
	first, _, _ := strings.Cut(p, "/")
	return graph.Node{UID: ClampUID("go:package:" + UIDPart(p)), Kind: graph.KindDependency, Label: CleanString(p),
		Metadata: map[string]any{"ecosystem": "go", "stdlib": !strings.Contains(first, ".")}}
}
