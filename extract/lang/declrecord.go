package lang

import (
	"maps"
	"slices"
	"strings"
)

// DeclRecord is a decl flattened to strings, cheap to encode and decode;
// it is expanded only when its scope is looked up.
type DeclRecord struct {
	Hash  string
	Scope string
	Names string // "name\tkind\n…", sorted
	Alias string // "alias\tname\n…", sorted
	// Results is "function\ttype\n…", sorted.
	Results string
	// Facts is Decl.Facts, "key\tvalue\n…", sorted.
	Facts string
	Deps  []string
	// Keys and KeysKnown are Decl.Keys and Decl.KeysKnown.
	Keys      string
	KeysKnown bool
	// Payload is the payloadHash of what was last emitted for the file, so
	// that a dependent re-extracted to the same payload is not emitted
	// again.
	Payload string
	// Impl are the file's implements edges, ImplKnown whether they were
	// computed (a file of a package that did not type-check has none).
	Impl      []ImplRecord
	ImplKnown bool
}

// ImplRecord is one cached implements edge of a file: reused when the
// file's package is re-extracted without a change of shape.
type ImplRecord struct {
	Source, Target string
	Line           int
	MethodSet      string
	// Stub is the label of the outside interface's stub node, "" in-tree.
	Stub string
}

// Record flattens d.
func (d *Decl) Record() DeclRecord {
	return DeclRecord{Hash: d.Hash, Scope: d.Scope, Names: flatten(d.Names), Alias: flatten(d.Alias), Results: flatten(d.Results), Facts: flatten(d.Facts), Deps: d.Deps, Keys: d.Keys, KeysKnown: d.KeysKnown, Payload: d.Payload, Impl: d.Impl, ImplKnown: d.ImplKnown}
}

// Decl expands r.
func (r DeclRecord) Decl() *Decl {
	return &Decl{Hash: r.Hash, Scope: r.Scope, Names: unflatten(r.Names), Alias: unflatten(r.Alias), Results: unflatten(r.Results), Facts: unflatten(r.Facts), Deps: r.Deps, Keys: r.Keys, KeysKnown: r.KeysKnown, Payload: r.Payload, Impl: r.Impl, ImplKnown: r.ImplKnown}
}

func flatten(m map[string]string) string {
	if len(m) == 0 {
		return ""
	}
	keys := slices.Sorted(maps.Keys(m))
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte('\t')
		b.WriteString(m[k])
		b.WriteByte('\n')
	}
	return b.String()
}

func unflatten(s string) map[string]string {
	if s == "" {
		return nil
	}
	m := make(map[string]string, strings.Count(s, "\n"))
	for line := range strings.SplitSeq(strings.TrimSuffix(s, "\n"), "\n") {
		k, v, _ := strings.Cut(line, "\t")
		m[k] = v
	}
	return m
}
