package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cos-dev/cos/scripts/internal/acc"
)

// fixtureOracle runs the oracle on testdata/fixture, dependencies from
// export data (the mapping is the same as with LoadAllSyntax, and the test
// stays fast under -race).
func fixtureOracle(t testing.TB) (*oracle, string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("testdata", "fixture"))
	if err != nil {
		t.Fatal(err)
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		t.Fatal(err)
	}
	or, err := runOracle(context.Background(), root, oracleOptions{ExportDeps: true})
	if err != nil {
		t.Fatal(err)
	}
	if or.Stats.LoadErrors > 0 {
		t.Fatalf("load errors: %v", or.Stats.LoadErrorNotes)
	}
	return or, root
}

func TestOracle_Fixture_Edges(t *testing.T) {
	or, _ := fixtureOracle(t)
	const fn = "code:function:"
	want := []string{
		// A package-level initialiser belongs to its file.
		"code:file:fixture.go -> " + fn + "fixture.go::Helper function [init]",
		// A closure's call belongs to the declared function around it.
		fn + "fixture.go::Closure -> " + fn + "fixture.go::Helper function [closure]",
		fn + "fixture.go::Direct -> " + fn + "fixture.go::Closure function [closure]",
		fn + "generic.go::UseGenerics -> " + fn + "fixture.go::Name function [closure]",
		// Generic calls reach the generic declaration; a method of a
		// generic type is named by the bare type name.
		fn + "generic.go::UseGenerics -> " + fn + "generic.go::Map generic []",
		fn + "generic.go::UseGenerics -> " + fn + "generic.go::Stack.Push generic []",
		fn + "generic.go::Stack.Push -> " + fn + "generic.go::Stack.grow generic []",
		// A test file's calls, once although the package has a test variant.
		fn + "fixture_test.go::talkTwice -> " + fn + "types.go::Talk function [test]",
		// Across packages of the folder.
		fn + "sub/sub.go::Call -> " + fn + "fixture.go::Helper function []",
		// Methods; promoted ones reach the declaring method.
		fn + "types.go::Outer.Run -> " + fn + "fixture.go::Helper function []",
		fn + "types.go::Outer.Run -> " + fn + "types.go::Inner.Hello method [promoted]",
		fn + "types.go::Outer.Run -> " + fn + "types.go::Inner.Ptr method [promoted]",
		// A bound method value called through a variable and a method
		// expression: wrappers map to the method they wrap.
		fn + "types.go::Values -> " + fn + "types.go::Outer.Run method [func-value method-expr]",
		// Interface calls reach the method of the interface declaring it.
		fn + "types.go::Talk -> " + fn + "types.go::Speaker.Speak interface []",
		fn + "types.go::Yell -> " + fn + "types.go::Speaker.Speak interface []",
		fn + "types.go::Yell -> " + fn + "types.go::Loud.Shout interface []",
		fn + "types.go::Local -> " + fn + "types.go::Local.closer.Close interface [local-type]",
	}
	var got []string
	for k, e := range or.Edges {
		got = append(got, fmt.Sprintf("%s -> %s %s [%s]", k.Caller, k.Callee, e.Category, strings.Join(e.Tags.names(), " ")))
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("oracle edges:\ngot  %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
	// Each site once, although the package has a test variant (the same
	// files built twice): talkTwice calls Talk twice, Values calls Run
	// through a bound method value and through a method expression.
	for k, e := range or.Edges {
		want := 1
		if k.Caller == fn+"fixture_test.go::talkTwice" || k.Caller == fn+"types.go::Values" {
			want = 2
		}
		if e.Sites != want {
			t.Errorf("%v: %d sites, want %d", k, e.Sites, want)
		}
	}
}

func TestOracle_Fixture_Interfaces(t *testing.T) {
	or, _ := fixtureOracle(t)
	var sites []string
	for _, s := range or.IfaceSites {
		sites = append(sites, fmt.Sprintf("%s %s %s %v", s.Site, shortUID(s.Caller), shortUID(s.Method), s.InTree))
	}
	want := []string{
		"types.go:35 types.go::Talk types.go::Speaker.Speak true",
		"types.go:39 types.go::Yell types.go::Speaker.Speak true",
		"types.go:40 types.go::Yell types.go::Loud.Shout true",
		"types.go:61 types.go::Local types.go::Local.closer.Close true",
	}
	if !slices.Equal(sites, want) {
		t.Errorf("interface sites:\ngot  %s\nwant %s", strings.Join(sites, "\n     "), strings.Join(want, "\n     "))
	}
	var dispatch []string
	for _, d := range or.Dispatch {
		dispatch = append(dispatch, fmt.Sprintf("%s -> %s via %s: %s implements %s", shortUID(d.Caller), shortUID(d.Concrete), shortUID(d.Method), shortUID(d.Type), shortUID(d.Iface)))
	}
	wantDispatch := []string{"types.go::Talk -> types.go::Dog.Speak via types.go::Speaker.Speak: types.go::Dog implements types.go::Speaker"}
	if !slices.Equal(dispatch, wantDispatch) {
		t.Errorf("dispatch:\ngot  %s\nwant %s", strings.Join(dispatch, "\n     "), strings.Join(wantDispatch, "\n     "))
	}
}

func TestOracle_Fixture_Decls(t *testing.T) {
	or, _ := fixtureOracle(t)
	const fn = "code:function:"
	want := map[string]category{
		fn + "fixture.go::Helper":         catFunction,
		fn + "types.go::Inner.Ptr":        catMethod,
		fn + "types.go::Outer.Run":        catMethod,
		fn + "generic.go::Map":            catGeneric,
		fn + "generic.go::Stack.Push":     catGeneric,
		fn + "types.go::Speaker.Speak":    catInterface,
		fn + "types.go::Loud.Shout":       catInterface,
		fn + "fixture_test.go::talkTwice": catFunction,
	}
	for uid, c := range want {
		if got := or.Decls[uid]; got != c {
			t.Errorf("Decls[%s] = %q, want %q", uid, got, c)
		}
	}
	for _, f := range []string{"fixture.go", "fixture_test.go", "generic.go", "types.go", "sub/sub.go"} {
		if !or.Files[f] {
			t.Errorf("Files lacks %s", f)
		}
	}
	if or.Stats.StaticCGMissing != 0 || or.Stats.CHAInvokeMissing != 0 {
		t.Errorf("the walk missed edges of the call graphs: %+v", or.Stats)
	}
}

func TestCompare_Scores(t *testing.T) {
	const fn = "code:function:"
	or := &oracle{
		Edges: map[pair]*oracleEdge{
			{fn + "a.go::A", fn + "a.go::B"}:      {Category: catFunction, Sites: 2, First: site{File: "a.go", Line: 3}},
			{fn + "a.go::A", fn + "a.go::T.M"}:    {Category: catMethod, Sites: 1, First: site{File: "a.go", Line: 4}, Tags: tagPromoted},
			{fn + "a.go::A", fn + "a.go::I.M"}:    {Category: catInterface, Sites: 1, First: site{File: "a.go", Line: 5}},
			{"code:file:a.go", fn + "a.go::B"}:    {Category: catFunction, Sites: 1, First: site{File: "a.go", Line: 9}, Tags: tagInit},
			{fn + "b_test.go::C", fn + "a.go::B"}: {Category: catFunction, Sites: 1, First: site{File: "b_test.go", Line: 2}},
		},
		Decls: map[string]category{fn + "a.go::A": catFunction, fn + "a.go::B": catFunction, fn + "a.go::T.M": catMethod, fn + "a.go::I.M": catInterface},
		Files: map[string]bool{"a.go": true, "b_test.go": true},
		IfaceSites: []ifaceSite{
			{Site: site{File: "a.go", Line: 5}, Caller: fn + "a.go::A", Method: fn + "a.go::I.M", InTree: true},
			{Site: site{File: "a.go", Line: 6}, Caller: fn + "a.go::A", Method: "code:external:io.Writer.Write"},
		},
	}
	g := &cosGraph{
		Calls: map[pair]cosEdge{
			{fn + "a.go::A", fn + "a.go::B"}:         {},
			{fn + "a.go::A", fn + "a.go::I.M"}:       {},
			{"code:file:a.go", fn + "a.go::B"}:       {},
			{fn + "a.go::A", fn + "a.go::Gone"}:      {}, // unknown callee: a false positive in "all"
			{fn + "a_windows.go::W", fn + "a.go::B"}: {}, // outside the build: left out
		},
		External:   map[pair]bool{{fn + "a.go::A", "code:external:io.Writer.Write"}: true},
		Implements: map[pair]bool{},
	}
	c := compare(or, g, 10)
	type row struct{ oracle, cos, tp int }
	want := map[category]row{
		catFunction:  {3, 2, 2},
		catMethod:    {1, 0, 0},
		catGeneric:   {0, 0, 0},
		catInterface: {1, 1, 1},
		catAll:       {5, 4, 3},
	}
	for _, s := range c.Scores {
		if w := want[s.Category]; (row{s.Oracle, s.Cos, s.TP}) != w {
			t.Errorf("%s: oracle %d cos %d tp %d, want %+v", s.Category, s.Oracle, s.Cos, s.TP, w)
		}
	}
	if all := c.Scores[len(c.Scores)-1]; all.Precision != 0.75 || all.Recall != 0.6 || all.MissedTags["promoted"] != 1 {
		t.Errorf("all: %+v", all)
	}
	if c.CosOutside != 1 || c.Unknown != 1 {
		t.Errorf("outside %d unknown %d, want 1 and 1", c.CosOutside, c.Unknown)
	}
	if c.IfaceSitesInTree != acc.NewRatio(1, 1) || c.IfaceSitesAll != acc.NewRatio(2, 2) {
		t.Errorf("interface sites: %+v %+v", c.IfaceSitesInTree, c.IfaceSitesAll)
	}
	// B: 2 of 3 callers, T.M: 0 of 1, I.M: 1 of 1 → (2/3 + 0 + 1) / 3.
	if got, want := c.RefsRecall.Share, (2.0/3+0+1)/3; got-want > 1e-9 || want-got > 1e-9 || c.RefsRecall.Of != 3 {
		t.Errorf("references recall %v of %d, want %v of 3", got, c.RefsRecall.Of, want)
	}
}
