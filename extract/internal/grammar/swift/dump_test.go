package swift

import (
	"fmt"
	"os"
	"strings"
	"testing"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

func TestDump(t *testing.T) {
	fn := os.Getenv("DUMP")
	if fn == "" {
		t.Skip()
	}
	src, _ := os.ReadFile(fn)
	p := sitter.NewParser()
	p.SetLanguage(sitter.NewLanguage(Language()))
	tree := p.Parse(src, nil)
	var rec func(n *sitter.Node, d int, field string)
	rec = func(n *sitter.Node, d int, field string) {
		txt := ""
		if n.ChildCount() == 0 {
			txt = " " + string(src[n.StartByte():n.EndByte()])
		}
		if field != "" {
			field += ": "
		}
		if n.IsNamed() || n.ChildCount() == 0 {
			fmt.Printf("%s%s%s%s\n", strings.Repeat("  ", d), field, n.Kind(), txt)
		}
		for i := uint(0); i < n.ChildCount(); i++ {
			rec(n.Child(i), d+1, n.FieldNameForChild(uint32(i)))
		}
	}
	rec(tree.RootNode(), 0, "")
}
