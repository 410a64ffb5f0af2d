package scip

import (
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	scippb "github.com/sourcegraph/scip/bindings/go/scip"
)

// Index is a SCIP index whose documents are placed in the indexed tree.
type Index struct {
	// Indexer is the tool that wrote the index and its version, from the
	// index's metadata ("scip-python 0.6.6"); "SCIP index" when unnamed.
	Indexer string
	// Outside counts the documents left out because their file is not
	// inside the tree.
	Outside int
	// docs are the documents by repo-relative, slash-separated path.
	docs map[string]*scippb.Document
}

// Open loads the SCIP index file at path and places its documents in the
// tree at root (see Place).
//
// Errors: the file cannot be read, or it is not a SCIP index (ErrNotIndex).
func Open(path, root string) (*Index, error) {
	idx, err := Load(path)
	if err != nil {
		return nil, err
	}
	return Place(idx, root), nil
}

// Place places the documents of idx in the tree at root (an absolute
// folder). A document's relative_path is relative to the index's project
// root: when that folder exists and holds root, or root holds it, paths are
// rebased onto root and documents outside root are left out (Outside);
// otherwise (an index made on another machine) they are taken as relative
// to root. A path that climbs out of the tree (..) is always left out.
func Place(idx *scippb.Index, root string) *Index {
	x := &Index{Indexer: indexerName(idx.GetMetadata()), docs: map[string]*scippb.Document{}}
	prefix, under := rebase(idx.GetMetadata().GetProjectRoot(), root)
	for _, d := range idx.GetDocuments() {
		rel := filepath.ToSlash(filepath.Clean(filepath.FromSlash(d.GetRelativePath())))
		switch {
		case under != "":
			// root is a sub-folder of the project root.
			r, ok := strings.CutPrefix(rel, under+"/")
			if !ok {
				x.Outside++
				continue
			}
			rel = r
		case prefix != "":
			rel = prefix + "/" + rel
		}
		if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) || rel == "" {
			x.Outside++
			continue
		}
		if _, dup := x.docs[rel]; !dup {
			x.docs[rel] = d
		}
	}
	return x
}

// rebase relates the index's project root to root: under is root's path
// inside the project root ("" when root is the project root or unrelated),
// prefix the project root's path inside root.
func rebase(projectRoot, root string) (prefix, under string) {
	u, err := url.Parse(projectRoot)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", ""
	}
	base := filepath.FromSlash(u.Path)
	if _, err := os.Stat(base); err != nil {
		return "", ""
	}
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real
	}
	if rel, err := filepath.Rel(base, root); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
		return "", filepath.ToSlash(rel)
	}
	if rel, err := filepath.Rel(root, base); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
		return filepath.ToSlash(rel), ""
	}
	return "", ""
}

func indexerName(m *scippb.Metadata) string {
	name := strings.TrimSpace(m.GetToolInfo().GetName())
	if name == "" {
		return "SCIP index"
	}
	if v := strings.TrimSpace(m.GetToolInfo().GetVersion()); v != "" {
		name += " " + v
	}
	return name
}

// Paths returns the repo-relative paths the index has a document for,
// sorted.
func (x *Index) Paths() []string {
	out := make([]string, 0, len(x.docs))
	for p := range x.docs {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Has reports whether the index has a document for path.
func (x *Index) Has(path string) bool {
	_, ok := x.docs[path]
	return ok
}
