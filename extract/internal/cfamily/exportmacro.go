package cfamily

import (
	"bytes"
	"regexp"
)

// exportMacro matches an export or visibility macro between class, struct
// or union and the type's name (class LEVELDB_EXPORT Status {): a name in
// capitals followed by another name and the start of a body or base list.
var exportMacro = regexp.MustCompile(`\b(?:class|struct|union)[ \t]+([A-Z][A-Z0-9_]*)[ \t]+[A-Za-z_]\w*(?:[ \t]+final)?[ \t]*(?:[:{]|\n)`)

// blankExportMacros returns src with such macros replaced by spaces (lines
// and columns kept), src itself when it has none. tree-sitter, which does
// not expand macros, would read the macro as the type's name.
func blankExportMacros(src []byte) []byte {
	if !bytes.Contains(src, []byte("class ")) && !bytes.Contains(src, []byte("struct ")) {
		return src
	}
	locs := exportMacro.FindAllSubmatchIndex(src, -1)
	if len(locs) == 0 {
		return src
	}
	out := bytes.Clone(src)
	for _, l := range locs {
		for i := l[2]; i < l[3]; i++ {
			out[i] = ' '
		}
	}
	return out
}
