package extract

import (
	"os"
	"path/filepath"
	"testing"
)

// TestC_CompileCommandsIncludePaths: with a build/compile_commands.json
// (made on another machine: its absolute paths are not the tree's), an
// #include resolves through the -I and -isystem folders of the including
// source's own entry, a header no entry compiles through any entry's
// folders, and an out-of-tree or absent folder is ignored. Without the
// database none of these headers is found.
func TestC_CompileCommandsIncludePaths(t *testing.T) {
	root := copyTree(t, filepath.Join("testdata", "ccompdb"))
	res := index(t, root, Options{CacheDir: t.TempDir()}, nil)
	checkExactEdges(t, cfamilyEdges(res.Payloads), []string{
		// "net/conn.h" through main.c's -I lib/api ("zbuf.h" is not in
		// main.c's folders).
		"imports src/main.c -> lib/api/net/conn.h",
		// "zbuf.h" through other.c's -isystem ../third_party/zlib, relative to
		// its entry's build/ directory ("conn.h" is in no folder of it).
		"imports src/other.c -> third_party/zlib/zbuf.h",
		// A header is compiled through the sources: any entry's folder.
		"imports lib/api/net/conn.h -> third_party/zlib/zbuf.h",
	})

	if err := os.Remove(filepath.Join(root, "build", "compile_commands.json")); err != nil {
		t.Fatal(err)
	}
	res = index(t, root, Options{CacheDir: t.TempDir()}, nil)
	checkExactEdges(t, cfamilyEdges(res.Payloads), nil)
}
