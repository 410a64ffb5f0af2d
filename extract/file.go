package extract

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/cos-dev/cos/extract/lang"
	"github.com/cos-dev/cos/extract/python"

	"github.com/cos-dev/cos/graph"
)

// File extracts one file's declarations from its content alone, at the
// syntax level: the nodes (with their lines) and edges one file yields
// without the rest of the tree — no type checking, no resolution of calls
// into other files. p is the file's repo-relative, slash-separated path;
// it picks the extractor and names the uids, which are those a full index
// gives the same declarations. It never fails: what cannot be parsed is in
// the result's ParseErrors. Use it to read a file as it was at another
// revision.
func File(p string, data []byte) graph.FileExtracted {
	sum := sha256.Sum256(data)
	e := &lang.Env{Modules: lang.NewGoModules(nil), Files: map[string]bool{p: true}, MaxDepth: DefaultMaxConfigDepth}
	e.PyModules = python.Modules(e.Files)
	return payload(extractFile(p, data, hex.EncodeToString(sum[:]), e))
}
