package kotlin

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cos-dev/cos/extract/internal/ts"
	sitter "github.com/tree-sitter/go-tree-sitter"
)

func TestDump(t *testing.T) {
	src, _ := os.ReadFile(os.Getenv("KT"))
	tree, _ := ts.Parse(language, src)
	var rec func(n *sitter.Node, d int, field string)
	rec = func(n *sitter.Node, d int, field string) {
		txt := ""
		if n.ChildCount() == 0 {
			txt = " " + strings.TrimSpace(string(src[n.StartByte():n.EndByte()]))
		}
		if field != "" {
			field += ": "
		}
		fmt.Printf("%s%s%s%s\n", strings.Repeat("  ", d), field, n.Kind(), txt)
		for i := uint(0); i < n.ChildCount(); i++ {
			rec(n.Child(i), d+1, n.FieldNameForChild(uint32(i)))
		}
	}
	rec(tree.RootNode(), 0, "")
}
