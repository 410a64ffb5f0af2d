package resolve

import (
	"slices"
	"testing"

	"github.com/cos-dev/cos/extract/lang"
)

// keysOf returns the keys KeyChanges marks for old → nr, sorted.
func keysOf(old, nr lang.DeclRecord) []uint32 {
	var got []uint32
	KeyChanges(old, nr, func(k uint32) {
		if !slices.Contains(got, k) {
			got = append(got, k)
		}
	})
	slices.Sort(got)
	return got
}

func sortedKeys(ks ...uint32) []uint32 {
	slices.Sort(ks)
	return slices.Compact(ks)
}

// TestKeyChanges checks which name keys a change of a C file's declarations
// marks: each name whose entry (kind, alias target, fact value) was added,
// removed or changed, a fact under the name it is about, and the scope's
// whole key with any of them; nothing for an unchanged record or another
// scope.
func TestKeyChanges(t *testing.T) {
	const c = "c:"
	rec := func(names, facts string) lang.DeclRecord {
		return lang.DeclRecord{Scope: c, Names: names, Facts: facts}
	}
	base := rec("f\tfunction\ng\tfunction\n", "v:M\tmacro chain\n")
	for _, tc := range []struct {
		name    string
		old, nr lang.DeclRecord
		want    []uint32
	}{
		{"unchanged", base, base, nil},
		{"a function added", base, rec("f\tfunction\ng\tfunction\nh\tfunction\n", "v:M\tmacro chain\n"),
			sortedKeys(nameKey(c, "h"), WholeKey(c))},
		{"a function removed", base, rec("g\tfunction\n", "v:M\tmacro chain\n"),
			sortedKeys(nameKey(c, "f"), WholeKey(c))},
		{"a kind changed", base, rec("f\tclass\ng\tfunction\n", "v:M\tmacro chain\n"),
			sortedKeys(nameKey(c, "f"), WholeKey(c))},
		{"a macro changed", base, rec("f\tfunction\ng\tfunction\n", "v:M\tother chain\n"),
			sortedKeys(nameKey(c, "M"), WholeKey(c))},
		{"the file appeared", lang.DeclRecord{}, base,
			sortedKeys(nameKey(c, "f"), nameKey(c, "g"), nameKey(c, "M"), WholeKey(c))},
		{"the file left", base, lang.DeclRecord{},
			sortedKeys(nameKey(c, "f"), nameKey(c, "g"), nameKey(c, "M"), WholeKey(c))},
		{"another scope", lang.DeclRecord{Scope: "go:x", Names: "f\tfunction\n"}, lang.DeclRecord{Scope: "go:x", Names: "h\tfunction\n"}, nil},
		{"an alias", lang.DeclRecord{Scope: c, Alias: "a\tf\n"}, lang.DeclRecord{Scope: c, Alias: "a\tg\n"},
			sortedKeys(nameKey(c, "a"), WholeKey(c))},
	} {
		if got := keysOf(tc.old, tc.nr); !slices.Equal(got, tc.want) {
			t.Errorf("%s: keys %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestAnyKey checks the packed key sets of lang.Decl.Keys.
func TestAnyKey(t *testing.T) {
	packed := packKeys(map[uint32]bool{7: true, 1 << 31: true, 42: true})
	if len(packed) != 12 {
		t.Fatalf("packed %d bytes, want 12", len(packed))
	}
	for _, tc := range []struct {
		set  map[uint32]bool
		want bool
	}{
		{nil, false},
		{map[uint32]bool{8: true}, false},
		{map[uint32]bool{42: true}, true},
		{map[uint32]bool{1 << 31: true, 3: true}, true},
	} {
		if got := AnyKey(packed, tc.set); got != tc.want {
			t.Errorf("AnyKey(%v) = %v, want %v", tc.set, got, tc.want)
		}
	}
	if packKeys(nil) != "" || AnyKey("", map[uint32]bool{0: true}) {
		t.Error("an empty set packs to \"\" and holds nothing")
	}
}

// TestResolve_RecordsNames checks that resolving a C file records the names
// its lookups read, not the scope: a call of f reads f, a call through a
// macro reads the macro and its callee, a call of an unknown name reads
// that name (a later declaration of it must make the file a dependent).
func TestResolve_RecordsNames(t *testing.T) {
	const c = "c:"
	decl := &lang.Decl{Scope: c, Names: map[string]string{"f": "function"}}
	decl.SetFact(lang.FactVar+"M", &lang.Chain{Scope: c, Name: "#M.0"})
	decl.SetFact(lang.FactVar+"#M.0", &lang.Chain{Scope: c, Name: "f"})
	caller := &lang.Result{Path: "b.c", Extractor: lang.ExtractorC, Decl: &lang.Decl{Scope: c}, Refs: []lang.Ref{
		{Type: lang.RefCall, From: "x", Scope: c, Name: "f"},
		{Type: lang.RefCall, From: "x", Scope: c, Name: "missing"},
		{Type: lang.RefCall, From: "x", Recv: &lang.Chain{Scope: c}, Name: "#M.0"},
	}}
	tbl := NewTable(map[string]*lang.Decl{"a.c": decl, "b.c": caller.Decl}, nil, nil)
	Resolve(caller, tbl)
	d := caller.Decl
	if !d.KeysKnown || len(d.Deps) != 0 {
		t.Fatalf("KeysKnown %v, Deps %v; want true and no scope", d.KeysKnown, d.Deps)
	}
	for _, n := range []string{"f", "missing", "#M.0", declaredName} {
		if !AnyKey(d.Keys, map[uint32]bool{nameKey(c, n): true}) {
			t.Errorf("no key for %q", n)
		}
	}
	if AnyKey(d.Keys, map[uint32]bool{WholeKey(c): true, nameKey(c, "g"): true}) {
		t.Errorf("keys hold the whole scope or a name never read")
	}
}
