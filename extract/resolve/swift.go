package resolve

import "github.com/cos-dev/cos/extract/lang"

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
