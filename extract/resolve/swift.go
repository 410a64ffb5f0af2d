package resolve

import (
	"strings"

	"github.com/cos-dev/cos/extract/lang"
)

// swiftScope prefixes the scope of a Swift module ("swift:<Module>"),
// which all the module's files share. Each file imports modules of its
// own, so the modules a scope sees wholesale (lang.FactStar) are the union
// of its files' imports, not the first file's.
const swiftScope = "swift:"

// unionStars merges two encoded FactStar values, each module once, in
// order of first appearance.
func unionStars(a, b string) string {
	seen := map[string]bool{}
	var out []*lang.Chain
	for _, c := range append(lang.DecodeChains(a), lang.DecodeChains(b)...) {
		if !seen[c.Scope] {
			seen[c.Scope] = true
			out = append(out, c)
		}
	}
	return lang.EncodeChains(out...)
}

// swiftProtocol reports whether a looked-up candidate is a Swift protocol
// (its file marks it with lang.FactSwiftProtocol).
func (t *Table) swiftProtocol(c Candidate) bool {
	_, name, _ := strings.Cut(c.Kind, "\x00")
	d := t.fresh[c.Path]
	if d == nil {
		r, ok := t.cached[c.Path]
		if !ok || !strings.Contains(r.Facts, lang.FactSwiftProtocol+name+"\t") {
			return false
		}
		d = r.Decl()
	}
	_, ok := d.Facts[lang.FactSwiftProtocol+name]
	return ok
}
