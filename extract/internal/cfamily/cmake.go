package cfamily

import (
	"path"
	"regexp"
	"strings"

	"github.com/cos-dev/cos/extract/lang"
	"github.com/cos-dev/cos/graph"
)

// IsCMake reports whether p names a CMakeLists.txt (any case).
func IsCMake(p string) bool { return strings.EqualFold(path.Base(p), "CMakeLists.txt") }

// cmakeTarget matches the commands that name a project or a target.
var cmakeTarget = regexp.MustCompile(`(?im)^[ \t]*(project|add_library|add_executable)[ \t]*\([ \t\n]*"?([A-Za-z0-9_.+:-]+)`)

// ExtractCMake reads a CMakeLists.txt: its file node and one config node
// per project(), add_library() and add_executable(), uid
// config:cmake:<path>#<command>/<name>, contained by the file.
func ExtractCMake(r *lang.Result, data []byte) {
	fileUID := lang.FileNode(r, map[string]any{"language": "cmake"})
	for _, m := range cmakeTarget.FindAllSubmatchIndex(data, -1) {
		cmd := strings.ToLower(string(data[m[2]:m[3]]))
		name := string(data[m[4]:m[5]])
		line := 1 + strings.Count(string(data[:m[0]]), "\n")
		uid := lang.ClampUID("config:cmake:" + lang.UIDPart(r.Path) + "#" + cmd + "/" + lang.UIDPart(name))
		r.AddNode(graph.Node{UID: uid, Kind: graph.KindConfig, Label: lang.CleanString(cmd + "(" + name + ")"), Line: line,
			Metadata: map[string]any{"command": cmd, "name": lang.CleanString(name)}})
		r.AddEdge(fileUID, uid, graph.EdgeContains, line)
	}
}
