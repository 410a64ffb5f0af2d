package swift

import (
	"testing"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// TestLanguage_ParsesWithRuntime loads the vendored grammar into the
// go-tree-sitter runtime (its ABI version must be one the runtime accepts)
// and parses a small Swift file without a syntax error.
func TestLanguage_ParsesWithRuntime(t *testing.T) {
	lang := sitter.NewLanguage(Language())
	if v := lang.AbiVersion(); v < sitter.MIN_COMPATIBLE_LANGUAGE_VERSION || v > sitter.LANGUAGE_VERSION {
		t.Fatalf("grammar ABI version %d outside the runtime's [%d, %d]", v, sitter.MIN_COMPATIBLE_LANGUAGE_VERSION, sitter.LANGUAGE_VERSION)
	}
	p := sitter.NewParser()
	defer p.Close()
	if err := p.SetLanguage(lang); err != nil {
		t.Fatal(err)
	}
	src := []byte(`import Foundation

protocol Shape { func area() -> Double }

final class Circle: Shape {
    let r: Double
    init(r: Double) { self.r = r }
    func area() -> Double { return 3.14 * r * r }
}

extension Circle {
    static func unit() -> Circle { Circle(r: 1) }
}
`)
	tree := p.Parse(src, nil)
	if tree == nil {
		t.Fatal("parse returned no tree")
	}
	defer tree.Close()
	root := tree.RootNode()
	if root.HasError() {
		t.Fatalf("syntax error in %s", root.ToSexp())
	}
	if root.Kind() != "source_file" || root.NamedChildCount() != 4 {
		t.Fatalf("root %s with %d children, want source_file with 4", root.Kind(), root.NamedChildCount())
	}
	if got := root.NamedChild(2).Kind(); got != "class_declaration" {
		t.Errorf("third declaration is %s, want class_declaration", got)
	}
}
