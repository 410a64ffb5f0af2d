package resolve

import (
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/lang"

	"github.com/cos-dev/cos/graph"
)

// Rust crates are named in references as "rustcrate:<name>" (use
// grep_searcher::Sink); a Cargo.toml declares the scope
// "cargo:<name>" (dashes read as underscores), and the crate's scope is
// that of its root file, src/lib.rs or else src/main.rs beside it.

// rustCrateScope maps "rustcrate:<name>" to "rust:<crate root>"; ok is
// false for a crate outside the repository.
func (t *Table) rustCrateScope(name string) (string, bool) {
	key := "cargo:" + strings.ReplaceAll(name, "-", "_")
	t.touch(key)
	ps := t.byScope[key]
	if len(ps) == 0 {
		return "", false
	}
	dir := path.Dir(ps[0])
	for _, r := range []string{"src/lib.rs", "src/main.rs"} {
		s := "rust:" + r
		if dir != "." {
			s = "rust:" + dir + "/" + r
		}
		if _, ok := t.byScope[s]; ok {
			return s, true
		}
	}
	return "", false
}

// resolveRustUse turns a Rust use path (r.Recv, a chain naming a module
// or an item) into an imports edge to the file declaring it; a path that
// leads nowhere in the tree is dropped.
func resolveRustUse(fr *lang.Result, t *Table, r lang.Ref, add func(graph.Edge)) {
	v, ok := t.eval(r.Recv, 0)
	if !ok {
		return
	}
	p := v.cand.Path
	if v.kind == valModule {
		p = strings.TrimPrefix(v.scope, "rust:")
	}
	if p == "" || p == fr.Path || !strings.HasPrefix(v.scope, "rust:") {
		return
	}
	add(graph.Edge{Source: r.From, Target: lang.FileUID(p), Type: graph.EdgeImports, Extractor: fr.Extractor, Line: r.Line})
}
